// The pure rules of the risk evaluation (src/domain/risk/evaluate.ts): facts to reasons, reasons to a verdict,
// under an explicit policy (test/helpers/risk.ts), so that a tuning of the defaults does not move these tests.
import t from 'tap';
import { deviceIdentity } from '../../../src/domain/risk/device-identity.js';
import { combinedReasons, earlyReasons, userReasons, verdictOf } from '../../../src/domain/risk/evaluate.js';
import { RISK_REASONS } from '../../../src/domain/risk/verdict.js';
import { CHROME_WINDOWS, FIREFOX_LINUX, HEADLESS_CHROME, signals } from '../../helpers/device-signals.js';
import { earlyFacts, POLICY, userFactsOf } from '../../helpers/risk.js';

const SECRET = Buffer.from('a-device-secret-of-at-least-32-characters');
const FIREFOX = deviceIdentity(signals({ userAgent: FIREFOX_LINUX, deviceCookie: 'AAAAAAAAAAAAAAAAAAAAAA' }), SECRET);
const DEVICE = { id: null, label: 'Firefox on Linux', known: false, trusted: false };

t.test('a quiet attempt from an ordinary browser has no early reason at all', async (t) => {
  t.same(earlyReasons(FIREFOX, earlyFacts(), POLICY), []);
});

t.test('AUTOMATION and UA_HINTS_MISMATCH come from the device itself', async (t) => {
  const headless = deviceIdentity(signals({ userAgent: HEADLESS_CHROME }), SECRET);
  t.same(earlyReasons(headless, earlyFacts(), POLICY), ['AUTOMATION']);
  const forged = deviceIdentity(
    signals({ userAgent: FIREFOX_LINUX, hints: { brands: '"Chromium";v="130"', platform: '"Linux"' } }),
    SECRET,
  );
  t.same(earlyReasons(forged, earlyFacts(), POLICY), ['UA_HINTS_MISMATCH']);
});

t.test('COOKIE_FINGERPRINT_MISMATCH fires when the cookie is known with another browser or system family only', async (t) => {
  const chrome = deviceIdentity(signals({ userAgent: CHROME_WINDOWS }), SECRET);
  t.same(earlyReasons(FIREFOX, earlyFacts({ cookieFingerprints: [chrome.fingerprint] }), POLICY), ['COOKIE_FINGERPRINT_MISMATCH']);
});

t.test("COOKIE_FINGERPRINT_MISMATCH does not fire after a browser update, nor when one of the cookie's devices matches", async (t) => {
  const older = deviceIdentity(signals({ userAgent: FIREFOX_LINUX.replace(/128\.0/g, '127.0') }), SECRET);
  const chrome = deviceIdentity(signals({ userAgent: CHROME_WINDOWS }), SECRET);
  t.same(earlyReasons(FIREFOX, earlyFacts({ cookieFingerprints: [older.fingerprint] }), POLICY), []);
  t.same(earlyReasons(FIREFOX, earlyFacts({ cookieFingerprints: [chrome.fingerprint, older.fingerprint] }), POLICY), []);
  t.same(earlyReasons(FIREFOX, earlyFacts({ cookieFingerprints: [] }), POLICY), [], 'an unknown cookie');
});

t.test('VELOCITY_DEVICE fires on the attempt past RISK_DEVICE_VELOCITY in the window, not on the one before', async (t) => {
  t.same(earlyReasons(FIREFOX, earlyFacts({ deviceAttempts: POLICY.deviceVelocity - 1 }), POLICY), [], `attempt ${POLICY.deviceVelocity}`);
  t.same(
    earlyReasons(FIREFOX, earlyFacts({ deviceAttempts: POLICY.deviceVelocity }), POLICY),
    ['VELOCITY_DEVICE'],
    `attempt ${POLICY.deviceVelocity + 1}`,
  );
});

t.test('VELOCITY_NETWORK fires on the attempt past RISK_NETWORK_VELOCITY in the window, not on the one before', async (t) => {
  t.same(earlyReasons(FIREFOX, earlyFacts({ networkAttempts: POLICY.networkVelocity - 1 }), POLICY), []);
  t.same(earlyReasons(FIREFOX, earlyFacts({ networkAttempts: POLICY.networkVelocity }), POLICY), ['VELOCITY_NETWORK']);
});

