// The admin command line's grammar: `sso-admin <noun> <verb> [arguments] [options]`, nouns and verbs declared as
// data (src/cli/nouns/), parsed with node:util parseArgs, help generated from the same declarations. A new noun is
// one more module in the list given to runAdmin. Verbs only parse and print; the actions are domain functions.
import os from 'node:os';
import { parseArgs } from 'node:util';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { PasswordPolicy } from '../domain/accounts/password-policy.js';
import { PasswordHasher } from '../domain/accounts/passwords.js';
import { type AdminContext } from '../domain/admin/admin.js';
import { AdminError } from '../domain/admin-error.js';
import { systemClock } from '../domain/clock.js';
import { KeyEncryptionError } from '../domain/keys/key-encryption.js';
import type { Db } from '../storage/database.js';
import type { Output } from './output.js';
import type { Terminal } from './terminal.js';

export const PROGRAM = 'sso-admin';

/** The command line itself is wrong (unknown noun, verb or option, a missing argument): exit code 2. */
export class UsageError extends Error {
  /** The command whose --help would have helped ("sso-admin clients"); the verb's, when unset. */
  constructor(
    message: string,
    readonly command?: string,
  ) {
    super(message);
    this.name = 'UsageError';
  }
}

export type OptionSpec = {
  description: string;
  short?: string;
} & (
  | { type: 'boolean' }
  | { type: 'string'; /** Placeholder in the help: VALUE, URI... */ value: string; multiple?: boolean; required?: boolean }
);

export interface ArgSpec {
  name: string;
  description: string;
  /** May be left out (only the last ones): the verb checks whether its action needs it. */
  optional?: boolean;
}

export type OptionValues = Record<string, string | string[] | boolean | undefined>;

export interface Invocation {
  /** The verb's arguments, by name (all required). */
  args: Record<string, string>;
  options: OptionValues;
  json: boolean;
  /** --yes was given (destructive verbs). */
  yes: boolean;
}

/** What a verb gets to act with, once the database is open. */
export interface Session {
  config: Config;
  ctx: AdminContext;
  logger: Logger;
  out: Output;
  /** Asks the person at the terminal; passes at once with --yes. Throws NotConfirmed on no. */
  confirm(question: string): Promise<void>;
  /** One line on stderr, for the person (a warning), not for the result. */
  warn(line: string): void;
}

export interface Verb<P = unknown> {
  name: string;
  summary: string;
  args?: readonly ArgSpec[];
  options?: Readonly<Record<string, OptionSpec>>;
  /** Changes something that cannot be undone: asks first on a terminal, refuses without a terminal unless --yes. */
  destructive?: boolean;
  /** Said after the options in the verb's help. */
  notes?: string;
  /** Checks and reads (a password from stdin, say) before the database opens; throws UsageError or AdminError. */
  prepare?(input: Invocation, terminal: Terminal): P | Promise<P>;
  run(session: Session, input: Invocation, prepared: P): Promise<void>;
}

export interface Noun {
  name: string;
  summary: string;
  verbs: readonly Verb<never>[];
}

/** Keeps each verb's `prepare` and `run` in agreement on what passes between them. */
export function verb<P = undefined>(spec: Verb<P>): Verb<never> {
  return spec as unknown as Verb<never>;
}

const COMMON_OPTIONS: Record<string, OptionSpec> = {
  json: { type: 'boolean', description: 'print the result as JSON (for scripts)' },
  help: { type: 'boolean', short: 'h', description: 'show this help' },
};
const YES_OPTION: OptionSpec = { type: 'boolean', short: 'y', description: 'do it without asking (needed when stdin is not a terminal)' };

function verbOptions(v: Verb<never>): Record<string, OptionSpec> {
  return { ...v.options, ...(v.destructive ? { yes: YES_OPTION } : {}), ...COMMON_OPTIONS };
}

const isHelp = (arg: string | undefined) => arg === '--help' || arg === '-h';
const pad = (rows: Array<[string, string]>) => {
  const width = Math.max(...rows.map(([a]) => a.length));
  return rows.map(([a, b]) => `  ${a.padEnd(width)}  ${b}`).join('\n');
};

