// One connection to a directory for one sign-in (or one `directories test`): TLS as the entry asks (ldaps://, or
// StartTLS per RFC 4511 4.14 before any bind), the service account's simple bind (RFC 4513 5.1.3), searches, and
// the user's own bind; always unbound and closed at the end. No pool: a sign-in is rare next to its argon2 cost.
import { isIP } from 'node:net';
import { rootCertificates, type ConnectionOptions } from 'node:tls';
import { Client, InvalidCredentialsError, SizeLimitExceededError, type Entry } from 'ldapts';
import type { DirectoryEntry } from './directory-settings.js';
import { DirectoryUnavailable, errorClassOf } from './directory-unavailable.js';

/** A directory ready to connect to: its checked entry and its service account's password, opened. */
export interface Directory {
  entry: DirectoryEntry;
  bindPassword: string;
}

export interface LdapSession {
  /** Entries under `base` matching `filter`; 'too-many' when more than `sizeLimit` match. */
  search(base: string, filter: string, attributes: string[], binaryAttributes: string[], sizeLimit: number): Promise<Entry[] | 'too-many'>;
  /** True when `password` is the DN's (a simple bind succeeds); false when the directory refuses it. */
  bindAs(dn: string, password: string): Promise<boolean>;
}

function tlsOptions(entry: DirectoryEntry): ConnectionOptions {
  const host = new URL(entry.url).hostname.replace(/^\[|\]$/g, '');
  return {
    minVersion: 'TLSv1.2',
    // RFC 4513 3.1.3: the server's identity is checked against the host the URL names.
    host,
    ...(isIP(host) ? {} : { servername: host }),
    ...(entry.ca_certificate ? { ca: [...rootCertificates, entry.ca_certificate] } : {}),
  };
}

/**
 * Connects, secures, binds as the service account and runs `work`; unbinds whatever happens. A failure to connect,
 * to secure, to bind as the service or of any operation becomes DirectoryUnavailable, carrying no message of the
 * directory's (which can hold DNs and filters): the caller logs the directory and the error class alone.
 */
export async function withDirectory<T>(directory: Directory, work: (session: LdapSession) => Promise<T>): Promise<T> {
  const { entry } = directory;
  const tls = tlsOptions(entry);
  const client = new Client({
    url: entry.url,
    connectTimeout: entry.connect_timeout_ms,
    timeout: entry.operation_timeout_ms,
    // ldapts speaks TLS from the start whenever it is given TLS options, whatever the URL: only for ldaps://.
    ...(entry.url.startsWith('ldaps:') ? { tlsOptions: tls } : {}),
    strictDN: false,
  });
  const unavailable = (err: unknown) => (err instanceof DirectoryUnavailable ? err : new DirectoryUnavailable(entry.id, errorClassOf(err)));
  const conversation = converse(client, directory, unavailable, work);
  // ldapts times the connection and each operation, but not a StartTLS handshake: one deadline for the whole
  // conversation (a connection, and at most five operations: the service bind, two user searches, the group search,
  // the user's bind).
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new DirectoryUnavailable(entry.id, 'DeadlineExceeded')),
      entry.connect_timeout_ms + 5 * entry.operation_timeout_ms,
    );
  });
  conversation.catch(() => undefined); // settled after the deadline, once unbind closes the socket
  try {
    return await Promise.race([conversation, deadline]);
  } finally {
    clearTimeout(timer);
    await client.unbind().catch(() => undefined);
  }
}

/** The service bind, then `work`, on a connected client: every failure as DirectoryUnavailable. */
async function converse<T>(
  client: Client,
  directory: Directory,
  unavailable: (err: unknown) => DirectoryUnavailable,
  work: (session: LdapSession) => Promise<T>,
): Promise<T> {
  const { entry } = directory;
  const tls = tlsOptions(entry);
  try {
    if (entry.start_tls) await client.startTLS(tls);
    await client.bind(entry.bind_dn, directory.bindPassword);
  } catch (err) {
    throw unavailable(err);
  }
  const session: LdapSession = {
    async search(base, filter, attributes, binaryAttributes, sizeLimit) {
      try {
        const { searchEntries } = await client.search(base, {
          scope: 'sub',
          filter,
          attributes,
          explicitBufferAttributes: binaryAttributes,
          sizeLimit,
          timeLimit: Math.ceil(entry.operation_timeout_ms / 1000),
        });
        return searchEntries.length > sizeLimit ? 'too-many' : searchEntries;
      } catch (err) {
        // RFC 4511 4.5.1.4: more entries match than the size limit allows.
        if (err instanceof SizeLimitExceededError) return 'too-many';
        throw unavailable(err);
      }
    },
    async bindAs(dn, password) {
      // RFC 4513 5.1.2: a simple bind with a DN and an empty password is an unauthenticated bind, which servers
      // answer with success: it must never count as a password check.
      if (!password) return false;
      try {
        await client.bind(dn, password);
        return true;
      } catch (err) {
        if (err instanceof InvalidCredentialsError) return false;
        throw unavailable(err);
      }
    },
  };
  return await work(session);
}
