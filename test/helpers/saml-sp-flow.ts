// A sign-in through a saml connection driven over app.inject (issue 39): the OIDC authorization request, the
// connection's button, the AuthnRequest it sends to the IdP stand-in (test/helpers/saml-sp-idp.ts), and the
// Response posted back to the ACS; then on through consent to the code and the ID token (test/helpers/connection-flow.ts).
import { inflateRawSync } from 'node:zlib';
import type { Test } from 'tap';
import { FIXTURES, buildTestApp, type TestApp } from './app.js';
import { followToClient, pressConnectionButton, redeemForIdToken } from './connection-flow.js';
import { Browser } from './flow.js';
import { madeOncePerRun } from './temp-cache.js';
import { idpMetadata, makeKeyPair, memoryCredentials, type TestKeyPair } from './saml-sp-idp.js';
import type { SeedConnection } from '../../src/domain/connections/seed-connections.js';

export const ACS = 'http://localhost:3000/sso/connections/corp/saml/acs';
export const SP_ENTITY_ID = 'http://localhost:3000/sso/connections/corp/saml/metadata';

interface TestKeys {
  idp: TestKeyPair;
  sp: TestKeyPair;
  other: TestKeyPair;
}

// Three RSA key pairs cost some 0.5 s of CPU, and six test processes of a run ask for them: made by the first, read
// by the others (test/helpers/temp-cache.ts); their certificates are valid for a year, the file is kept for a day.
async function makeKeys(): Promise<TestKeys> {
  return {
    idp: await makeKeyPair('idp.example.test'),
    sp: await makeKeyPair('localhost'),
    other: await makeKeyPair('attacker.example.test'),
  };
}

let pairs: Promise<TestKeys> | undefined;
/** The test keys, made once per process, or read from the temp folder when another process made them today. */
export function testKeys(): Promise<TestKeys> {
  return (pairs ??= madeOncePerRun('saml-sp-keys-v1', 86_400_000, makeKeys));
}

export async function samlApp(t: Test, entry: Partial<SeedConnection> = {}) {
  const keys = await testKeys();
  const server = await buildTestApp(t, {
    env: { RISK_WEIGHTS: 'AUTOMATION=0' },
    samlCredentials: memoryCredentials(keys.sp),
    seed: {
      ...FIXTURES,
      connections: [
        { id: 'corp', kind: 'saml', display_name: 'Corp SSO', saml_metadata: idpMetadata(keys.idp), ...entry } as SeedConnection,
      ],
    },
  });
  return { server, keys };
}

export interface StartedSamlSignIn {
  browser: Browser;
  interaction: string;
  redirect: URL;
  requestId: string;
  relayState: string;
  verifier: string;
}

/** To the IdP: the URL the button sends the browser to, and the AuthnRequest's ID read from it. */
export async function startSamlSignIn(server: TestApp, browser = new Browser()): Promise<StartedSamlSignIn> {
  const { interaction, started, verifier } = await pressConnectionButton(server, 'corp', { browser });
  const redirect = new URL(String(started.headers.location));
  const request = inflateRawSync(Buffer.from(redirect.searchParams.get('SAMLRequest') ?? '', 'base64')).toString('utf8');
  const requestId = /ID="([^"]+)"/.exec(request)?.[1] ?? '';
  return { browser, interaction, redirect, requestId, relayState: redirect.searchParams.get('RelayState') ?? '', verifier };
}

/** Posts a Response to the ACS as the IdP's auto-submitting form would. */
export function postToAcs(server: TestApp, browser: Browser, samlResponse: string, relayState?: string) {
  return browser.request(server.app, 'POST', '/sso/connections/corp/saml/acs', {
    SAMLResponse: samlResponse,
    ...(relayState !== undefined ? { RelayState: relayState } : {}),
  });
}

/** From the ACS's answer through consent to the client: the ID token's claims, or undefined when none came. */
export async function followToIdToken(server: TestApp, started: StartedSamlSignIn, response: Awaited<ReturnType<typeof postToAcs>>) {
  return redeemForIdToken(server, await followToClient(server, started, response), started.verifier);
}