export function programHelp(nouns: readonly Noun[]): string {
  return `usage: ${PROGRAM} <noun> <verb> [arguments] [options]
       (npm run admin -- <noun> <verb> ... from the project folder)

Administers the provider on the database its settings name (DATABASE_URL, DATA_DIR; ./.env is read), with the
same rules as the server. Each action is also logged on stderr as one JSON line with an "event" field.

nouns:
${pad(nouns.map((n) => [n.name, n.summary]))}

${PROGRAM} <noun> --help lists a noun's verbs; ${PROGRAM} <noun> <verb> --help tells one verb.
Exit codes: 0 done, 1 refused or failed (nothing changed), 2 bad command line.
`;
}

export function nounHelp(noun: Noun): string {
  return `usage: ${PROGRAM} ${noun.name} <verb> [arguments] [options]

${noun.summary}

verbs:
${pad(noun.verbs.map((v) => [v.name, v.summary]))}

${PROGRAM} ${noun.name} <verb> --help tells one verb.
`;
}

export function verbHelp(noun: Noun, v: Verb<never>): string {
  const options = verbOptions(v);
  const args = (v.args ?? []).map((a) => (a.optional ? ` [<${a.name}>]` : ` <${a.name}>`)).join('');
  const required = Object.entries(options)
    .filter(([, o]) => o.type === 'string' && o.required)
    .map(([name, o]) => ` --${name} ${(o as { value: string }).value}`)
    .join('');
  const optionRows: Array<[string, string]> = Object.entries(options).map(([name, o]) => {
    const flag = `${o.short ? `-${o.short}, ` : ''}--${name}${o.type === 'string' ? ` ${o.value}` : ''}`;
    const extra = o.type === 'string' && o.multiple ? ' (repeat for several)' : '';
    return [flag, `${o.description}${extra}`];
  });
  const argRows: Array<[string, string]> = (v.args ?? []).map((a) => [`<${a.name}>`, a.description]);
  return `usage: ${PROGRAM} ${noun.name} ${v.name}${args}${required} [options]

${v.summary}${v.destructive ? ' Asks for confirmation first (or --yes).' : ''}
${argRows.length > 0 ? `\narguments:\n${pad(argRows)}\n` : ''}
options:
${pad(optionRows)}
${v.notes ? `\n${v.notes.trim()}\n` : ''}`;
}

/** parseArgs's messages, made short and one line. */
function usageFromParseError(err: unknown, command: string): UsageError {
  const e = err as { code?: string; message: string };
  const option = /'(-{1,2}[^' ]+)/.exec(e.message)?.[1];
  if (e.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') return new UsageError(`unknown option ${option ?? ''}`.trim(), command);
  if (e.code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
    return new UsageError(
      /argument missing/.test(e.message) ? `option ${option} needs a value` : `option ${option} takes no value`,
      command,
    );
  }
  return new UsageError(e.message.split('\n')[0]!, command);
}

export interface Resolved {
  noun: Noun;
  verb: Verb<never>;
  input: Invocation;
}

export type Parsed = { help: string } | Resolved;

