// A real OpenLDAP server for the directory tests: Debian's slapd run as a child process from a temporary folder of
// its own (a generated slapd.conf, an mdb database loaded with slapadd), on free loopback ports for ldap:// (with
// StartTLS) and ldaps://, with a certificate of the test's own. Stopped by its PID and its folder removed when the
// test ends. A slapd the system may run on 389 is never touched.
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Attribute, Change, Client } from 'ldapts';
import type { Test } from 'tap';
import { testCertificate } from './tls.js';

const SLAPD = '/usr/sbin/slapd';
const SLAPADD = '/usr/sbin/slapadd';

/** Why the directory tests do not run here, or undefined when they can. */
export const SLAPD_MISSING =
  existsSync(SLAPD) && existsSync(SLAPADD)
    ? undefined
    : `${SLAPD} is missing: install Debian's slapd and ldap-utils packages (apt-get install slapd ldap-utils) to run the LDAP tests`;

export const BASE_DN = 'dc=example,dc=test';
export const ROOT_DN = `cn=admin,${BASE_DN}`;
const ROOT_PASSWORD = 'root-secret-for-tests';
export const SERVICE_DN = `cn=reader,ou=services,${BASE_DN}`;
export const SERVICE_PASSWORD = 'reader-secret-for-tests';
export const PEOPLE_DN = `ou=people,${BASE_DN}`;
export const GROUPS_DN = `ou=groups,${BASE_DN}`;

export const ALICE_LDAP = {
  uid: 'alice-ldap',
  dn: `uid=alice-ldap,${PEOPLE_DN}`,
  password: 'alice-directory-password',
  mail: 'alice-ldap@example.test',
  cn: 'Alice Directory',
  givenName: 'Alice',
  sn: 'Directory',
};
export const BOB_LDAP = {
  uid: 'bob-ldap',
  dn: `uid=bob-ldap,${PEOPLE_DN}`,
  password: 'bob-directory-password',
  mail: 'bob-ldap@example.test',
  cn: 'Bob Directory',
  givenName: 'Bob',
  sn: 'Directory',
};

const person = (p: typeof ALICE_LDAP) => `dn: ${p.dn}
objectClass: inetOrgPerson
uid: ${p.uid}
cn: ${p.cn}
givenName: ${p.givenName}
sn: ${p.sn}
mail: ${p.mail}
userPassword: ${p.password}
`;

const LDIF = [
  `dn: ${BASE_DN}\nobjectClass: dcObject\nobjectClass: organization\no: Example\ndc: example\n`,
  `dn: ${PEOPLE_DN}\nobjectClass: organizationalUnit\nou: people\n`,
  `dn: ou=moved,${PEOPLE_DN}\nobjectClass: organizationalUnit\nou: moved\n`,
  `dn: ${GROUPS_DN}\nobjectClass: organizationalUnit\nou: groups\n`,
  `dn: ou=services,${BASE_DN}\nobjectClass: organizationalUnit\nou: services\n`,
  `dn: ${SERVICE_DN}\nobjectClass: organizationalRole\nobjectClass: simpleSecurityObject\ncn: reader\nuserPassword: ${SERVICE_PASSWORD}\n`,
  person(ALICE_LDAP),
  person(BOB_LDAP),
  `dn: cn=staff,${GROUPS_DN}\nobjectClass: groupOfNames\ncn: staff\nmember: ${ALICE_LDAP.dn}\nmember: ${BOB_LDAP.dn}\n`,
  `dn: cn=admins,${GROUPS_DN}\nobjectClass: groupOfNames\ncn: admins\nmember: ${ALICE_LDAP.dn}\n`,
].join('\n');

function slapdConf(dir: string): string {
  return `include /etc/ldap/schema/core.schema
include /etc/ldap/schema/cosine.schema
include /etc/ldap/schema/inetorgperson.schema
modulepath /usr/lib/ldap
moduleload back_mdb
pidfile ${dir}/slapd.pid
TLSCertificateFile ${dir}/cert.pem
TLSCertificateKeyFile ${dir}/key.pem
# Passwords are for binding only; the service account reads everything else.
access to attrs=userPassword by anonymous auth by * none
access to * by dn.exact="${SERVICE_DN}" read by self read by * none
database mdb
maxsize 10485760
suffix "${BASE_DN}"
rootdn "${ROOT_DN}"
rootpw ${ROOT_PASSWORD}
directory ${dir}/db
`;
}

export interface LdapServer {
  /** ldap://127.0.0.1:port (StartTLS offered). */
  ldapUrl: string;
  /** ldaps://127.0.0.1:port */
  ldapsUrl: string;
  /** The PEM certificate slapd presents, its own CA: a directory's ca_certificate. */
  ca: string;
  /** Replaces attributes of an entry, as the directory's administrator. */
  modify(dn: string, values: Record<string, string[]>): Promise<void>;
  /** Renames or moves an entry to `newDn` (the old RDN value is removed), as the directory's administrator. */
  move(dn: string, newDn: string): Promise<void>;
}

/** The loopback TCP ports process `pid` listens on, from the kernel's socket table (Linux /proc). */
function listeningPorts(pid: number): number[] {
  const inodes = new Set<string>();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    const target = (() => {
      try {
        return readlinkSync(`/proc/${pid}/fd/${fd}`);
      } catch {
        return '';
      }
    })();
    const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1];
    if (inode) inodes.add(inode);
  }
  const ports: number[] = [];
  for (const line of readFileSync('/proc/net/tcp', 'utf8').split('\n').slice(1)) {
    const fields = line.trim().split(/\s+/);
    // local_address is ADDR:PORT in hex; st 0A is LISTEN; the inode is the tenth field.
    if (fields.length > 9 && fields[3] === '0A' && inodes.has(fields[9]!)) ports.push(parseInt(fields[1]!.split(':')[1]!, 16));
  }
  return ports.sort((a, b) => a - b);
}

