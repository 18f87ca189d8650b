// Issue 38 finding 2 for the seed file, whose check runs before the configuration is known: a webhook's URL and a
// connection's issuer and endpoints meet the one stored-URL check (src/outbound/stored-url.ts) without the allowed
// networks, loopback hosts accepted (a development receiver or upstream; a public issuer's delivery refuses them).
import t from 'tap';
import { parseSeed } from '../../../src/domain/admin/seed.js';
import { isLoopbackUrl } from '../../../src/net/loopback.js';
import { REFUSED_LITERALS } from '../../helpers/address-spellings.js';

const SECRET = 'a-webhook-secret-of-at-least-32-characters';
const refusal = (seed: unknown): string => {
  try {
    parseSeed(seed);
  } catch (err) {
    return (err as Error).message;
  }
  return '';
};
const onLoopback = (url: string) => URL.canParse(url) && isLoopbackUrl(new URL(url));

t.test('a seeded webhook URL is refused in every spelling of a refused address but loopback', async (t) => {
  for (const url of REFUSED_LITERALS.filter((u) => !onLoopback(u))) {
    t.match(refusal({ webhooks: [{ id: 'siem', url, events: ['*'], secret: SECRET }] }), /webhooks\[0\]: url must/, url);
  }
});

t.test("a seeded connection's issuer and endpoints are refused in every spelling of a refused address but loopback", async (t) => {
  for (const url of REFUSED_LITERALS.filter((u) => !onLoopback(u))) {
    for (const field of ['issuer', 'authorization_endpoint']) {
      const entry = { id: 'corp', kind: 'oidc', display_name: 'Corp', client_id: 'sso', issuer: 'https://idp.example', [field]: url };
      t.match(refusal({ connections: [entry] }), new RegExp(`connections\\[0\\]: ${field} must`), `${field}: ${url}`);
    }
  }
});

t.test('loopback receivers and upstreams, and public ones, are accepted by the seed file', async (t) => {
  for (const url of ['http://127.0.0.1:4000/in', 'http://localhost:4000/in', 'https://[::1]/in', 'https://hooks.example/in']) {
    t.equal(refusal({ webhooks: [{ id: 'siem', url, events: ['*'], secret: SECRET }] }), '', url);
    t.equal(refusal({ connections: [{ id: 'corp', kind: 'oidc', display_name: 'Corp', client_id: 'sso', issuer: url }] }), '', url);
  }
});
