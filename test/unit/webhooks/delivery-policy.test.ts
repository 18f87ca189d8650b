// Webhooks (issue 20): when a failed delivery is tried again, when a subscription is paused, and which URLs and
// entries a subscription may have. Pure functions; the delivery round itself is tested end to end
// (test/e2e/in-process/webhooks.test.ts).
import t from 'tap';
import {
  PAUSE_AFTER_FAILURES,
  PAUSE_AFTER_SECONDS,
  RETRY_BASE_SECONDS,
  RETRY_CAP_SECONDS,
  retryDelayMs,
  shouldPause,
} from '../../../src/domain/webhooks/delivery-policy.js';
import { webhookEventOfSecurityEvent } from '../../../src/domain/webhooks/emit.js';
import { WEBHOOK_EVENT_TYPES } from '../../../src/domain/webhooks/event-types.js';
import { webhookEntryProblems } from '../../../src/domain/webhooks/webhook-entry.js';
import { webhookUrlProblem } from '../../../src/domain/webhooks/webhook-url.js';

/** The two settings the rule reads: the issuer, and the networks OUTBOUND_ALLOW_NETWORKS allows. */
const settings = (issuer: string, allowNetworks: string[] = []) => ({ issuer, outbound: { allowNetworks } });

t.test('the wait doubles after each failed attempt, from the base, up to the cap', async (t) => {
  const top = () => 0.999999;
  t.equal(Math.round(retryDelayMs(1, top) / 1000), RETRY_BASE_SECONDS);
  t.equal(Math.round(retryDelayMs(2, top) / 1000), RETRY_BASE_SECONDS * 2);
  t.equal(Math.round(retryDelayMs(5, top) / 1000), RETRY_BASE_SECONDS * 16);
  t.equal(Math.round(retryDelayMs(30, top) / 1000), RETRY_CAP_SECONDS, 'capped');
  t.equal(Math.round(retryDelayMs(10_000, top) / 1000), RETRY_CAP_SECONDS, 'no overflow for a long outage');
});

t.test('jitter keeps each wait between half and all of its ceiling, so an outage does not come back at once', async (t) => {
  t.equal(
    retryDelayMs(3, () => 0),
    (RETRY_BASE_SECONDS * 4 * 1000) / 2,
  );
  t.equal(
    retryDelayMs(3, () => 1),
    RETRY_BASE_SECONDS * 4 * 1000,
  );
  const waits = new Set(Array.from({ length: 20 }, () => retryDelayMs(4, Math.random)));
  t.ok(waits.size > 10, 'random waits differ');
  for (const w of waits) t.ok(w >= RETRY_BASE_SECONDS * 4 * 1000 && w <= RETRY_BASE_SECONDS * 8 * 1000);
});

t.test('a subscription is paused only after enough failures in a row over enough time', async (t) => {
  const since = new Date('2026-11-28T00:00:00Z');
  const later = (s: number) => new Date(since.getTime() + s * 1000);
  t.notOk(shouldPause(PAUSE_AFTER_FAILURES - 1, since, later(PAUSE_AFTER_SECONDS * 10)), 'not enough failures, however long');
  t.notOk(shouldPause(PAUSE_AFTER_FAILURES * 10, since, later(PAUSE_AFTER_SECONDS - 1)), 'a burst within minutes is not enough');
  t.ok(shouldPause(PAUSE_AFTER_FAILURES, since, later(PAUSE_AFTER_SECONDS)));
});

t.test('sign-in outcomes, risk verdicts and new devices are the webhook events of their security events', async (t) => {
  t.equal(webhookEventOfSecurityEvent('sign_in_allowed'), 'sign_in.succeeded');
  t.equal(webhookEventOfSecurityEvent('sign_in_challenged'), 'risk.challenged');
  t.equal(webhookEventOfSecurityEvent('sign_in_blocked'), 'risk.blocked');
  t.equal(webhookEventOfSecurityEvent('new_device'), 'device.added');
  t.equal(webhookEventOfSecurityEvent('totp_enrolled'), undefined);
});

t.test('a webhook URL is held to the rule of a jwks_uri: https, http only on loopback for a loopback issuer', async (t) => {
  const loopback = settings('http://localhost:3000');
  const public_ = settings('https://sso.example.com');
  t.equal(webhookUrlProblem(loopback, 'http://127.0.0.1:4000/hook'), undefined);
  t.equal(webhookUrlProblem(loopback, 'https://hooks.example.com/in'), undefined);
  t.match(webhookUrlProblem(public_, 'http://127.0.0.1:4000/hook'), /must use https/);
  t.match(webhookUrlProblem(loopback, 'http://hooks.example.com/in'), /must use https/);
  t.match(webhookUrlProblem(loopback, 'ftp://hooks.example.com/in'), /must use https/);
  t.match(webhookUrlProblem(loopback, 'https://user:pw@hooks.example.com/'), /credentials/);
  t.match(webhookUrlProblem(loopback, 'hooks'), /not absolute/);
});

t.test('RFC 6890 special-use addresses (private, link-local, this machine) are refused at creation', async (t) => {
  const loopback = settings('http://localhost:3000');
  const public_ = settings('https://sso.example.com');
  t.match(webhookUrlProblem(loopback, 'https://10.0.0.5/hook'), /private network/);
  t.match(webhookUrlProblem(loopback, 'https://169.254.169.254/latest/meta-data'), /private network/);
  t.match(webhookUrlProblem(loopback, 'https://[fd00::1]/hook'), /private network/);
  t.match(webhookUrlProblem(public_, 'https://127.0.0.1/hook'), /private network/, 'loopback only for a loopback issuer');
  t.match(webhookUrlProblem(public_, 'https://localhost/hook'), /this machine/);
  const allowed = settings('https://sso.example.com', ['10.0.0.0/8']);
  t.equal(webhookUrlProblem(allowed, 'https://10.0.0.5/hook'), undefined, 'unless OUTBOUND_ALLOW_NETWORKS allows it');
});

t.test('an entry names every problem, and never echoes its secret', async (t) => {
  const secret = 'short-secret-value';
  const problems = webhookEntryProblems(
    { id: 'Bad Id', url: 'http://hooks.example.com', events: ['user.created', 'user.exploded', 'user.created'], secret, extra: 1 },
    { secretRequired: true },
  );
  t.same(problems, [
    'unknown field "extra"',
    'id must be 1 to 63 lowercase letters, digits, "-" or "_"',
    'url must use https (http only on loopback)',
    `events: "user.exploded" is not an event type (${WEBHOOK_EVENT_TYPES.join(', ')})`,
    'events must not repeat a type',
    'secret must be 32 to 1024 characters',
  ]);
  t.notOk(problems.join(' ').includes(secret));
  t.same(webhookEntryProblems({ id: 'siem', url: 'https://siem.example/in', events: ['*'] }, { secretRequired: false }), []);
  t.same(webhookEntryProblems({ id: 'siem', url: 'https://siem.example/in', events: ['*'] }, { secretRequired: true }), [
    'secret must be 32 to 1024 characters',
  ]);
});