t.test('CREDENTIAL_STUFFING fires for many failing logins from one device, one network, or one fingerprint across networks', async (t) => {
  t.same(earlyReasons(FIREFOX, earlyFacts({ deviceLogins: POLICY.stuffingDeviceLogins }), POLICY), ['CREDENTIAL_STUFFING']);
  t.same(earlyReasons(FIREFOX, earlyFacts({ networkLogins: POLICY.stuffingNetworkLogins }), POLICY), ['CREDENTIAL_STUFFING']);
  const cookieless = deviceIdentity(signals({ userAgent: FIREFOX_LINUX }), SECRET);
  t.same(earlyReasons(cookieless, earlyFacts({ fingerprintLogins: POLICY.stuffingFingerprintLogins }), POLICY), ['CREDENTIAL_STUFFING']);
  t.same(
    earlyReasons(FIREFOX, earlyFacts({ fingerprintLogins: POLICY.stuffingFingerprintLogins }), POLICY),
    ['CREDENTIAL_STUFFING'],
    'a fresh cookie is no identity: the sign-in page hands one to every new browser',
  );
});

t.test(
  'CREDENTIAL_STUFFING does not fire by network or fingerprint for a browser with an established cookie: those are crowds',
  async (t) => {
    const crowded = { networkLogins: POLICY.stuffingNetworkLogins * 10, fingerprintLogins: POLICY.stuffingFingerprintLogins * 10 };
    t.same(
      earlyReasons(FIREFOX, earlyFacts({ ...crowded, establishedCookie: true, cookieFingerprints: [FIREFOX.fingerprint] }), POLICY),
      [],
    );
    t.same(
      earlyReasons(
        FIREFOX,
        earlyFacts({ deviceLogins: POLICY.stuffingDeviceLogins, establishedCookie: true, cookieFingerprints: [FIREFOX.fingerprint] }),
        POLICY,
      ),
      ['CREDENTIAL_STUFFING'],
      'but it answers for its own failing logins',
    );
  },
);

t.test('CREDENTIAL_STUFFING does not fire below its thresholds', async (t) => {
  t.same(
    earlyReasons(
      FIREFOX,
      earlyFacts({
        deviceLogins: POLICY.stuffingDeviceLogins - 1,
        networkLogins: POLICY.stuffingNetworkLogins - 1,
        fingerprintLogins: POLICY.stuffingFingerprintLogins - 1,
      }),
      POLICY,
    ),
    [],
  );
});

t.test('FAILED_ATTEMPTS_USER fires from RISK_USER_FAILURES failures on the login, not before', async (t) => {
  t.same(earlyReasons(FIREFOX, earlyFacts({ loginFailures: POLICY.userFailures - 1 }), POLICY), []);
  t.same(earlyReasons(FIREFOX, earlyFacts({ loginFailures: POLICY.userFailures }), POLICY), ['FAILED_ATTEMPTS_USER']);
});

t.test('RULE_BLOCK fires for a matching block rule and wins over an allow rule', async (t) => {
  t.same(earlyReasons(FIREFOX, earlyFacts({ ruleEffects: ['block'] }), POLICY), ['RULE_BLOCK']);
  t.same(earlyReasons(FIREFOX, earlyFacts({ ruleEffects: ['allow', 'block'] }), POLICY), ['RULE_BLOCK']);
});

t.test('RULE_ALLOW fires for a matching allow rule alone; no rule, no RULE_ reason', async (t) => {
  t.same(earlyReasons(FIREFOX, earlyFacts({ ruleEffects: ['allow'] }), POLICY), ['RULE_ALLOW']);
  t.same(earlyReasons(FIREFOX, earlyFacts({ ruleEffects: [] }), POLICY), []);
});

t.test("a user's first device is enrolled with no reason: neither NEW_DEVICE nor NEW_NETWORK", async (t) => {
  t.same(userReasons(userFactsOf({ deviceCount: 0, device: null, networkKnown: false })), []);
});

t.test(
  "NEW_DEVICE fires for a cookie that is not one of the user's devices when they have one; NEW_NETWORK too on a new network",
  async (t) => {
    t.same(userReasons(userFactsOf({ deviceCount: 1, device: null, networkKnown: true })), ['NEW_DEVICE']);
    t.same(userReasons(userFactsOf({ deviceCount: 1, device: null, networkKnown: false })), ['NEW_DEVICE', 'NEW_NETWORK']);
  },
);

