// RFC 9700 4.11.2 in a real browser (Chromium through playwright-core) against the listening provider: a client
// registered openly with a redirect URI on another site cannot use the provider's host to send a person there. The
// browser stays on the error page, which names the host; only the person's click goes on. The client's redirect URI
// is intercepted, never fetched.
import type { Page, Request } from 'playwright-core';
import t from 'tap';
import { HEADLESS_IS_FINE, withChromium } from '../../helpers/chromium.js';
import { listenTestApp } from '../../helpers/listening.js';

const EVIL_CB = 'https://evil.example/cb';

const server = await listenTestApp(t, { env: { ...HEADLESS_IS_FINE, REGISTRATION_OPEN: 'true' } });

const registered = await fetch(`${server.issuer}/register`, {
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ client_name: 'Demo App', redirect_uris: [EVIL_CB] }),
});
if (registered.status !== 201) throw new Error(`registration failed: ${registered.status}`);
const { client_id: clientId } = (await registered.json()) as { client_id: string };

/** Every request the page makes to the registrant's site, answered locally. */
async function interceptEvil(page: Page): Promise<Request[]> {
  const seen: Request[] = [];
  await page.route('https://evil.example/**', async (route) => {
    seen.push(route.request());
    await route.fulfill({ status: 200, contentType: 'text/html', body: '<!doctype html><title>Evil</title><p>evil</p>' });
  });
  return seen;
}

await withChromium(t, async (browser) => {
  for (const mode of ['query', 'form_post'] as const) {
    t.test(`a bad request (response_mode=${mode}) stays on the provider's page that names evil.example`, async (t) => {
      const context = await browser.newContext({ serviceWorkers: 'block' });
      t.teardown(() => context.close());
      const page = await context.newPage();
      const seen = await interceptEvil(page);
      const query = new URLSearchParams({
        client_id: clientId,
        response_type: 'x',
        redirect_uri: EVIL_CB,
        state: 'st',
        response_mode: mode,
      });
      const response = await page.goto(`${server.issuer}/authorize?${query}`);
      t.equal(response?.status(), 400);
      await page.waitForTimeout(300);
      t.equal(seen.length, 0, 'nothing was sent to evil.example by itself');
      t.ok(page.url().startsWith(server.issuer), 'the browser is still on the provider');
      t.match(await page.locator('main').innerText(), /This request would have returned you to evil\.example/);
      t.match(await page.getByRole('note').innerText(), /Unverified application\.\s+Demo App registered itself and is not verified/);

      // The person may still choose to go: the error response arrives as RFC 6749 4.1.2.1 describes it.
      const onward = mode === 'query' ? page.getByRole('link', { name: /Return to evil\.example/ }) : page.getByRole('button');
      await Promise.all([page.waitForURL(/evil\.example/), onward.click()]);
      t.equal(seen.length, 1);
      const sent = seen[0]!;
      const params = mode === 'query' ? new URL(sent.url()).searchParams : new URLSearchParams(sent.postData() ?? '');
      t.equal(sent.method(), mode === 'query' ? 'GET' : 'POST');
      t.equal(params.get('error'), 'unsupported_response_type');
      t.equal(params.get('state'), 'st');
    });
  }
});
