// Debian's Chromium through playwright-core for the page tests: launched headless, unable to reach anything
// but the loopback server, and closed with the test.
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';
import type { Test } from 'tap';
import { teardownAtProcessEnd } from './test-group.js';

export const CHROMIUM = '/usr/bin/chromium';

const LAUNCH_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  // Every host but the loopback server fails to resolve: nothing can leave the machine, even by mistake. `localhost`
  // is the loopback server too (WebAuthn needs a host name as RP ID, test/e2e/browser/passkeys-browser.test.ts).
  '--host-resolver-rules=MAP localhost 127.0.0.1, MAP * ~NOTFOUND, EXCLUDE 127.0.0.1',
];

let launched: Promise<Browser> | undefined;

/**
 * One browser per test process: the page tests of a group (test/groups/browser-*.test.ts) share it, each in browser
 * contexts of its own (no cookie or storage passes between contexts), and it closes when the process's last file has
 * finished. Launching Chromium costs a process about a second and a half of CPU.
 */
function sharedBrowser(): Promise<Browser> {
  launched ??= chromium.launch({ executablePath: CHROMIUM, headless: true, args: LAUNCH_ARGS }).then((browser) => {
    teardownAtProcessEnd(() => browser.close());
    return browser;
  });
  return launched;
}

/**
 * Runs `tests` with the launched browser. SKIP_BROWSER_TESTS=1 skips them on purpose; a missing Chromium fails,
 * so that a machine without it cannot pass the page tests by accident.
 */
export async function withChromium(t: Test, tests: (browser: Browser) => Promise<void>): Promise<void> {
  if (process.env.SKIP_BROWSER_TESTS === '1') {
    t.test('the page tests', { skip: 'SKIP_BROWSER_TESTS=1: browser tests skipped' }, () => {});
    return;
  }
  if (!existsSync(CHROMIUM)) {
    t.fail(
      `${CHROMIUM} does not exist: install Debian's chromium package (apt-get install chromium), or set SKIP_BROWSER_TESTS=1 to skip the browser tests`,
    );
    return;
  }
  await tests(await sharedBrowser());
}

/**
 * Headless Chromium says so (HeadlessChrome, navigator.webdriver): the risk evaluation rightly asks it for a second
 * factor. Tests of the pages themselves turn that one reason off; test/e2e/browser/second-factor-browser.test.ts does not.
 */
export const HEADLESS_IS_FINE = { RISK_WEIGHTS: 'AUTOMATION=0' };
