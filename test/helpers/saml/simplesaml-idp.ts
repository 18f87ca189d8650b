// A real SAML identity provider for the tests: Debian's SimpleSAMLphp (1.19) served by PHP's built-in server from a
// temporary folder of its own (SIMPLESAMLPHP_CONFIG_DIR: config.php, authsources.php, hosted IdP metadata, the SPs'
// metadata, a key and certificate) on a free loopback port. People sign in with exampleauth:UserPass (a form of
// username and password) and the IdP sends all their attributes. Stopped by its PID.
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { onFreePort, startDaemon } from '../daemon.js';
import { rsaCertificate } from '../rsa-certificate.js';

export const SIMPLESAMLPHP = '/usr/share/simplesamlphp';
export const PHP = '/usr/bin/php';

/** Debian's php-xml (DOM) and php-mbstring, which simplesamlphp needs and does not depend on. */
function phpHasXmlAndMbstring(): boolean {
  try {
    const extensions = readdirSync('/usr/lib/php', { recursive: true, encoding: 'utf8' }).map((file) => path.basename(file));
    return extensions.includes('dom.so') && extensions.includes('mbstring.so');
  } catch {
    return false;
  }
}

/** Why the SimpleSAMLphp tests cannot run here, or undefined when they can. */
export const SIMPLESAMLPHP_MISSING =
  existsSync(path.join(SIMPLESAMLPHP, 'www', 'saml2', 'idp', 'SSOService.php')) && existsSync(PHP) && phpHasXmlAndMbstring()
    ? undefined
    : `${SIMPLESAMLPHP} or ${PHP} is missing: install Debian's simplesamlphp, php-cli, php-xml and php-mbstring packages`;

export interface SimpleSamlUser {
  username: string;
  password: string;
  /** SAML attributes by name, each with its values (all sent, attrname-format basic). */
  attributes: Readonly<Record<string, readonly string[]>>;
}

export const ALICE_SAML: SimpleSamlUser = {
  username: 'alice-saml',
  password: 'alice-idp-password',
  attributes: {
    uid: ['alice-saml'],
    mail: ['alice-saml@example.test'],
    givenName: ['Alice'],
    sn: ['Assertion'],
    displayName: ['Alice Assertion'],
    eduPersonPrincipalName: ['alice-saml@example.test'],
    groups: ['staff', 'admins'],
  },
};

export const BOB_SAML: SimpleSamlUser = {
  username: 'bob-saml',
  password: 'bob-idp-password',
  attributes: {
    uid: ['bob-saml'],
    mail: ['bob-saml@example.test'],
    givenName: ['Bob'],
    sn: ['Assertion'],
    displayName: ['Bob Assertion'],
    eduPersonPrincipalName: ['bob-saml@example.test'],
    groups: ['staff'],
  },
};

export interface SimpleSamlIdpOptions {
  /** One SP's metadata (an EntityDescriptor). */
  spMetadataXml?: string;
  /** Several SPs' metadata; more can be added once it runs (addServiceProvider). */
  sps?: readonly string[];
  /** Who can sign in (default ALICE_SAML and BOB_SAML). */
  users?: readonly SimpleSamlUser[];
  /** saml20.sign.assertion (default true). */
  signAssertion?: boolean;
  /** saml20.sign.response (default false). */
  signResponse?: boolean;
  /** sign.logout: sign LogoutRequest and LogoutResponse (default true; mellon refuses unsigned logout messages). */
  signLogout?: boolean;
  /** validate.authnrequest: refuse AuthnRequests without a valid signature (default false). */
  validateAuthnRequest?: boolean;
  /** assertion.encryption: encrypt assertions to the SP's encryption key (default false). */
  encryptAssertion?: boolean;
  /** The IdP's key pair: rsaCertificate(name). Default 'simplesaml-idp'. */
  certificateName?: string;
  /** SimpleSAMLphp's logging.level, 0 (errors) to 7 (debug); default 3 (errors and warnings). */
  logLevel?: number;
}

