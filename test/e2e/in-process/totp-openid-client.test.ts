// A challenged sign-in answered with an authenticator app's code, against the listening provider, with
// openid-client as the relying party: its ID token says how the user signed in (RFC 8176 amr).
import t from 'tap';
import { base32Decode } from '../../../src/domain/accounts/base32.js';
import { totp } from '../../../src/domain/accounts/totp.js';
import { ALICE, CONFIDENTIAL } from '../../helpers/app.js';
import { KEYS_SECRET } from '../../helpers/account.js';
import { decodeEntities } from '../../helpers/form-post.js';
import { CookieJar, visitToClient } from '../../helpers/fetch-browser.js';
import { listenTestApp, type ListeningApp } from '../../helpers/listening.js';
import { discoverConfidential, prepareAttempt, redeem } from '../../helpers/relying-party.js';

/** One request of a browser with `jar`, redirects not followed. */
async function send(
  jar: CookieJar,
  url: string,
  form?: Record<string, string>,
): Promise<{ status: number; location: string | null; body: string }> {
  const target = new URL(url);
  const headers: Record<string, string> = {};
  const cookie = jar.header(target);
  if (cookie) headers.cookie = cookie;
  if (form) headers['content-type'] = 'application/x-www-form-urlencoded';
  const response = await fetch(target, {
    method: form ? 'POST' : 'GET',
    headers,
    body: form ? new URLSearchParams(form).toString() : undefined,
    redirect: 'manual',
  });
  jar.store(response);
  return { status: response.status, location: response.headers.get('location'), body: await response.text() };
}

const csrfOf = (html: string) => decodeEntities(/name="csrf" value="([^"]+)"/.exec(html)![1]!);

/** Alice signs in on the account page and enrols an authenticator app from its manual key: its secret. */
async function enrolAuthenticator(server: ListeningApp): Promise<Buffer> {
  const jar = new CookieJar();
  const account = `${server.issuer}/account`;
  const signInPage = await send(jar, `${account}/sign-in`);
  const signedIn = await send(jar, `${account}/sign-in`, {
    csrf: csrfOf(signInPage.body),
    login: ALICE.username,
    password: ALICE.password,
  });
  if (signedIn.location !== account) throw new Error(`account sign-in failed: ${signedIn.status}`);
  const page = await send(jar, account);
  await send(jar, `${account}/totp`, { csrf: csrfOf(page.body) });
  const enrolment = await send(jar, `${account}/totp`);
  const secret = base32Decode(/id="manual-key">([A-Z2-7 ]+)</.exec(enrolment.body)![1]!)!;
  const confirmed = await send(jar, `${account}/totp/confirm`, { csrf: csrfOf(enrolment.body), code: totp(secret, new Date()) });
  if (confirmed.location !== `${account}?done=totp-enrolled`) throw new Error(`enrolment failed: ${confirmed.status}`);
  return secret;
}

t.test('a challenged sign-in answered with the authenticator app gives openid-client an ID token with amr pwd, otp, mfa', async (t) => {
  // A new device alone is challenged, so the second browser below is asked for a second factor.
  const server = await listenTestApp(t, { env: { ...KEYS_SECRET, RISK_WEIGHTS: 'NEW_DEVICE=30' } });
  const secret = await enrolAuthenticator(server);
  const config = await discoverConfidential(server);
  const attempt = await prepareAttempt(config, CONFIDENTIAL.redirect_uris[0]!);
  // The code of the next time step: the current one was used up by the enrolment (a replay would be refused).
  const answer = await visitToClient(server.baseUrl, attempt.authorizationUrl, {
    jar: new CookieJar(),
    secondFactor: () => totp(secret, new Date(Date.now() + 30_000)),
  });
  if (answer.mode !== 'query') throw new Error('expected a redirect to the client');
  t.same(answer.pages, ['login', 'second-factor', 'consent'], 'the sign-in asked for the second factor');
  const tokens = await redeem(attempt, answer.callback);
  const claims = tokens.claims();
  t.same(claims?.amr, ['pwd', 'otp', 'mfa']);
  t.equal(claims?.nonce, attempt.nonce);
  t.equal(claims?.iss, server.issuer);
});
