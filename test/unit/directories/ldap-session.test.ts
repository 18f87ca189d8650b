// A directory that does not answer as it should ends the conversation as DirectoryUnavailable within its timeouts,
// naming only the failure's class: a refused connection, a server that never answers, and one that agrees to
// StartTLS (RFC 4511 4.14.2) and then never speaks TLS, which only the conversation's own deadline catches.
import net from 'node:net';
import t, { type Test } from 'tap';
import { normaliseDirectory } from '../../../src/domain/directories/directory-settings.js';
import { DirectoryUnavailable } from '../../../src/domain/directories/directory-unavailable.js';
import { withDirectory } from '../../../src/domain/directories/ldap-session.js';
import { REFUSED_PORT } from '../../helpers/listening.js';

const START_TLS_OID = '1.3.6.1.4.1.1466.20037';

function directoryAt(port: number, startTls: boolean) {
  const entry = normaliseDirectory({
    id: 'corp',
    display_name: 'Corp',
    url: `ldap://127.0.0.1:${port}`,
    ...(startTls ? { start_tls: true } : { allow_plain_ldap: true }),
    bind_dn: 'cn=reader,dc=example,dc=test',
    user_base: 'dc=example,dc=test',
    user_filter: '(uid={login})',
    attributes: { username: 'uid', id_attribute: 'entryUUID' },
    connect_timeout_ms: 300,
    operation_timeout_ms: 200,
  });
  return { entry, bindPassword: 'reader-password' };
}

/** A loopback server answering each connection's first message with `answer` (or nothing), closed with the test. */
async function fakeServer(t: Test, answer: (messageId: number) => Buffer | undefined): Promise<number> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.once('data', (data) => {
      // LDAPMessage: SEQUENCE, a short length, then messageID as a one-octet INTEGER.
      const reply = answer(data[4]!);
      if (reply) socket.write(reply);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => {
    for (const socket of sockets) socket.destroy();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return (server.address() as net.AddressInfo).port;
}

/** An ExtendedResponse (RFC 4511 4.12) of success for StartTLS. */
function startTlsSuccess(messageId: number): Buffer {
  const oid = Buffer.from(START_TLS_OID, 'ascii');
  const body = Buffer.concat([Buffer.from([0x0a, 0x01, 0x00, 0x04, 0x00, 0x04, 0x00, 0x8a, oid.length]), oid]);
  const op = Buffer.concat([Buffer.from([0x78, body.length]), body]);
  const message = Buffer.concat([Buffer.from([0x02, 0x01, messageId]), op]);
  return Buffer.concat([Buffer.from([0x30, message.length]), message]);
}

async function failure(t: Test, directory: ReturnType<typeof directoryAt>, withinMs: number): Promise<DirectoryUnavailable> {
  const started = Date.now();
  const err = await withDirectory(directory, async () => 'answered').catch((e: unknown) => e);
  t.ok(err instanceof DirectoryUnavailable, `DirectoryUnavailable, got ${String(err)}`);
  t.ok(Date.now() - started < withinMs, `within ${withinMs} ms (took ${Date.now() - started})`);
  t.notMatch((err as Error).message, /cn=|127\.0\.0\.1/, 'the message names no DN and no address');
  return err as DirectoryUnavailable;
}

t.test('a refused connection', async (t) => {
  const err = await failure(t, directoryAt(REFUSED_PORT, false), 1000);
  t.equal(err.errorClass, 'Error:ECONNREFUSED');
  t.equal(err.directoryId, 'corp');
});

t.test('a server that accepts and never answers: the operation timeout', async (t) => {
  const err = await failure(t, directoryAt(await fakeServer(t, () => undefined), false), 1500);
  t.match(err.errorClass, /Error/);
});

t.test('a server that agrees to StartTLS and then never speaks TLS: the conversation deadline', async (t) => {
  const err = await failure(t, directoryAt(await fakeServer(t, startTlsSuccess), true), 2500);
  t.equal(err.errorClass, 'DeadlineExceeded');
});
