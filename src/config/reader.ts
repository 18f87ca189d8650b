// How loadConfig (src/config.ts) reads the settings of src/settings.ts, and only those: a bad value is added to
// `problems` and the default used, so that every problem is listed at once (ConfigError).
import {
  SETTINGS,
  type BooleanSetting,
  type IntegerSetting,
  type SettingName,
  type TextSetting,
  type UnsetIntegerSetting,
} from '../settings.js';

export type Env = Record<string, string | undefined>;

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n  ${problems.join('\n  ')}`);
    this.name = 'ConfigError';
  }
}

/**
 * How loadConfig reads the settings of src/settings.ts, and only those: a bad value is added to `problems` and the
 * default used, so that every problem is listed.
 */
export interface Reader {
  readonly problems: string[];
  /** The trimmed value; when empty, the described default, or `computed` for a default that depends on others. */
  text(name: TextSetting, computed?: string): string;
  integer(name: IntegerSetting): number;
  /** undefined when unset. */
  unsetInteger(name: UnsetIntegerSetting): number | undefined;
  boolean(name: BooleanSetting): boolean;
}

export function settingsReader(env: Env, problems: string[]): Reader {
  const raw = (name: SettingName): string => env[name]?.trim() ?? '';
  const whole = (name: IntegerSetting | UnsetIntegerSetting, value: string): number | undefined => {
    const { min, max } = SETTINGS[name];
    const n = Number(value);
    if (/^\d+$/.test(value) && Number.isSafeInteger(n) && n >= min && n <= max) return n;
    problems.push(`${name} must be a whole number from ${min} to ${max} (got "${value}")`);
    return undefined;
  };
  return {
    problems,
    text: (name, computed) => raw(name) || (SETTINGS[name].default ?? computed ?? ''),
    integer: (name) => {
      const value = raw(name);
      return (value === '' ? undefined : whole(name, value)) ?? SETTINGS[name].default;
    },
    unsetInteger: (name) => {
      const value = raw(name);
      return value === '' ? undefined : whole(name, value);
    },
    boolean: (name) => {
      const value = raw(name).toLowerCase();
      if (value === '') return SETTINGS[name].default;
      if (['true', '1', 'yes'].includes(value)) return true;
      if (['false', '0', 'no'].includes(value)) return false;
      problems.push(`${name} must be true or false (got "${value}")`);
      return SETTINGS[name].default;
    },
  };
}
