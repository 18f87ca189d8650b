// A real SMTP server on 127.0.0.1 for the tests of NOTIFIER=smtp (smtp-server, in the test's process): it records
// each login and each message, parsed with mailparser as a mail client would read it.
import type { AddressInfo, Socket } from 'node:net';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import type { Test } from 'tap';

export interface ReceivedMail {
  /** The envelope's sender and recipients (MAIL FROM, RCPT TO). */
  from: string;
  to: string[];
  mail: ParsedMail;
}

export interface MailServer {
  port: number;
  logins: Array<{ user: string; password: string }>;
  received: ReceivedMail[];
  /** smtp://[user:password@]127.0.0.1:port */
  url(user?: string, password?: string): string;
  /** Waits (up to `timeoutMs`) for the `nth` (1-based) message to `address`. */
  next(address: string, nth?: number, timeoutMs?: number): Promise<ParsedMail>;
  /** A server started `down` answers from now on. */
  up(): void;
  stop(): Promise<void>;
}

export interface MailServerOptions {
  /**
   * Down until up(): every connection is reset as soon as it is made, as by a host with no server on the port, while
   * the port stays held. A server stopped and started again on its old port could find it taken meanwhile by any
   * process's listen on port 0 (the port came from the same ephemeral range), and fail with EADDRINUSE.
   */
  down?: boolean;
  /** With both, AUTH is required and only this login is accepted. */
  user?: string;
  password?: string;
  /** Recipients answered 550 (a permanent refusal, RFC 5321 4.2.1). */
  refuse?: (address: string) => boolean;
}

export async function startMailServer(t: Test, options: MailServerOptions = {}): Promise<MailServer> {
  const logins: MailServer['logins'] = [];
  const received: ReceivedMail[] = [];
  const withLogin = options.user !== undefined && options.password !== undefined;
  const server = new SMTPServer({
    logger: false,
    // Plain SMTP on loopback: nodemailer upgrades with STARTTLS whenever a server offers it (not tested here).
    disabledCommands: withLogin ? ['STARTTLS'] : ['STARTTLS', 'AUTH'],
    allowInsecureAuth: true,
    authOptional: !withLogin,
    onAuth(auth, _session, callback) {
      logins.push({ user: auth.username ?? '', password: auth.password ?? '' });
      if (auth.username === options.user && auth.password === options.password) callback(null, { user: auth.username });
      else callback(new Error('Invalid username or password'));
    },
    onRcptTo(address, _session, callback) {
      if (options.refuse?.(address.address)) {
        callback(Object.assign(new Error('No such mailbox'), { responseCode: 550 }));
        return;
      }
      callback();
    },
    onData(stream, session, callback) {
      simpleParser(stream).then(
        (mail) => {
          const from = session.envelope.mailFrom ? session.envelope.mailFrom.address : '';
          received.push({ from, to: session.envelope.rcptTo.map((r) => r.address), mail });
          callback();
        },
        (err: Error) => callback(err),
      );
    },
  });
  const serve = server.server.listeners('connection') as Array<(socket: Socket) => void>;
  const reset = (socket: Socket) => socket.resetAndDestroy();
  if (options.down) {
    server.server.removeAllListeners('connection');
    server.server.on('connection', reset);
  }
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.server.address() as AddressInfo).port;
  let stopped: Promise<void> | undefined;
  const stop = () => (stopped ??= new Promise<void>((resolve) => server.close(() => resolve())));
  t.teardown(stop);
  return {
    port,
    logins,
    received,
    url(user, password) {
      const login = user === undefined ? '' : `${encodeURIComponent(user)}:${encodeURIComponent(password ?? '')}@`;
      return `smtp://${login}127.0.0.1:${port}`;
    },
    async next(address, nth = 1, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = received.filter((m) => m.to.includes(address))[nth - 1];
        if (found) return found.mail;
        if (Date.now() > deadline) throw new Error(`no message #${nth} to ${address} within ${timeoutMs} ms`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
    up() {
      if (!server.server.listeners('connection').includes(reset)) return;
      server.server.removeListener('connection', reset);
      for (const listener of serve) server.server.on('connection', listener);
    },
    stop,
  };
}
