// The settings are described once (src/settings.ts): loadConfig reads exactly those, and docs/configuration.md and
// .env.example list exactly those, with the same defaults (issue 16, structural 4).
import { readFileSync } from 'node:fs';
import t from 'tap';
import { loadConfig } from '../../src/config.js';
import { SETTINGS, type Setting } from '../../src/settings.js';

const described = Object.keys(SETTINGS).sort();

/** The names loadConfig asks `env` for (every name it asks for, present or not). */
function namesRead(env: Record<string, string>): Set<string> {
  const asked = new Set<string>();
  const recording = new Proxy(env, {
    get(target, name) {
      if (typeof name === 'string') asked.add(name);
      return target[name as string];
    },
  });
  try {
    loadConfig(recording);
  } catch {
    // A refused combination still reads its variables.
  }
  return asked;
}

/** The documented default as the docs write it, for a setting whose default is a plain value. */
function documentedDefault(setting: Setting): string | undefined {
  return setting.default === undefined || setting.default === null ? undefined : `\`${String(setting.default)}\``;
}

t.test('loadConfig reads every described setting and nothing else', async (t) => {
  // Some settings are read only on a path: a notifier's own settings, the metrics port.
  const envs: Array<Record<string, string>> = [{}, { NOTIFIER: 'webhook', METRICS_PORT: '9100' }, { NOTIFIER: 'smtp' }];
  const read = new Set(envs.flatMap((env) => [...namesRead(env)]));
  t.same([...read].sort(), described);
});

t.test('docs/configuration.md has one table row per setting, with its default', async (t) => {
  const rows = readFileSync('docs/configuration.md', 'utf8')
    .split('\n')
    .flatMap((line) => {
      const m = /^\| `([A-Z][A-Z0-9_]*)` \| ([^|]*) \|/.exec(line);
      return m ? [{ name: m[1]!, default: m[2]!.trim() }] : [];
    });
  t.same(rows.map((r) => r.name).sort(), described, 'the same names, each once');
  for (const row of rows) {
    const setting = SETTINGS[row.name as keyof typeof SETTINGS];
    const expected = setting && documentedDefault(setting);
    if (expected !== undefined) t.equal(row.default, expected, `${row.name}'s documented default`);
  }
});

t.test('.env.example has one line per setting (commented or not), with its default', async (t) => {
  const lines = readFileSync('.env.example', 'utf8')
    .split('\n')
    .flatMap((line): Array<{ name: string; value: string | undefined }> => {
      const m = /^(#\s*)?([A-Z][A-Z0-9_]*)=(.*)$/.exec(line);
      // A commented line names the setting without setting it.
      return m ? [{ name: m[2]!, value: m[1] ? undefined : m[3]!.trim() }] : [];
    });
  const names = [...new Set(lines.map((l) => l.name))].sort();
  t.same(names, described, 'the same names');
  t.same(
    lines.filter((l) => l.value !== undefined).map((l) => l.name),
    [...new Set(lines.filter((l) => l.value !== undefined).map((l) => l.name))],
    'no setting set twice',
  );
  for (const line of lines) {
    const setting = SETTINGS[line.name as keyof typeof SETTINGS];
    if (!setting || line.value === undefined || line.value === '') continue;
    t.equal(line.value, String(setting.default), `${line.name} in .env.example is its default`);
  }
});