/** Resolves once slapd itself listens on both ports (the kernel says so), rejects once it has exited. */
async function slapdListening(child: ChildProcess, ports: number[], deadline: number): Promise<void> {
  for (;;) {
    if (child.exitCode !== null) throw new Error(`slapd exited with ${child.exitCode}`);
    const listening = listeningPorts(child.pid!);
    if (ports.every((port) => listening.includes(port))) return;
    if (Date.now() > deadline) throw new Error('slapd did not listen in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * The first port the kernel hands out for port 0 (net.ipv4.ip_local_port_range): slapd's ports are drawn below it,
 * where no test's port-0 listener lands.
 */
function ephemeralStart(): number {
  try {
    return Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]) || 32768;
  } catch {
    return 32768;
  }
}

const SLAPD_ATTEMPTS = 8;

/**
 * slapd binds the ports it is given itself (it reads port 0 in a URL as the default port, 389), so none can be
 * handed to it already bound, and none is reserved and released for it. Two random ports below the ephemeral range
 * are tried; if slapd exits (one of them is taken: it cannot bind), two others, up to SLAPD_ATTEMPTS times.
 */
async function spawnSlapd(t: Test, dir: string): Promise<{ ldapUrl: string; ldapsUrl: string }> {
  const low = 10_000;
  const high = ephemeralStart();
  let stderr = '';
  for (let attempt = 1; attempt <= SLAPD_ATTEMPTS; attempt += 1) {
    const ldapPort = randomInt(low, high);
    const ldapsPort = ldapPort + 1 < high ? ldapPort + 1 : ldapPort - 1;
    const ldapUrl = `ldap://127.0.0.1:${ldapPort}`;
    const ldapsUrl = `ldaps://127.0.0.1:${ldapsPort}`;
    // -d 0: stays in the foreground (its PID is the child's) and logs nothing.
    const child = spawn(SLAPD, ['-f', path.join(dir, 'slapd.conf'), '-h', `${ldapUrl}/ ${ldapsUrl}/`, '-d', '0'], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    const deadline = Date.now() + 5000;
    try {
      await slapdListening(child, [ldapPort, ldapsPort], deadline);
    } catch (err) {
      if (child.exitCode === null && child.pid !== undefined) process.kill(child.pid, 'SIGTERM');
      await exited;
      if (/exited/.test((err as Error).message) && attempt < SLAPD_ATTEMPTS) continue;
      throw new Error(`${(err as Error).message}: ${stderr.trim()}`);
    }
    t.teardown(async () => {
      if (child.exitCode === null && child.pid !== undefined) process.kill(child.pid, 'SIGTERM');
      await exited;
    });
    return { ldapUrl, ldapsUrl };
  }
  throw new Error(`slapd found no free ports in ${SLAPD_ATTEMPTS} attempts: ${stderr.trim()}`);
}

/** Starts slapd for this test file; stopped (by PID) and its folder removed at the test's teardown. */
export async function startLdapServer(t: Test): Promise<LdapServer> {
  const dir = mkdtempSync(path.join(tmpdir(), 'sso-slapd-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(path.join(dir, 'db'));
  const certificate = testCertificate(['localhost']);
  writeFileSync(path.join(dir, 'cert.pem'), certificate.cert);
  writeFileSync(path.join(dir, 'key.pem'), certificate.key, { mode: 0o600 });
  writeFileSync(path.join(dir, 'slapd.conf'), slapdConf(dir));
  writeFileSync(path.join(dir, 'data.ldif'), LDIF);
  execFileSync(SLAPADD, ['-q', '-f', path.join(dir, 'slapd.conf'), '-l', path.join(dir, 'data.ldif')], { stdio: 'pipe' });
  const { ldapUrl, ldapsUrl } = await spawnSlapd(t, dir);

  const asRoot = async (work: (client: Client) => Promise<void>) => {
    const client = new Client({ url: ldapUrl, timeout: 5000 });
    try {
      await client.bind(ROOT_DN, ROOT_PASSWORD);
      await work(client);
    } finally {
      await client.unbind();
    }
  };
  return {
    ldapUrl,
    ldapsUrl,
    ca: certificate.cert,
    modify: (dn, values) =>
      asRoot((client) =>
        client.modify(
          dn,
          Object.entries(values).map(
            ([type, vals]) => new Change({ operation: 'replace', modification: new Attribute({ type, values: vals }) }),
          ),
        ),
      ),
    move: (dn, newDn) => asRoot((client) => client.modifyDN(dn, newDn)),
  };
}

/** A seed file's directory entry for this server; `overrides` replace fields (url, start_tls, ...). */
export function directorySeed(server: LdapServer, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: 'corp',
    display_name: 'Example directory',
    url: server.ldapsUrl,
    ca_certificate: server.ca,
    bind_dn: SERVICE_DN,
    bind_password: SERVICE_PASSWORD,
    user_base: PEOPLE_DN,
    user_filter: '(&(objectClass=inetOrgPerson)(uid={login}))',
    attributes: {
      username: 'uid',
      id_attribute: 'entryUUID',
      email: 'mail',
      email_verified: true,
      name: 'cn',
      given_name: 'givenName',
      family_name: 'sn',
    },
    group_search: { base: GROUPS_DN, filter: '(&(objectClass=groupOfNames)(member={dn}))' },
    connect_timeout_ms: 2000,
    operation_timeout_ms: 3000,
    ...overrides,
  };
}