/** Finds the noun and verb, then checks the options and arguments against the verb's declaration. */
export function parseCommandLine(nouns: readonly Noun[], argv: readonly string[]): Parsed {
  const [nounName, verbName, ...rest] = argv;
  const nounNames = nouns.map((n) => n.name).join(', ');
  if (nounName === undefined) throw new UsageError(`expected a noun: ${nounNames}`, PROGRAM);
  if (isHelp(nounName)) return { help: programHelp(nouns) };
  const noun = nouns.find((n) => n.name === nounName);
  if (!noun) throw new UsageError(`unknown noun "${nounName}" (nouns: ${nounNames})`, PROGRAM);
  const verbNames = noun.verbs.map((v) => v.name).join(', ');
  const nounCommand = `${PROGRAM} ${noun.name}`;
  if (verbName === undefined) throw new UsageError(`expected a verb: ${verbNames}`, nounCommand);
  if (isHelp(verbName)) return { help: nounHelp(noun) };
  const v = noun.verbs.find((candidate) => candidate.name === verbName);
  if (!v) throw new UsageError(`unknown verb "${verbName}" (verbs: ${verbNames})`, nounCommand);
  if (rest.some(isHelp)) return { help: verbHelp(noun, v) };
  const verbCommand = `${nounCommand} ${v.name}`;

  const options = verbOptions(v);
  let parsed;
  try {
    parsed = parseArgs({
      args: [...rest],
      allowPositionals: true,
      strict: true,
      options: Object.fromEntries(
        Object.entries(options).map(([name, o]) => [
          name,
          { type: o.type, ...(o.short ? { short: o.short } : {}), ...(o.type === 'string' && o.multiple ? { multiple: true } : {}) },
        ]),
      ),
    });
  } catch (err) {
    throw usageFromParseError(err, verbCommand);
  }
  const specs = v.args ?? [];
  const { positionals, values } = parsed;
  if (positionals.length > specs.length) throw new UsageError(`unexpected argument "${positionals[specs.length]}"`, verbCommand);
  const required = specs.filter((a) => !a.optional).length;
  if (positionals.length < required) throw new UsageError(`missing <${specs[positionals.length]!.name}>`, verbCommand);
  for (const [name, o] of Object.entries(options)) {
    if (o.type === 'string' && o.required && values[name] === undefined) throw new UsageError(`missing --${name} ${o.value}`, verbCommand);
  }
  return {
    noun,
    verb: v,
    input: {
      args: Object.fromEntries(specs.slice(0, positionals.length).map((a, i) => [a.name, positionals[i]!])),
      options: values as OptionValues,
      json: values.json === true,
      yes: values.yes === true,
    },
  };
}

/** Who ran the command, for the log lines: the operating-system account. */
export function actor(): string {
  try {
    return os.userInfo().username;
  } catch {
    return `uid ${process.getuid?.() ?? 'unknown'}`;
  }
}

/** What the admin actions work with: the database, the clock, the log and the password hasher the config sets. */
export function adminContext(config: Config, logger: Logger, db: Db): AdminContext {
  return {
    config,
    db,
    clock: systemClock,
    log: logger,
    passwords: new PasswordHasher(config.argon2, { serverSecret: config.keysEncryptionSecret }),
    passwordPolicy: new PasswordPolicy(config.passwordPolicy),
    actor: { kind: 'cli', osUser: actor() },
  };
}

export interface Environment {
  terminal: Terminal;
  out: Output;
  /** Writes one line to stderr. */
  error(line: string): void;
  /** Loads the configuration and opens the database (only once the command line is known to be right). */
  open(): Promise<{ config: Config; logger: Logger; ctx: AdminContext; close(): Promise<void> }>;
}

/** Runs one command line to its end; the exit code. */
export async function runAdmin(nouns: readonly Noun[], argv: readonly string[], env: Environment): Promise<number> {
  let where = PROGRAM;
  let logger: Logger | undefined;
  try {
    const parsed = parseCommandLine(nouns, argv);
    if ('help' in parsed) {
      env.out.line(parsed.help.trimEnd());
      return 0;
    }
    const { noun, verb: v, input } = parsed;
    where = `${PROGRAM} ${noun.name} ${v.name}`;
    if (v.destructive && !input.yes && !env.terminal.interactive) {
      throw new UsageError('stdin is not a terminal, so nobody can confirm: pass --yes to do it without asking');
    }
    const prepared = await v.prepare?.(input, env.terminal);
    const opened = await env.open();
    logger = opened.logger;
    try {
      await v.run(
        {
          config: opened.config,
          ctx: opened.ctx,
          logger: opened.logger,
          out: env.out,
          confirm: async (question) => {
            if (!input.yes) await env.terminal.ask(question);
          },
          warn: env.error,
        },
        input,
        prepared as never,
      );
    } finally {
      await opened.close();
    }
    return 0;
  } catch (err) {
    if (err instanceof UsageError) {
      const command = err.command ?? where;
      env.error(`${command}: ${err.message} (${command} --help)`);
      return 2;
    }
    if (err instanceof AdminError || err instanceof KeyEncryptionError) {
      env.error(`${where}: ${err.message}`);
      return 1;
    }
    logger?.fatal({ err }, `${where} failed`);
    env.error(`${where}: failed: ${(err as Error).message.split('\n')[0]}`);
    return 1;
  }
}
