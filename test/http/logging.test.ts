// The request log: one line per request, and no credential in any line (RFC 6749 10.3, 10.5; RFC 9700 4.2).
import { setTimeout as sleep } from 'node:timers/promises';
import type { LightMyRequestResponse } from 'fastify';
import pino from 'pino';
import t from 'tap';
import { loggerOptions } from '../../src/logger.js';
import { ALICE, buildTestApp, CONFIDENTIAL } from '../helpers/app.js';
import {
  authorizePath,
  basicAuth,
  Browser,
  formAction,
  formEncode,
  hiddenField,
  localPath,
  pkcePair,
  tokenRequest,
} from '../helpers/flow.js';
import {
  INITIAL_TOKEN,
  manage,
  OTHER_INITIAL_TOKEN,
  postRegistration,
  REGISTRATION_ENV,
  updateBody,
  WEB_METADATA,
  type ClientInformation,
} from '../helpers/registration.js';

interface LogLine {
  level: number;
  msg: string;
  method?: string;
  path?: string;
  status?: number;
  [key: string]: unknown;
}

t.test('a full sign-in and token flow logs one line per request and no secret (RFC 6749 10.3, 10.5)', async (t) => {
  const raw: string[] = [];
  const logger = pino(loggerOptions('info'), { write: (line: string) => void raw.push(line) });
  const { app } = await buildTestApp(t, { logger });
  t.notMatch(raw.join(''), /"d":|private_jwk|ciphertext/, 'the start-up lines carry no key material');
  raw.length = 0; // the start-up lines (signing keys generated, KEYS_ENCRYPTION_SECRET warning) are not requests

  const sent: Array<{ method: string; path: string; status: number }> = [];
  const record = (method: string, url: string, res: LightMyRequestResponse) => {
    sent.push({ method, path: url.split('?', 1)[0]!, status: res.statusCode });
    return res;
  };
  const browser = new Browser();
  const go = async (method: 'GET' | 'POST', url: string, form?: Record<string, string>) =>
    record(method, url, await browser.request(app, method, url, form));

  const { verifier, challenge } = pkcePair();
  const state = 'state-value-0f3c9a';
  const nonce = 'nonce-value-7be21d';
  const wrongPassword = 'wrong-password-5d1e77';

  await go('GET', '/sso/.well-known/openid-configuration');
  const started = await go(
    'GET',
    authorizePath({
      response_type: 'code',
      client_id: CONFIDENTIAL.client_id,
      redirect_uri: CONFIDENTIAL.redirect_uris[0],
      scope: 'openid profile email',
      state,
      nonce,
      code_challenge: challenge,
      code_challenge_method: 'S256',
    }),
  );
  t.equal(started.statusCode, 303);
  const interactionPath = localPath(String(started.headers.location));
  const loginPage = await go('GET', interactionPath);
  const csrf = hiddenField(loginPage.body, 'csrf');
  const loginAction = formAction(loginPage.body);

  const failed = await go('POST', loginAction, { csrf, login: ALICE.username, password: wrongPassword });
  t.equal(failed.statusCode, 401, 'the failed sign-in');
  const signedIn = await go('POST', loginAction, { csrf, login: ALICE.username, password: ALICE.password });
  t.equal(signedIn.statusCode, 303, 'the successful sign-in');
  const sessionCookie = browser.get('sso_session');
  t.ok(sessionCookie);

  const consentPage = await go('GET', interactionPath);
  const allowed = await go('POST', formAction(consentPage.body), { csrf: hiddenField(consentPage.body, 'csrf'), decision: 'allow' });
  t.equal(allowed.statusCode, 303);
  const code = new URL(String(allowed.headers.location)).searchParams.get('code')!;
  t.ok(code);

  const tokenForm = { grant_type: 'authorization_code', code, redirect_uri: CONFIDENTIAL.redirect_uris[0], code_verifier: verifier };
  const tokens = record('POST', '/sso/token', await tokenRequest(app, tokenForm));
  t.equal(tokens.statusCode, 200, tokens.body);
  const { access_token: accessToken, id_token: idToken } = tokens.json() as { access_token: string; id_token: string };

  const userinfo = record(
    'GET',
    '/sso/userinfo',
    await app.inject({ method: 'GET', url: '/sso/userinfo', headers: { authorization: `Bearer ${accessToken}` } }),
  );
  t.equal(userinfo.statusCode, 200);

  // Failures carry secrets too: a replayed code with the secret in the body, a token in a query string.
  const replay = record(
    'POST',
    '/sso/token',
    await tokenRequest(app, { ...tokenForm, client_id: CONFIDENTIAL.client_id, client_secret: CONFIDENTIAL.client_secret }, undefined),
  );
  t.equal(replay.statusCode, 400);
  const inQuery = `/sso/userinfo?access_token=${accessToken}`;
  record('GET', inQuery, await app.inject({ method: 'GET', url: inQuery, headers: { cookie: `sso_session=${sessionCookie}` } }));
  const notFound = `/sso/nowhere?code=${code}`;
  record('GET', notFound, await app.inject({ method: 'GET', url: notFound }));

  // onResponse may run just after inject resolves: wait for the lines, then a little longer for strays.
  for (let i = 0; i < 100 && raw.length < sent.length; i += 1) await sleep(10);
  await sleep(50);
  const parsed = raw.map((l) => JSON.parse(l) as LogLine);
  // Sign-ins also write security events (one line each, with a stable `event` field): checked for secrets below.
  const lines = parsed.filter((l) => l.msg !== 'security event');

  t.test('the sign-ins wrote their security events, each with an event name', async (t) => {
    const events = parsed.filter((l) => l.msg === 'security event').map((l) => (l as unknown as { event: string }).event);
    t.same(
      events,
      ['sign_in_failed', 'sign_in_allowed', 'new_device'],
      'the wrong password, then the first sign-in of the user, which enrols its first device',
    );
  });

  t.test('every request is logged exactly once, as one "request" line with method, path and status', async (t) => {
    t.equal(lines.length, sent.length, `${sent.length} requests, ${lines.length} lines`);
    t.same(
      lines.map((l) => l.msg),
      sent.map(() => 'request'),
    );
    t.same(
      lines.map((l) => ({ method: l.method, path: l.path, status: l.status })),
      sent,
    );
    for (const line of lines) t.equal(line.level, 30, 'at info level');
  });

  t.test('no line holds a password, client secret, code, token, cookie or CSRF value', async (t) => {
    t.ok(raw.length > 0);
    const secrets: Record<string, string> = {
      'the password': ALICE.password,
      'the wrong password': wrongPassword,
      'the client secret': CONFIDENTIAL.client_secret,
      'the form-encoded client secret': formEncode(CONFIDENTIAL.client_secret),
      'the Basic credentials': basicAuth(CONFIDENTIAL.client_id, CONFIDENTIAL.client_secret).slice('Basic '.length),
      'the code': code,
      'the code verifier': verifier,
      'the access token': accessToken,
      'the ID token': idToken,
      'the ID token signature': idToken.split('.')[2]!,
      'the session cookie': sessionCookie!,
      'the CSRF value': csrf,
      'the state': state,
      'the nonce': nonce,
    };
    const all = raw.join('');
    for (const [what, value] of Object.entries(secrets)) {
      t.ok(value.length >= 8, `${what} is long enough to search for`);
      t.notOk(all.includes(value), `no line contains ${what}`);
    }
  });

  t.test('logged paths never include a query string', async (t) => {
    for (const line of lines) t.notMatch(String(line.path), /\?/);
  });
});

