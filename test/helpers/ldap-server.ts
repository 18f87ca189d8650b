// A real OpenLDAP server for the directory tests: Debian's slapd run as a child process from a temporary folder of
// its own (a generated slapd.conf, an mdb database loaded with slapadd), on free loopback ports for ldap:// (with
// StartTLS) and ldaps://, with a certificate of the test's own. Started and stopped by its PID (test/helpers/daemon.ts) and its folder removed when the
// test ends. A slapd the system may run on 389 is never touched.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Attribute, Change, Client } from 'ldapts';
import type { Test } from 'tap';
import { onFreePort, startDaemon } from './daemon.js';
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

/**
 * slapd binds the ports it is given itself (it reads port 0 in a URL as the default port, 389), so none can be
 * handed to it already bound, and none is reserved and released for it: onFreePort draws a port below the ephemeral
 * range (and slapd takes the next one too), and draws again if slapd exits because one of them is taken.
 */
async function spawnSlapd(t: Test, dir: string): Promise<{ ldapUrl: string; ldapsUrl: string }> {
  return onFreePort(async (ldapPort) => {
    const ldapsPort = ldapPort + 1;
    const ldapUrl = `ldap://127.0.0.1:${ldapPort}`;
    const ldapsUrl = `ldaps://127.0.0.1:${ldapsPort}`;
    // -d 0: stays in the foreground (its PID is the child's) and logs nothing.
    const slapd = await startDaemon({
      name: 'slapd',
      command: SLAPD,
      args: ['-f', path.join(dir, 'slapd.conf'), '-h', `${ldapUrl}/ ${ldapsUrl}/`, '-d', '0'],
      ready: { ports: [ldapPort, ldapsPort] },
      readyTimeoutMs: 5000,
    });
    t.teardown(slapd.stop);
    return { ldapUrl, ldapsUrl };
  });
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
