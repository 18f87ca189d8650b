// The command line beside a running server on the embedded database (issue 20). PGlite's files are opened by one
// process only, so while the server holds them it listens on a Unix domain socket in DATA_DIR (mode 0600: only the
// account that runs the server, and root, may connect), and `sso-admin` sends its command line there instead of
// refusing. The server runs the same runAdmin with its own database handle; the terminal's questions, hidden
// passwords and stdin travel back to the command line as requests. Output and exit code are the local run's.
//
// The protocol: one JSON object per line. The command line sends {argv, user, interactive}; the server answers
// {out}, {err}, {ask}, {hidden}, {stdin} as the run needs them, each of the last three answered by the command line
// with {reply} (null: no answer), and ends with {exit}.
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import readline from 'node:readline';
import pino, { type Logger } from 'pino';
import { ConfigError, loadConfig, type Config } from '../config.js';
import { loggerOptions } from '../logger.js';
import type { Db } from '../storage/database.js';
import { adminContext, PROGRAM, runAdmin, type Noun } from './command.js';
import { stdoutOutput } from './output.js';
import { NotConfirmed, type Terminal } from './terminal.js';

export const SOCKET_NAME = 'admin.sock';
/** Longer lines than this are not a command line: the connection is dropped. */
const MAX_LINE = 1 << 20;

export const adminSocketPath = (config: Pick<Config, 'dataDir'>) => path.join(config.dataDir, SOCKET_NAME);

type Request = { argv: string[]; user: string; interactive: boolean };
type ServerMessage = { out: string } | { err: string } | { ask: string } | { hidden: string } | { stdin: true } | { exit: number };

/** The first line of a connection, checked field by field: anything else is dropped unanswered. */
function parseRequest(line: string): Request | undefined {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return undefined;
  }
  const r = value as Partial<Request> | null;
  if (typeof r !== 'object' || r === null) return undefined;
  if (!Array.isArray(r.argv) || r.argv.length > 100 || !r.argv.every((a) => typeof a === 'string')) return undefined;
  if (typeof r.user !== 'string' || r.user.length === 0 || r.user.length > 64 || typeof r.interactive !== 'boolean') return undefined;
  return { argv: r.argv, user: r.user, interactive: r.interactive };
}

/** One line at a time from `socket`, or null when it closed. */
function lineReader(socket: net.Socket): () => Promise<string | null> {
  const lines = readline.createInterface({ input: socket, crlfDelay: Infinity });
  const iterator = lines[Symbol.asyncIterator]();
  return async () => {
    const next = await iterator.next();
    return next.done ? null : (next.value as string);
  };
}

/** Runs one connection's command line with the server's database; its log lines go to the caller's stderr. */
async function serveConnection(socket: net.Socket, nouns: readonly Noun[], config: Config, db: Db, serverLog: Logger): Promise<void> {
  const send = (message: ServerMessage) => socket.write(`${JSON.stringify(message)}\n`);
  const readLine = lineReader(socket);
  const request = parseRequest((await readLine()) ?? '');
  if (!request) return void socket.destroy();
  const reply = async (question: ServerMessage): Promise<string | null> => {
    send(question);
    const line = await readLine();
    const answer = line === null ? null : (JSON.parse(line) as { reply?: unknown }).reply;
    return typeof answer === 'string' ? answer : null;
  };
  const terminal: Terminal = {
    interactive: request.interactive,
    async ask(question) {
      const answer = await reply({ ask: question });
      if (answer === null || !/^y(es)?$/i.test(answer.trim())) throw new NotConfirmed('not confirmed: nothing was changed');
    },
    async readHidden(prompt) {
      const typed = await reply({ hidden: prompt });
      if (typed === null) throw new NotConfirmed('interrupted: nothing was changed');
      return typed;
    },
    async readAll() {
      return (await reply({ stdin: true })) ?? '';
    },
  };
  const err = (text: string) => send({ err: text });
  const [noun, verb] = request.argv;
  serverLog.info({ user: request.user, noun, verb }, 'admin command over the local socket');
  const code = await runAdmin(nouns, request.argv, {
    terminal,
    out: stdoutOutput((text) => send({ out: text })),
    error: (line) => err(`${line}\n`),
    async open() {
      // As src/cli/admin.ts opens its own, but on the server's database, and with the caller's account as actor.
      const logger = pino(loggerOptions(config.logLevel), { write: err }).child({ actor: request.user });
      const ctx = { ...adminContext(config, logger, db), actor: { kind: 'cli' as const, osUser: request.user } };
      return { config, logger, ctx, close: async () => {} };
    },
  });
  send({ exit: code });
  socket.end();
}

