// A sign-in through an upstream connection's button, driven over app.inject whatever the protocol (the GitHub preset,
// a saml connection): the confidential client's authorization request (code flow, PKCE S256, a nonce), the sign-in
// page and the connection's button; after the upstream, on through our second factor and consent to the client; and
// the code it brings back redeemed for the ID token.
import type { LightMyRequestResponse } from 'fastify';
import { decodeJwt, type JWTPayload } from 'jose';
import { CONFIDENTIAL, type TestApp } from './app.js';
import { Browser, authorizePath, basicAuth, hiddenField, localPath, pkcePair } from './flow.js';

export interface PressedButton {
  browser: Browser;
  /** The sign-in page the button is on. */
  page: LightMyRequestResponse;
  interaction: string;
  /** The answer of POST /connections/{id}/start: a redirect to the upstream, or a page with its form. */
  started: LightMyRequestResponse;
  verifier: string;
}

/** The client's authorization request, our sign-in page, and the button of connection `connectionId` pressed. */
export async function pressConnectionButton(
  server: TestApp,
  connectionId: string,
  options: { browser?: Browser; scope?: string } = {},
): Promise<PressedButton> {
  const browser = options.browser ?? new Browser();
  const { verifier, challenge } = pkcePair();
  const params = {
    response_type: 'code',
    client_id: CONFIDENTIAL.client_id,
    redirect_uri: CONFIDENTIAL.redirect_uris[0]!,
    scope: options.scope ?? 'openid profile email',
    nonce: 'n-0S6_WzA2Mj',
    code_challenge: challenge,
    code_challenge_method: 'S256',
  };
  const page = await browser.request(
    server.app,
    'GET',
    localPath(String((await browser.request(server.app, 'GET', authorizePath(params))).headers.location)),
  );
  const interaction = hiddenField(page.body, 'interaction');
  const started = await browser.request(server.app, 'POST', `/sso/connections/${connectionId}/start`, {
    interaction,
    csrf: hiddenField(page.body, 'csrf'),
  });
  return { browser, page, interaction, started, verifier };
}

/**
 * From our answer to the upstream's return (the callback, the ACS) on to the client: redirects on the issuer
 * followed, the second-factor page answered with `secondFactor` when given, consent allowed. The last answer.
 */
export async function followToClient(
  server: TestApp,
  pressed: Pick<PressedButton, 'browser' | 'interaction'>,
  response: LightMyRequestResponse,
  secondFactor?: () => Promise<string>,
): Promise<LightMyRequestResponse> {
  const { browser, interaction } = pressed;
  for (let step = 0; step < 4 && (response.statusCode === 303 || response.statusCode === 200); step++) {
    if (response.statusCode === 200) {
      if (secondFactor && response.body.includes('name="code"')) {
        response = await browser.request(server.app, 'POST', '/sso/sign-in/verify', {
          csrf: hiddenField(response.body, 'csrf'),
          code: await secondFactor(),
        });
        continue;
      }
      if (!response.body.includes('name="decision"')) break;
      response = await browser.request(server.app, 'POST', `/sso/interaction/${interaction}/consent`, {
        csrf: hiddenField(response.body, 'csrf'),
        decision: 'allow',
      });
      continue;
    }
    const location = String(response.headers.location);
    if (!location.startsWith('http://localhost:3000/sso/')) break;
    response = await browser.request(server.app, 'GET', localPath(location));
  }
  return response;
}

/** RFC 6749 4.1.3 with the PKCE verifier: the ID token's claims for the code the client got, or undefined with no code. */
export async function redeemForIdToken(server: TestApp, last: LightMyRequestResponse, verifier: string): Promise<JWTPayload | undefined> {
  const code = last.headers.location ? new URL(String(last.headers.location)).searchParams.get('code') : null;
  if (!code) return undefined;
  const token = await server.app.inject({
    method: 'POST',
    url: '/sso/token',
    headers: {
      authorization: basicAuth(CONFIDENTIAL.client_id, CONFIDENTIAL.client_secret),
      'content-type': 'application/x-www-form-urlencoded',
    },
    payload: new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      redirect_uri: CONFIDENTIAL.redirect_uris[0]!,
      code_verifier: verifier,
    }).toString(),
  });
  return decodeJwt(token.json<{ id_token: string }>().id_token);
}
