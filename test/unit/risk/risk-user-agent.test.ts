// The user-agent reader of the risk evaluation: families and major versions, the short device label, and the
// strings that admit to automation (issue 5: "AUTOMATION (automation flag, headless user agent)").
import t from 'tap';
import { deviceLabel, parseUserAgent } from '../../../src/domain/risk/user-agent.js';
import { CHROME_MAC, CHROME_WINDOWS, FIREFOX_LINUX, HEADLESS_CHROME } from '../../helpers/device-signals.js';

const EDGE_WINDOWS =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36 Edg/130.0.2849.68';
const SAFARI_IPHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.6 Mobile/15E148 Safari/604.1';
const SAFARI_MAC = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.6 Safari/605.1.15';
const CHROME_ANDROID =
  'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Mobile Safari/537.36';
const CUBOT_PHONE =
  'Mozilla/5.0 (Linux; Android 13; CUBOT P80) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Mobile Safari/537.36';
const ROBOTO_LAPTOP =
  'Mozilla/5.0 (X11; Linux x86_64; Abbot Labs kiosk) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36';

t.test('a desktop Firefox on Linux is read as family, major version and system, and labelled "Firefox on Linux"', async (t) => {
  const info = parseUserAgent(FIREFOX_LINUX);
  t.same(info, { browser: 'Firefox', browserMajor: '128', os: 'Linux', osMajor: '', automation: false });
  t.equal(deviceLabel(info), 'Firefox on Linux');
});

t.test('Chromium relatives are told apart from Chrome, and Chrome from Safari (they all say "Safari")', async (t) => {
  t.equal(deviceLabel(parseUserAgent(CHROME_WINDOWS)), 'Chrome on Windows');
  t.equal(deviceLabel(parseUserAgent(CHROME_MAC)), 'Chrome on macOS');
  t.equal(deviceLabel(parseUserAgent(EDGE_WINDOWS)), 'Edge on Windows');
  t.equal(deviceLabel(parseUserAgent(SAFARI_IPHONE)), 'Safari on iOS');
  t.equal(deviceLabel(parseUserAgent(SAFARI_MAC)), 'Safari on macOS');
  t.equal(deviceLabel(parseUserAgent(CHROME_ANDROID)), 'Chrome on Android');
  t.equal(parseUserAgent(SAFARI_IPHONE).osMajor, '17');
});

t.test(
  'the label is short and says nothing more than browser and system families (issue 5: "a short Firefox on Linux label")',
  async (t) => {
    for (const ua of [FIREFOX_LINUX, CHROME_WINDOWS, EDGE_WINDOWS, SAFARI_IPHONE, CHROME_ANDROID, HEADLESS_CHROME, 'x'.repeat(5000)]) {
      const label = deviceLabel(parseUserAgent(ua));
      t.ok(label.length <= 40, `"${label}" is short`);
      t.notMatch(label, /\d/, `"${label}" carries no version`);
    }
  },
);

t.test('AUTOMATION fires for a headless Chromium user agent', async (t) => {
  t.equal(parseUserAgent(HEADLESS_CHROME).automation, true);
});

t.test('AUTOMATION fires for script clients and crawlers that say what they are', async (t) => {
  for (const ua of [
    'curl/8.5.0',
    'python-requests/2.32.3',
    'Go-http-client/1.1',
    'Wget/1.21.4',
    'axios/1.7.7',
    'Java/21.0.2',
    'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
  ]) {
    t.equal(parseUserAgent(ua).automation, true, ua);
  }
});

t.test('AUTOMATION fires for a request with no user agent at all', async (t) => {
  t.equal(parseUserAgent(undefined).automation, true);
  t.equal(parseUserAgent('').automation, true);
});

t.test('AUTOMATION does not fire for ordinary desktop and mobile browsers', async (t) => {
  for (const ua of [FIREFOX_LINUX, CHROME_WINDOWS, CHROME_MAC, EDGE_WINDOWS, SAFARI_IPHONE, SAFARI_MAC, CHROME_ANDROID]) {
    t.equal(parseUserAgent(ua).automation, false, ua);
  }
});

t.test('AUTOMATION does not fire for a phone or device whose model name merely ends in "bot" (a Cubot phone)', async (t) => {
  t.equal(parseUserAgent(CUBOT_PHONE).automation, false, CUBOT_PHONE);
  t.equal(parseUserAgent(ROBOTO_LAPTOP).automation, false, ROBOTO_LAPTOP);
});

t.test('an absurdly long user agent is read from its first 512 characters only', async (t) => {
  const info = parseUserAgent(`${'x'.repeat(600)} Firefox/128.0`);
  t.equal(info.browser, 'Unknown browser', 'what lies beyond 512 characters is not read');
});