t.test('client registration and management log no initial access token, registration access token or client secret', async (t) => {
  const raw: string[] = [];
  const logger = pino(loggerOptions('info'), { write: (line: string) => void raw.push(line) });
  const { app } = await buildTestApp(t, { logger, env: REGISTRATION_ENV });
  raw.length = 0;

  const created = await postRegistration(app, WEB_METADATA);
  t.equal(created.statusCode, 201, created.body);
  const info = created.json() as ClientInformation;
  t.equal((await postRegistration(app, WEB_METADATA, { token: `${OTHER_INITIAL_TOKEN}-wrong` })).statusCode, 401);
  t.equal((await manage(app, 'GET', info.client_id, info.registration_access_token)).statusCode, 200);
  const updated = await manage(
    app,
    'PUT',
    info.client_id,
    info.registration_access_token,
    updateBody(info, { client_secret: info.client_secret, client_name: 'Renamed' }),
  );
  t.equal(updated.statusCode, 200, updated.body);
  const wrongSecret = await manage(
    app,
    'PUT',
    info.client_id,
    info.registration_access_token,
    updateBody(info, { client_secret: `${info.client_secret}-x` }),
  );
  t.equal(wrongSecret.statusCode, 400);
  const grant = await tokenRequest(app, { grant_type: 'client_credentials' }, basicAuth(info.client_id, info.client_secret!));
  t.equal(grant.statusCode, 400, 'a grant this client may not use: refused after its secret was checked');
  t.equal(
    (await manage(app, 'GET', 'another-client', info.registration_access_token)).statusCode,
    401,
    'presented for another client: revoked',
  );
  t.equal((await manage(app, 'DELETE', info.client_id, info.registration_access_token)).statusCode, 401);

  for (let i = 0; i < 100 && raw.filter((l) => l.includes('"msg":"request"')).length < 8; i += 1) await sleep(10);
  await sleep(50);
  const all = raw.join('');
  const secrets: Record<string, string> = {
    'the initial access token': INITIAL_TOKEN,
    'the other initial access token': OTHER_INITIAL_TOKEN,
    'the registration access token': info.registration_access_token,
    'the client secret': info.client_secret!,
    'the Basic credentials': basicAuth(info.client_id, info.client_secret!).slice('Basic '.length),
  };
  for (const [what, value] of Object.entries(secrets)) t.notOk(all.includes(value), `no line contains ${what}`);
  const events = raw.map((l) => JSON.parse(l) as { event?: string }).flatMap((l) => (l.event ? [l.event] : []));
  t.same(
    events,
    ['client_registered', 'client_registration_updated', 'registration_token_revoked'],
    'each change is a line with a stable event name',
  );
});

