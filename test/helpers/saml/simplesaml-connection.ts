// A `saml` connection to Debian's SimpleSAMLphp for the SP e2e tests (issue 39): SimpleSAMLphp started, our SP's key
// pair, a relying party's redirect URI on loopback, the provider listening with the connection made from the IdP's
// metadata, SimpleSAMLphp told our SP from the metadata we publish (SAML Metadata 2.4.4); and the scripted browser's
// steps on our side of the flow: the authorization request to the connection's button, and our consent page.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as oidc from 'openid-client';
import type { Test } from 'tap';
import type { SeedFile } from '../../../src/domain/admin/seed.js';
import type { SamlCredentials } from '../../../src/domain/saml/credentials.js';
import { FIXTURES } from '../app.js';
import type { CookieJar } from '../cookie-jar.js';
import { listenTestApp, type ListeningApp } from '../listening.js';
import { discover, prepareAttempt, type Attempt } from '../relying-party.js';
import { rsaCertificate } from '../rsa-certificate.js';
import { decodeHtml, type BrowsedPage } from './saml-browse.js';
import { startSimpleSamlIdp, type SimpleSamlIdp } from './simplesaml-idp.js';

export interface SimpleSamlConnectionOptions {
  /** rsaCertificate names of SimpleSAMLphp's key pair and of ours: each test file its own. */
  idpCertificateName: string;
  spCertificateName: string;
  /** The IdP metadata as the connection is given it (default: as SimpleSAMLphp serves it). */
  metadata?: (served: string) => string;
}

export interface SimpleSamlConnection {
  idp: SimpleSamlIdp;
  server: ListeningApp;
  /** The metadata the connection `uni` was made from. */
  connectionMetadata: string;
  /** The relying party's redirect URI (`uni-app`'s), on loopback. */
  redirectUri: string;
  /** openid-client's configuration for `uni-app` with client_secret_basic. */
  config: oidc.Configuration;
}

/** A request as the browser with `jar` makes it: its cookies sent and kept, redirects not followed. */
export type JarFetch = (url: URL, form?: Record<string, string> | URLSearchParams) => Promise<Response>;

export function jarFetch(jar: CookieJar): JarFetch {
  return async (url, form) => {
    const headers: Record<string, string> = {};
    const cookie = jar.header(url);
    if (cookie) headers.cookie = cookie;
    if (form) headers['content-type'] = 'application/x-www-form-urlencoded';
    const response = await fetch(url, {
      method: form ? 'POST' : 'GET',
      headers,
      body: form && new URLSearchParams(form).toString(),
      redirect: 'manual',
    });
    jar.store(url, response);
    return response;
  };
}

/** A form field's value in one of our pages (empty when there is none). */
export function fieldOf(html: string, name: string): string {
  return decodeHtml(new RegExp(`name="${name}" value="([^"]*)"`).exec(html)?.[1] ?? '');
}

export async function simpleSamlConnection(t: Test, options: SimpleSamlConnectionOptions): Promise<SimpleSamlConnection> {
  const idp = await startSimpleSamlIdp({ validateAuthnRequest: true, certificateName: options.idpCertificateName });
  t.teardown(idp.stop);
  const sp = rsaCertificate(options.spCertificateName);
  const pair = { privateKeyPem: sp.key, certificatePem: sp.cert };
  const credentials: SamlCredentials = { signing: async () => pair, published: async () => [sp.cert], decryption: async () => [pair] };
  // The relying party's redirect URI on loopback, where the scripted browser lands (it sends nothing off loopback).
  const rp = createServer((_req, res) => res.end('back at the relying party'));
  await new Promise<void>((resolve) => rp.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => rp.close(() => resolve())));
  const redirectUri = `http://127.0.0.1:${(rp.address() as AddressInfo).port}/cb`;
  const client = {
    client_id: 'uni-app',
    client_secret: 'uni-app-secret-0123456789',
    client_name: 'Uni App',
    redirect_uris: [redirectUri],
  };
  const connectionMetadata = options.metadata ? options.metadata(idp.metadataXml) : idp.metadataXml;
  const seed = {
    ...FIXTURES,
    clients: [...FIXTURES.clients, client],
    connections: [{ id: 'uni', kind: 'saml', display_name: 'University', saml_metadata: connectionMetadata }],
  } as unknown as SeedFile;
  const server = await listenTestApp(t, { seed, samlCredentials: credentials, env: { RISK_WEIGHTS: 'AUTOMATION=0' } });
  const spMetadata = await fetch(`${server.issuer}/connections/uni/saml/metadata`);
  t.equal(spMetadata.status, 200, 'our SP metadata for the connection is served');
  idp.addServiceProvider(await spMetadata.text());
  const config = await discover(server, client.client_id, oidc.ClientSecretBasic(client.client_secret), client.client_secret);
  return { idp, server, connectionMetadata, redirectUri, config };
}

/** The client's authorization request, our sign-in page, and its University button pressed (POST /connections/uni/start). */
export async function pressUniButton(connection: SimpleSamlConnection, send: JarFetch) {
  const attempt: Attempt = await prepareAttempt(connection.config, connection.redirectUri);
  const toSignIn = await send(attempt.authorizationUrl);
  const signInPage = await (await send(new URL(toSignIn.headers.get('location')!, attempt.authorizationUrl))).text();
  const started = await send(new URL(`${connection.server.issuer}/connections/uni/start`), {
    interaction: fieldOf(signInPage, 'interaction'),
    csrf: fieldOf(signInPage, 'csrf'),
  });
  return { attempt, signInPage, started };
}

/**
 * Where the browser ends up once back from the IdP: the client's redirect URI, directly or after our consent page
 * (allowed); undefined when it reached neither.
 */
export async function consentIfAsked(
  connection: SimpleSamlConnection,
  page: BrowsedPage,
  send: JarFetch,
): Promise<{ callback: URL | undefined; consented: boolean }> {
  if (!page.body.includes('name="decision"')) {
    return { callback: page.url.href.startsWith(connection.redirectUri) ? page.url : undefined, consented: false };
  }
  const action = decodeHtml(/<form method="post" action="([^"]+)"/.exec(page.body)![1]!);
  const consented = await send(new URL(action), { csrf: fieldOf(page.body, 'csrf'), decision: 'allow' });
  return { callback: new URL(consented.headers.get('location')!), consented: true };
}
