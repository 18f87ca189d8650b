// GET /metrics after some sign-ins: risk verdicts by action, reasons by reason and action, and the histogram of
// the time the evaluation adds to an attempt.
import t from 'tap';
import { addRiskRule } from '../../../src/domain/risk/rules.js';
import { ALICE, BOB, buildTestApp } from '../../helpers/app.js';
import { CHROME_WINDOWS, signals } from '../../helpers/device-signals.js';
import { Browser, obtainCode } from '../../helpers/flow.js';
import { signInAs, signInContext } from '../../helpers/sign-in-context.js';

const test = await buildTestApp(t);
const ctx = await signInContext(t, test);

/** The samples of the exposition text: `name{labels} value` lines, by their name and labels. */
async function samples(): Promise<Map<string, number>> {
  const res = await test.app.inject({ method: 'GET', url: '/metrics' });
  if (res.statusCode !== 200) throw new Error(res.body);
  const out = new Map<string, number>();
  for (const line of res.body.split('\n')) {
    const m = /^(sso_risk_\w+(?:\{[^}]*\})?) (\S+)$/.exec(line);
    if (m) out.set(m[1]!, Number(m[2]));
  }
  return out;
}

// Alice: a first sign-in (her enrolment, no reason) and a second from the same browser (a known device).
const browser = new Browser();
await obtainCode(test.app, {}, { browser });
await obtainCode(test.app, { prompt: 'login' }, { browser });
// Bob: enrolled, then a new laptop on a new network (challenged), then blocked by a rule.
await signInAs(ctx, BOB.username, BOB.password, signals({ ip: '192.0.2.10' }));
await signInAs(ctx, BOB.username, BOB.password, signals({ ip: '198.51.100.7', userAgent: CHROME_WINDOWS }));
await addRiskRule(test.db, { kind: 'username', value: 'bob', effect: 'block', note: null }, new Date());
await signInAs(ctx, BOB.username, BOB.password, signals({ ip: '192.0.2.10' }));
// A wrong password that no rule or signal blocks is refused without a verdict.
await signInAs(ctx, ALICE.username, 'wrong password', signals({ ip: '192.0.2.20' }));

t.test('GET /metrics counts the verdicts by action', async (t) => {
  const m = await samples();
  t.equal(m.get('sso_risk_verdicts_total{action="ALLOW"}'), 3);
  t.equal(m.get('sso_risk_verdicts_total{action="CHALLENGE"}'), 1);
  t.equal(m.get('sso_risk_verdicts_total{action="BLOCK"}'), 1);
});

t.test('GET /metrics counts the reasons by reason and action', async (t) => {
  const m = await samples();
  t.equal(m.get('sso_risk_reasons_total{reason="KNOWN_DEVICE",action="ALLOW"}'), 1);
  t.equal(m.get('sso_risk_reasons_total{reason="NEW_DEVICE",action="CHALLENGE"}'), 1);
  t.equal(m.get('sso_risk_reasons_total{reason="NEW_NETWORK",action="CHALLENGE"}'), 1);
  t.equal(m.get('sso_risk_reasons_total{reason="RULE_BLOCK",action="BLOCK"}'), 1);
  const reasons = [...m.keys()].filter((k) => k.startsWith('sso_risk_reasons_total{'));
  t.equal(reasons.length, 4, 'no other reason was seen');
});

t.test('GET /metrics has the evaluation latency histogram, one observation per verdict', async (t) => {
  const m = await samples();
  t.equal(m.get('sso_risk_evaluation_seconds_count'), 5);
  t.equal(m.get('sso_risk_evaluation_seconds_bucket{le="+Inf"}'), 5);
  const sum = m.get('sso_risk_evaluation_seconds_sum')!;
  t.ok(sum > 0 && sum < 5, `a positive time in seconds (${sum})`);
  const buckets = [...m.entries()].filter(([k]) => k.startsWith('sso_risk_evaluation_seconds_bucket{'));
  t.same(
    buckets.map(([k]) => /le="([^"]+)"/.exec(k)![1]),
    ['0.0005', '0.001', '0.002', '0.005', '0.01', '0.025', '0.05', '0.1', '+Inf'],
  );
  const counts = buckets.map(([, v]) => v);
  t.same(
    counts,
    [...counts].sort((a, b) => a - b),
    'cumulative buckets',
  );
});

t.test('GET /metrics is Prometheus text, never cached', async (t) => {
  const res = await test.app.inject({ method: 'GET', url: '/metrics' });
  t.match(res.headers['content-type'], /^text\/plain; version=0\.0\.4/);
  t.equal(res.headers['cache-control'], 'no-store');
  t.match(res.body, '# TYPE sso_risk_evaluation_seconds histogram');
});