t.test("KNOWN_DEVICE fires for one of the user's devices, with NEW_NETWORK when it travels", async (t) => {
  const device = { id: 'd1', trusted: false, fingerprint: FIREFOX.fingerprint };
  t.same(userReasons(userFactsOf({ deviceCount: 1, device, networkKnown: true })), ['KNOWN_DEVICE']);
  t.same(userReasons(userFactsOf({ deviceCount: 1, device, networkKnown: false })), ['KNOWN_DEVICE', 'NEW_NETWORK']);
});

t.test('RULE_BLOCK fires after the password for a username rule naming the user, whichever login was typed', async (t) => {
  t.same(userReasons(userFactsOf({ ruleEffects: ['block'] })), ['RULE_BLOCK']);
  t.same(userReasons(userFactsOf({ ruleEffects: ['allow', 'block'], deviceCount: 1 })), ['RULE_BLOCK', 'NEW_DEVICE', 'NEW_NETWORK']);
});

t.test('RULE_ALLOW fires after the password for an allow rule naming the user; no rule, no RULE_ reason', async (t) => {
  t.same(userReasons(userFactsOf({ ruleEffects: ['allow'] })), ['RULE_ALLOW']);
  t.same(userReasons(userFactsOf({ ruleEffects: [] })), []);
});

t.test('the early and the user reasons are combined once each, and a block rule found either way drops an allow rule', async (t) => {
  t.same(combinedReasons(['AUTOMATION', 'RULE_ALLOW'], ['RULE_ALLOW', 'NEW_DEVICE']), ['AUTOMATION', 'RULE_ALLOW', 'NEW_DEVICE']);
  t.same(combinedReasons(['RULE_ALLOW', 'AUTOMATION'], ['RULE_BLOCK']), ['AUTOMATION', 'RULE_BLOCK']);
  t.same(combinedReasons(['RULE_BLOCK'], ['RULE_ALLOW', 'KNOWN_DEVICE']), ['RULE_BLOCK', 'KNOWN_DEVICE']);
});

t.test("the score is the sum of the reasons' weights, capped at 100; the thresholds pick the action", async (t) => {
  t.same(verdictOf([], POLICY, DEVICE), { action: 'ALLOW', score: 0, reasons: [], device: DEVICE });
  t.equal(verdictOf(['NEW_DEVICE'], POLICY, DEVICE).action, 'ALLOW', '20 < 30');
  t.same(verdictOf(['NEW_DEVICE', 'NEW_NETWORK'], POLICY, DEVICE), {
    action: 'CHALLENGE',
    score: 35,
    reasons: ['NEW_DEVICE', 'NEW_NETWORK'],
    device: DEVICE,
  });
  t.equal(verdictOf(['FAILED_ATTEMPTS_USER'], POLICY, DEVICE).action, 'CHALLENGE', 'exactly the challenge score challenges');
  t.equal(verdictOf(['CREDENTIAL_STUFFING'], POLICY, DEVICE).action, 'BLOCK', 'exactly the block score blocks');
  t.equal(verdictOf(['CREDENTIAL_STUFFING', 'AUTOMATION', 'VELOCITY_DEVICE'], POLICY, DEVICE).score, 100);
});

t.test('an allow rule lets in whatever the score, and a block rule refuses whatever the score', async (t) => {
  const loud = ['AUTOMATION', 'CREDENTIAL_STUFFING', 'VELOCITY_DEVICE'] as const;
  t.equal(verdictOf([...loud, 'RULE_ALLOW'], POLICY, DEVICE).action, 'ALLOW');
  t.equal(
    verdictOf(['RULE_BLOCK'], { ...POLICY, weights: { ...POLICY.weights, RULE_BLOCK: 0 } }, DEVICE).action,
    'BLOCK',
    'even at weight 0',
  );
});

t.test('every reason the issue names is in the vocabulary, and nothing else', async (t) => {
  t.same([...RISK_REASONS].sort(), [
    'AUTOMATION',
    'COOKIE_FINGERPRINT_MISMATCH',
    'CREDENTIAL_STUFFING',
    'FAILED_ATTEMPTS_USER',
    'KNOWN_DEVICE',
    'NEW_DEVICE',
    'NEW_NETWORK',
    'RULE_ALLOW',
    'RULE_BLOCK',
    'UA_HINTS_MISMATCH',
    'VELOCITY_DEVICE',
    'VELOCITY_NETWORK',
  ]);
});