export interface SimpleSamlIdp {
  /** http://127.0.0.1:PORT */
  baseUrl: string;
  /** The IdP's entity ID: its metadata URL. */
  entityId: string;
  /** The IdP metadata SimpleSAMLphp serves (SSO and SLO over Redirect and POST, the signing certificate). */
  metadataXml: string;
  /** The certificate the IdP signs with, PEM. */
  certificate: string;
  /** Trusts one more SP from its metadata; the next request already knows it. */
  addServiceProvider(spMetadataXml: string): void;
  /** SimpleSAMLphp's log and PHP's request lines so far, for a failure message. */
  output(): string;
  stop(): Promise<void>;
}

const BINDINGS = {
  redirect: 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect',
  post: 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST',
};

const PHP_JSON = (file: string) => `json_decode(file_get_contents(__DIR__ . '/${file}'), true, 512, JSON_THROW_ON_ERROR)`;

/** SAML metadata without its XML declaration, so that several fit in one EntitiesDescriptor. */
const withoutDeclaration = (xml: string) => xml.replace(/^\s*<\?xml[^>]*\?>\s*/, '');

/** Starts SimpleSAMLphp as an IdP; stop() stops it and removes its folder. */
export async function startSimpleSamlIdp(options: SimpleSamlIdpOptions = {}): Promise<SimpleSamlIdp> {
  if (SIMPLESAMLPHP_MISSING) throw new Error(SIMPLESAMLPHP_MISSING);
  const certificate = rsaCertificate(options.certificateName ?? 'simplesaml-idp');
  const users = options.users ?? [ALICE_SAML, BOB_SAML];
  const dir = mkdtempSync(path.join(tmpdir(), 'sso-simplesaml-'));
  const remove = () => rmSync(dir, { recursive: true, force: true });
  const sps: string[] = [...(options.spMetadataXml ? [options.spMetadataXml] : []), ...(options.sps ?? [])];
  const writeSps = () =>
    writeFileSync(
      path.join(dir, 'sps.xml'),
      `<EntitiesDescriptor xmlns="urn:oasis:names:tc:SAML:2.0:metadata">\n${sps.map(withoutDeclaration).join('\n')}\n</EntitiesDescriptor>\n`,
    );
  try {
    for (const sub of ['metadata', 'cert', 'sessions', 'tmp', 'data', 'log']) mkdirSync(path.join(dir, sub));
    writeFileSync(path.join(dir, 'cert', 'idp.crt'), certificate.cert);
    writeFileSync(path.join(dir, 'cert', 'idp.pem'), certificate.key);
    chmodSync(path.join(dir, 'cert', 'idp.pem'), 0o600);
    writeSps();
    writeFileSync(
      path.join(dir, 'users.json'),
      JSON.stringify(Object.fromEntries(users.map((user) => [`${user.username}:${user.password}`, user.attributes]))),
    );
    writeFileSync(
      path.join(dir, 'authsources.php'),
      `<?php
$config = [
    'admin' => ['core:AdminPassword'],
    'example-userpass' => array_merge(['exampleauth:UserPass'], ${PHP_JSON('users.json')}),
];
`,
    );
    // The NameID for each format an SP may ask for (SAML 2.0 Core 8.3): SimpleSAMLphp picks the requested one.
    const hosted = {
      host: '__DEFAULT__',
      privatekey: 'idp.pem',
      certificate: 'idp.crt',
      auth: 'example-userpass',
      'saml20.sign.assertion': options.signAssertion ?? true,
      'saml20.sign.response': options.signResponse ?? false,
      'sign.logout': options.signLogout ?? true,
      'validate.authnrequest': options.validateAuthnRequest ?? false,
      'assertion.encryption': options.encryptAssertion ?? false,
      'signature.algorithm': 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256',
      // Both bindings in the IdP's metadata (1.19 lists Redirect only by default); both endpoints take either.
      SingleSignOnServiceBinding: [BINDINGS.redirect, BINDINGS.post],
      SingleLogoutServiceBinding: [BINDINGS.redirect, BINDINGS.post],
      authproc: {
        10: { class: 'saml:TransientNameID' },
        11: { class: 'saml:PersistentNameID', attribute: 'uid' },
        12: {
          class: 'saml:AttributeNameID',
          attribute: 'mail',
          Format: 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress',
        },
      },
    };
    writeFileSync(path.join(dir, 'hosted-idp.json'), JSON.stringify(hosted));
    writeFileSync(
      path.join(dir, 'metadata', 'saml20-idp-hosted.php'),
      `<?php\n$metadata['__DYNAMIC:1__'] = json_decode(file_get_contents(__DIR__ . '/../hosted-idp.json'), true, 512, JSON_THROW_ON_ERROR);\n`,
    );

    const writeConfig = (baseUrl: string) =>
      writeFileSync(
        path.join(dir, 'config.php'),
        `<?php
$config = [
    'baseurlpath' => '${baseUrl}/',
    'certdir' => '${dir}/cert/',
    'loggingdir' => '${dir}/log/',
    'datadir' => '${dir}/data/',
    'tempdir' => '${dir}/tmp',
    'metadatadir' => '${dir}/metadata/',
    'metadata.sources' => [
        ['type' => 'flatfile'],
        ['type' => 'xml', 'file' => '${dir}/sps.xml'],
    ],
    'secretsalt' => '${randomBytes(24).toString('hex')}',
    'auth.adminpassword' => '${randomBytes(24).toString('hex')}',
    'technicalcontact_name' => 'Tests',
    'technicalcontact_email' => 'tests@example.test',
    'timezone' => 'UTC',
    'enable.saml20-idp' => true,
    'module.enable' => ['exampleauth' => true, 'core' => true, 'saml' => true, 'admin' => true],
    'logging.handler' => 'stderr',
    'logging.level' => ${options.logLevel ?? 3},
    'showerrors' => true,
    'errorreporting' => false,
    'store.type' => 'phpsession',
    'session.phpsession.savepath' => '${dir}/sessions',
    'session.phpsession.cookiename' => 'SimpleSAMLIdP',
    'session.cookie.name' => 'SimpleSAMLSessionIdP',
    'session.authtoken.cookiename' => 'SimpleSAMLAuthTokenIdP',
    'session.cookie.secure' => false,
    'session.cookie.samesite' => null,
    'language.default' => 'en',
    'trusted.url.domains' => ['127.0.0.1'],
];
`,
      );

    const { daemon, baseUrl } = await onFreePort(async (port) => {
      const baseUrl = `http://127.0.0.1:${port}`;
      writeConfig(baseUrl);
      const daemon = await startDaemon({
        name: 'SimpleSAMLphp (php -S)',
        command: PHP,
        args: [
          '-d',
          'display_errors=stderr',
          '-d',
          'opcache.enable_cli=1',
          '-S',
          `127.0.0.1:${port}`,
          '-t',
          path.join(SIMPLESAMLPHP, 'www'),
        ],
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin', LANG: 'C', SIMPLESAMLPHP_CONFIG_DIR: dir, PHP_CLI_SERVER_WORKERS: '4' },
        cwd: dir,
        ready: { ports: [port] },
      });
      return { daemon, baseUrl };
    });
    const stop = async () => {
      await daemon.stop();
      remove();
    };
    const entityId = `${baseUrl}/saml2/idp/metadata.php`;
    const response = await fetch(entityId).catch(async (err: unknown) => {
      await stop();
      throw new Error(`SimpleSAMLphp did not answer (${String(err)}):\n${daemon.output()}`);
    });
    const metadataXml = await response.text();
    if (response.status !== 200 || !metadataXml.includes('IDPSSODescriptor')) {
      await stop();
      throw new Error(`SimpleSAMLphp served no IdP metadata (HTTP ${response.status}): ${metadataXml.slice(0, 500)}\n${daemon.output()}`);
    }
    return {
      baseUrl,
      entityId,
      metadataXml,
      certificate: certificate.cert,
      addServiceProvider: (xml) => {
        if (!xml.includes('EntityDescriptor')) throw new Error('addServiceProvider: no SAML metadata');
        sps.push(xml);
        writeSps();
      },
      output: daemon.output,
      stop,
    };
  } catch (err) {
    remove();
    throw err;
  }
}
