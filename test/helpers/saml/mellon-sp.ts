// A real SAML service provider for the tests: Debian's Apache with mod_auth_mellon, run in the foreground from a
// temporary folder of its own (httpd.conf, SP key and certificate, SP and IdP metadata, a CGI script) on a free
// loopback port. /protected/ needs a SAML sign-in and then shows the NameID and every MELLON_* attribute, one
// `NAME=value` a line; /mellon/ is mellon's endpoint (metadata, postResponse, logout). Stopped by its PID.
import { chownSync, chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import path from 'node:path';
import { onFreePort, startDaemon, type Daemon } from '../daemon.js';
import { rsaCertificate } from '../rsa-certificate.js';

export const APACHE = '/usr/sbin/apache2';
export const MOD_AUTH_MELLON = '/usr/lib/apache2/modules/mod_auth_mellon.so';
const MODULES = '/usr/lib/apache2/modules';

/** Why the mellon tests cannot run here, or undefined when they can. */
export const MELLON_MISSING =
  existsSync(APACHE) && existsSync(MOD_AUTH_MELLON)
    ? undefined
    : `${MOD_AUTH_MELLON} is missing: install Debian's apache2 and libapache2-mod-auth-mellon (apt-get install apache2 libapache2-mod-auth-mellon)`;

/** SAML 2.0 Core 8.3: the NameID formats an SP may ask for, by the names the provider's SP settings use. */
export const NAME_ID_FORMATS = {
  transient: 'urn:oasis:names:tc:SAML:2.0:nameid-format:transient',
  persistent: 'urn:oasis:names:tc:SAML:2.0:nameid-format:persistent',
  email: 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress',
  unspecified: 'urn:oasis:names:tc:SAML:1.1:nameid-format:unspecified',
} as const;
export type NameIdFormat = keyof typeof NAME_ID_FORMATS;

export interface MellonSpOptions {
  /** The IdP's metadata (an EntityDescriptor), as mellon's MellonIdPMetadataFile. */
  idpMetadataXml: string;
  /**
   * The NameID format mellon asks for. mod_auth_mellon 0.18 has no directive for it: Lasso puts the first
   * <NameIDFormat> of the SP's own metadata in the AuthnRequest's NameIDPolicy, so this is that element. Default
   * transient, as mellon's generated metadata says.
   */
  nameIdFormat?: NameIdFormat;
  /** The SP's key pair: rsaCertificate(name). Default 'mellon-sp'. */
  certificateName?: string;
  /** Publish the SP's certificate for encryption too, so that an IdP that honours it encrypts the assertion. */
  encryptionKey?: boolean;
  /** MellonAuthnContextClassRef values: the AuthnContextClassRef the AuthnRequest asks for, and requires back. */
  authnContextClassRefs?: readonly string[];
  /** Apache's LogLevel (default 'warn'; 'debug' shows mellon's reasoning in the failure output). */
  logLevel?: string;
  /**
   * MellonVariable: mellon's session cookie is mellon-NAME (default mellon-cookie). Two SPs on 127.0.0.1 share one cookie
   * jar (cookies ignore the port), so the second needs a name of its own.
   */
  cookieVar?: string;
}

export interface MellonSp {
  /** http://127.0.0.1:PORT */
  baseUrl: string;
  /** The SP's entity ID: its metadata URL. */
  entityId: string;
  /** The SP metadata mellon serves at /mellon/metadata. */
  metadataXml: string;
  /** The page behind the SAML sign-in: shows REMOTE_USER, MELLON_NAME_ID and every MELLON_* attribute. */
  protectedUrl: string;
  /** SP-initiated single logout: mellon's /mellon/logout, returning to loggedOutUrl once the IdP has answered. */
  logoutUrl: string;
  /** A public page that says the SP session ended. */
  loggedOutUrl: string;
  /** Apache's error log so far, for a failure message. */
  output(): string;
  stop(): Promise<void>;
}

const SHOW_SCRIPT = `#!/bin/sh
# What the SP knows of the signed-in person: the NameID (mellon's REMOTE_USER) and every attribute mellon set.
printf 'Content-Type: text/plain; charset=utf-8\\n\\n'
printf 'REMOTE_USER=%s\\n' "$REMOTE_USER"
env | grep '^MELLON_' | sort
`;

function spMetadata(baseUrl: string, options: MellonSpOptions, certBase64: string): string {
  const entityId = `${baseUrl}/mellon/metadata`;
  const keyInfo = `<ds:KeyInfo><ds:X509Data><ds:X509Certificate>${certBase64}</ds:X509Certificate></ds:X509Data></ds:KeyInfo>`;
  return `<?xml version="1.0" encoding="UTF-8"?>
<EntityDescriptor xmlns="urn:oasis:names:tc:SAML:2.0:metadata" xmlns:ds="http://www.w3.org/2000/09/xmldsig#" entityID="${entityId}">
  <SPSSODescriptor AuthnRequestsSigned="true" WantAssertionsSigned="true" protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol">
    <KeyDescriptor use="signing">${keyInfo}</KeyDescriptor>
${options.encryptionKey ? `    <KeyDescriptor use="encryption">${keyInfo}</KeyDescriptor>\n` : ''}    <SingleLogoutService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="${baseUrl}/mellon/logout"/>
    <NameIDFormat>${NAME_ID_FORMATS[options.nameIdFormat ?? 'transient']}</NameIDFormat>
    <AssertionConsumerService index="0" isDefault="true" Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST" Location="${baseUrl}/mellon/postResponse"/>
  </SPSSODescriptor>
</EntityDescriptor>
`;
}

function httpdConf(dir: string, port: number, options: MellonSpOptions): string {
  const asRoot = userInfo().uid === 0;
  return `# Generated by test/helpers/saml/mellon-sp.ts
ServerRoot ${dir}
DefaultRuntimeDir ${dir}/run
PidFile ${dir}/run/httpd.pid
Mutex file:${dir}/run default
Listen 127.0.0.1:${port}
ServerName 127.0.0.1:${port}
# /dev/stderr is a socket here (node's pipe), which Apache cannot open: a piped logger writes to the same place.
${asRoot ? 'User www-data\nGroup www-data\n' : ''}ErrorLog "||/bin/cat"
LogLevel ${options.logLevel ?? 'warn'}
LoadModule mpm_prefork_module ${MODULES}/mod_mpm_prefork.so
LoadModule authn_core_module ${MODULES}/mod_authn_core.so
LoadModule authz_core_module ${MODULES}/mod_authz_core.so
LoadModule authz_user_module ${MODULES}/mod_authz_user.so
LoadModule alias_module ${MODULES}/mod_alias.so
LoadModule mime_module ${MODULES}/mod_mime.so
LoadModule cgi_module ${MODULES}/mod_cgi.so
LoadModule setenvif_module ${MODULES}/mod_setenvif.so
LoadModule auth_mellon_module ${MOD_AUTH_MELLON}
StartServers 2
MinSpareServers 1
MaxSpareServers 4
MaxRequestWorkers 16
TypesConfig /etc/mime.types
DocumentRoot ${dir}/htdocs
<Directory />
  Require all denied
</Directory>
<Directory ${dir}/htdocs>
  Require all granted
</Directory>
<Directory ${dir}/cgi>
  Options +ExecCGI
  Require all granted
</Directory>
ScriptAliasMatch ^/protected/ ${dir}/cgi/show

# mellon's cookie test cookie always says SameSite=None, which browsers refuse without Secure (there is no TLS here):
# without SameSite attributes, Chromium keeps mellon's cookies on http://127.0.0.1.
SetEnvIf Request_URI . MELLON_DISABLE_SAMESITE=1
MellonCacheSize 100
MellonLockFile ${dir}/run/mellon.lock
<Location />
  MellonEnable info
  MellonEndpointPath /mellon
  MellonSPMetadataFile ${dir}/sp-metadata.xml
  MellonSPPrivateKeyFile ${dir}/sp-key.pem
  MellonSPCertFile ${dir}/sp-cert.pem
  MellonIdPMetadataFile ${dir}/idp-metadata.xml
  MellonSecureCookie Off
  MellonDefaultLoginPath /protected/
  MellonIdP "IDP"
${options.cookieVar ? `  MellonVariable ${options.cookieVar}\n` : ''}${(options.authnContextClassRefs ?? []).map((ref) => `  MellonAuthnContextClassRef "${ref}"\n`).join('')}</Location>
<Location /protected/>
  AuthType Mellon
  MellonEnable auth
  Require valid-user
</Location>
`;
}

/** Starts Apache with mod_auth_mellon as an SP of the IdP in `idpMetadataXml`; stop() stops it and removes its folder. */
export async function startMellonSp(options: MellonSpOptions): Promise<MellonSp> {
  if (MELLON_MISSING) throw new Error(MELLON_MISSING);
  if (!options.idpMetadataXml.includes('EntityDescriptor')) throw new Error('startMellonSp: idpMetadataXml is no SAML metadata');
  const certificate = rsaCertificate(options.certificateName ?? 'mellon-sp');
  const dir = mkdtempSync(path.join(tmpdir(), 'sso-mellon-'));
  const remove = () => rmSync(dir, { recursive: true, force: true });
  try {
    // Apache's children run as www-data when it starts as root: they read the folder, the key and the script.
    chmodSync(dir, 0o755);
    for (const sub of ['run', 'htdocs', 'cgi']) mkdirSync(path.join(dir, sub), { mode: 0o755 });
    writeFileSync(path.join(dir, 'sp-cert.pem'), certificate.cert);
    writeFileSync(path.join(dir, 'sp-key.pem'), certificate.key, { mode: 0o600 });
    writeFileSync(path.join(dir, 'idp-metadata.xml'), options.idpMetadataXml);
    writeFileSync(path.join(dir, 'cgi', 'show'), SHOW_SCRIPT, { mode: 0o755 });
    writeFileSync(path.join(dir, 'htdocs', 'logged-out.html'), '<!doctype html><title>Signed out</title><p>Signed out of the SP.</p>\n');
    if (userInfo().uid === 0) {
      const wwwData = 33;
      chownSync(path.join(dir, 'sp-key.pem'), wwwData, wwwData);
      chownSync(path.join(dir, 'run'), wwwData, wwwData);
    }

    const { daemon, baseUrl } = await onFreePort(async (port) => {
      const baseUrl = `http://127.0.0.1:${port}`;
      writeFileSync(path.join(dir, 'sp-metadata.xml'), spMetadata(baseUrl, options, certificate.certBase64));
      writeFileSync(path.join(dir, 'httpd.conf'), httpdConf(dir, port, options));
      const daemon: Daemon = await startDaemon({
        name: 'Apache (mod_auth_mellon)',
        command: APACHE,
        args: ['-f', path.join(dir, 'httpd.conf'), '-DFOREGROUND'],
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin', LANG: 'C' },
        cwd: dir,
        ready: { ports: [port] },
      });
      return { daemon, baseUrl };
    });
    const stop = async () => {
      await daemon.stop();
      remove();
    };
    const response = await fetch(`${baseUrl}/mellon/metadata`).catch(async (err: unknown) => {
      await stop();
      throw new Error(`mellon did not answer (${String(err)}):\n${daemon.output()}`);
    });
    const metadataXml = await response.text();
    if (response.status !== 200) {
      await stop();
      throw new Error(`mellon served no metadata (HTTP ${response.status}):\n${daemon.output()}`);
    }
    return {
      baseUrl,
      entityId: `${baseUrl}/mellon/metadata`,
      metadataXml,
      protectedUrl: `${baseUrl}/protected/`,
      logoutUrl: `${baseUrl}/mellon/logout?ReturnTo=${encodeURIComponent(`${baseUrl}/logged-out.html`)}`,
      loggedOutUrl: `${baseUrl}/logged-out.html`,
      output: daemon.output,
      stop,
    };
  } catch (err) {
    remove();
    throw err;
  }
}

/** The `NAME=value` lines of the protected page, as a map (a repeated name keeps its last value). */
export function readShownAttributes(page: string): Map<string, string> {
  const shown = new Map<string, string>();
  for (const line of page.split('\n')) {
    const eq = line.indexOf('=');
    if (eq > 0) shown.set(line.slice(0, eq), line.slice(eq + 1));
  }
  return shown;
}
