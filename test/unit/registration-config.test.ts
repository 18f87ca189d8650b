// The dynamic client registration settings: off by default, on with an initial access token or REGISTRATION_OPEN.
import t from 'tap';
import { ConfigError, loadConfig } from '../../src/config.js';
import { discoveryDocument } from '../../src/http/protocol/discovery.js';

const TOKEN_A = 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa-1';
const TOKEN_B = 'bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb+/=';

function refusal(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
  return [];
}

t.test('registration is off by default, and not advertised', async (t) => {
  const config = loadConfig({});
  t.same(config.registration, {
    enabled: false,
    open: false,
    addressThrottle: { freeAttempts: 10, lockBaseSeconds: 2, lockMaxSeconds: 900 },
    initialAccessTokens: [],
    clientSecretTtlSeconds: 0,
  });
  t.notOk('registration_endpoint' in discoveryDocument(config));
});

t.test('initial access tokens turn it on, comma-separated and trimmed, and it is advertised under the issuer', async (t) => {
  const config = loadConfig({ REGISTRATION_INITIAL_ACCESS_TOKEN: ` ${TOKEN_A} ,${TOKEN_B},` });
  t.equal(config.registration.enabled, true);
  t.equal(config.registration.open, false);
  t.same(config.registration.initialAccessTokens, [TOKEN_A, TOKEN_B]);
  t.equal(discoveryDocument(config).registration_endpoint, 'http://localhost:3000/sso/register');
});

t.test('REGISTRATION_OPEN=true turns it on without a token', async (t) => {
  const config = loadConfig({ REGISTRATION_OPEN: 'true' });
  t.equal(config.registration.enabled, true);
  t.equal(config.registration.open, true);
  t.equal(discoveryDocument(config).registration_endpoint, 'http://localhost:3000/sso/register');
});

t.test('REGISTRATION_OPEN=false with a token leaves registration on, behind the token', async (t) => {
  const config = loadConfig({ REGISTRATION_OPEN: 'false', REGISTRATION_INITIAL_ACCESS_TOKEN: TOKEN_A });
  t.equal(config.registration.enabled, true);
  t.equal(config.registration.open, false);
});

t.test('a short initial access token is refused, and the message does not repeat it', async (t) => {
  const short = 'short-token-123';
  const problems = refusal({ REGISTRATION_INITIAL_ACCESS_TOKEN: `${TOKEN_A},${short}` });
  t.equal(problems.length, 1);
  t.match(problems[0], /^REGISTRATION_INITIAL_ACCESS_TOKEN must be tokens of at least 32 characters/);
  t.notOk(problems[0]!.includes(short));
  t.notOk(problems[0]!.includes(TOKEN_A));
});

t.test('an initial access token that is not a bearer token (RFC 6750 b64token) is refused', async (t) => {
  t.equal(refusal({ REGISTRATION_INITIAL_ACCESS_TOKEN: `${TOKEN_A} with spaces` }).length, 1);
  t.equal(refusal({ REGISTRATION_INITIAL_ACCESS_TOKEN: `${TOKEN_A}"quoted"` }).length, 1);
});

t.test('REGISTRATION_CLIENT_SECRET_TTL_SECONDS sets the lifetime of registered secrets, 0 by default', async (t) => {
  t.equal(loadConfig({ REGISTRATION_CLIENT_SECRET_TTL_SECONDS: '7776000' }).registration.clientSecretTtlSeconds, 7_776_000);
  t.match(refusal({ REGISTRATION_CLIENT_SECRET_TTL_SECONDS: '-1' })[0], /^REGISTRATION_CLIENT_SECRET_TTL_SECONDS must be a whole number/);
});

t.test('REGISTRATION_IP_FREE_ATTEMPTS: open registrations per address before the sign-in lock ladder; 0 turns it off', async (t) => {
  t.same(
    loadConfig({ REGISTRATION_IP_FREE_ATTEMPTS: '3', SIGN_IN_LOCK_BASE_SECONDS: '5', SIGN_IN_LOCK_MAX_SECONDS: '60' }).registration
      .addressThrottle,
    {
      freeAttempts: 3,
      lockBaseSeconds: 5,
      lockMaxSeconds: 60,
    },
  );
  t.equal(loadConfig({ REGISTRATION_IP_FREE_ATTEMPTS: '0' }).registration.addressThrottle, null);
  t.match(refusal({ REGISTRATION_IP_FREE_ATTEMPTS: '-1' }), [/^REGISTRATION_IP_FREE_ATTEMPTS must be a whole number from 0 to 1000000/]);
});