export interface AdminSocket {
  close(): Promise<void>;
}

/**
 * Listens on DATA_DIR/admin.sock while this process holds the embedded database. The socket is made 0600 before any
 * connection is served: one that arrives earlier is dropped. A socket file left by a process that was killed is
 * replaced (this process holds the database's lock, so no other server is listening on it).
 */
export async function startAdminSocket(config: Config, db: Db, log: Logger, nouns: readonly Noun[]): Promise<AdminSocket | undefined> {
  const file = adminSocketPath(config);
  fs.rmSync(file, { force: true });
  let ready = false;
  const server = net.createServer((socket) => {
    if (!ready) return void socket.destroy();
    socket.on('error', () => socket.destroy());
    serveConnection(socket, nouns, config, db, log).catch((err: unknown) => {
      log.error({ err }, 'admin command over the local socket failed');
      socket.destroy();
    });
  });
  server.maxConnections = 8;
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(file, resolve);
    });
    fs.chmodSync(file, 0o600);
  } catch (err) {
    log.warn({ err, socket: file }, 'the admin command line cannot reach this server: its local socket could not be opened');
    server.close();
    return undefined;
  }
  ready = true;
  return {
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        fs.rmSync(file, { force: true });
      }),
  };
}

/**
 * The socket of a server running on the embedded database named by the settings, connected; undefined when there
 * is none (settings that do not load, PostgreSQL, no server listening): the command line then runs on its own.
 */
export async function connectToRunningServer(): Promise<net.Socket | undefined> {
  let config: Config;
  try {
    if (fs.existsSync('.env')) process.loadEnvFile('.env');
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) return undefined;
    throw err;
  }
  if (config.databaseUrl || config.dataDir === 'memory://') return undefined;
  const file = adminSocketPath(config);
  if (!fs.existsSync(file)) return undefined;
  return new Promise((resolve) => {
    const socket = net.connect(file);
    socket.once('connect', () => resolve(socket));
    // A socket left by a server that was killed refuses: the command line opens the database itself.
    socket.once('error', () => resolve(undefined));
  });
}

/** Sends the command line to the server and plays its answers here; the exit code. */
export async function runRemote(
  socket: net.Socket,
  argv: readonly string[],
  user: string,
  terminal: Terminal,
  write: { out(text: string): void; err(text: string): void },
): Promise<number> {
  const send = (value: unknown) => socket.write(`${JSON.stringify(value)}\n`);
  const readLine = lineReader(socket);
  send({ argv, user, interactive: terminal.interactive });
  const answer = async (fn: () => Promise<string>) => {
    try {
      send({ reply: await fn() });
    } catch {
      send({ reply: null });
    }
  };
  for (;;) {
    const line = await readLine();
    if (line === null || line.length > MAX_LINE) break;
    const message = JSON.parse(line) as Partial<Record<'out' | 'err' | 'ask' | 'hidden', string> & { stdin: true; exit: number }>;
    if (message.out !== undefined) write.out(message.out);
    else if (message.err !== undefined) write.err(message.err);
    else if (message.ask !== undefined) {
      const question = message.ask;
      await answer(async () => {
        await terminal.ask(question);
        return 'yes';
      });
    } else if (message.hidden !== undefined) {
      const prompt = message.hidden;
      await answer(() => terminal.readHidden(prompt));
    } else if (message.stdin) await answer(() => terminal.readAll());
    else if (typeof message.exit === 'number') {
      socket.end();
      return message.exit;
    }
  }
  socket.destroy();
  write.err(`${PROGRAM}: the running server closed its admin socket before the command finished\n`);
  return 1;
}