t.test('why a request was refused is on its log line, never in the response (issue 16, structural weakness 5)', async (t) => {
  const raw: string[] = [];
  const logger = pino(loggerOptions('info'), { write: (line: string) => void raw.push(line) });
  const { app } = await buildTestApp(t, { logger });
  raw.length = 0;

  // RFC 6749 5.2: the client learns only that its authentication failed; the log says which check refused it.
  const wrongSecret = `${CONFIDENTIAL.client_secret}-wrong`;
  const refused = await tokenRequest(app, { grant_type: 'client_credentials' }, basicAuth(CONFIDENTIAL.client_id, wrongSecret));
  t.equal(refused.statusCode, 401);
  t.same(refused.json(), { error: 'invalid_client', error_description: 'client authentication failed' });
  const unknown = await tokenRequest(app, { grant_type: 'client_credentials' }, basicAuth('no-such-client', wrongSecret));
  t.same(unknown.json(), refused.json(), 'an unknown client gets the very same answer');

  // A forged id_token_hint at the end-session endpoint: the jose error that refused it is the cause.
  const forged = `${Buffer.from('{"alg":"RS256"}').toString('base64url')}.${Buffer.from('{}').toString('base64url')}.c2ln`;
  const logout = await app.inject({ method: 'GET', url: `/sso/session/end?id_token_hint=${forged}` });
  t.equal(logout.statusCode, 400);
  t.notMatch(logout.body, /JWS|signed with a published key|verification/, 'the page does not say why');

  for (let i = 0; i < 100 && raw.length < 3; i += 1) await sleep(10);
  const lines = raw.map((l) => JSON.parse(l) as LogLine & { refusal?: { error: string; detail?: string; causes?: string[] } });
  t.same(
    lines.map((l) => [l.msg, l.path, l.status]),
    [
      ['request', '/sso/token', 401],
      ['request', '/sso/token', 401],
      ['request', '/sso/session/end', 400],
    ],
    'still one line per request',
  );
  t.same(lines[0]!.refusal, { error: 'invalid_client', detail: 'wrong client secret' });
  t.same(lines[1]!.refusal, { error: 'invalid_client', detail: 'unknown client' });
  t.match(lines[2]!.refusal, { error: 'invalid_request', detail: 'not a JWS signed with a published key', causes: [/^JWS/] });
  t.notOk(raw.join('').includes(wrongSecret), 'the secret tried is not logged');
});
