// A small user-agent reader: browser and OS family with their major versions, and whether the string
// admits to automation. Enough to label a device ("Firefox 128 on Linux") and to compare two sightings;
// not a full parser (we need families, not every vendor build).

export interface UserAgentInfo {
  browser: string;
  browserMajor: string;
  os: string;
  osMajor: string;
  /** The string names a headless browser, a driver or a script client. */
  automation: boolean;
}

// Order matters: Edge and Opera also say "Chrome", Chrome also says "Safari".
const BROWSERS: ReadonlyArray<[string, RegExp]> = [
  ['Edge', /\bEdg(?:e|A|iOS)?\/(\d+)/],
  ['Opera', /\bOPR\/(\d+)/],
  ['Samsung Internet', /\bSamsungBrowser\/(\d+)/],
  ['Headless Chrome', /\bHeadlessChrome\/(\d+)/],
  ['Chrome', /\b(?:Chrome|CriOS)\/(\d+)/],
  ['Firefox', /\b(?:Firefox|FxiOS)\/(\d+)/],
  ['Safari', /\bVersion\/(\d+)[.\d]* (?:Mobile\/\S+ )?Safari\//],
  ['curl', /^curl\/(\d+)/],
];

const OSES: ReadonlyArray<[string, RegExp]> = [
  ['iOS', /\b(?:iPhone|iPad|iPod).*? OS (\d+)/],
  ['Android', /\bAndroid (\d+)/],
  ['Windows', /\bWindows NT (\d+)/],
  ['macOS', /\bMac OS X (\d+)/],
  ['ChromeOS', /\bCrOS \S+ (\d+)/],
  ['Linux', /\bLinux\b()/],
];

// A crawler names itself "Googlebot/2.1", "bingbot/2.0", "Slackbot-LinkExpanding" or "(...; bot)"; a bare "bot" at the end of a
// word would also catch phones ("CUBOT P80") and ordinary words.
const AUTOMATION =
  /HeadlessChrome|PhantomJS|Electron\/|Puppeteer|Playwright|Selenium|WebDriver|python-requests|python-urllib|aiohttp|Go-http-client|okhttp|libwww-perl|Wget|^curl\/|node-fetch|axios\/|undici|Java\/|\bbot\b|bot[/-]|spider|crawler/i;

export function parseUserAgent(ua: string | undefined): UserAgentInfo {
  const text = (ua ?? '').slice(0, 512);
  const browser = BROWSERS.find(([, re]) => re.test(text));
  const os = OSES.find(([, re]) => re.test(text));
  return {
    browser: browser ? browser[0] : 'Unknown browser',
    browserMajor: browser ? (browser[1].exec(text)?.[1] ?? '') : '',
    os: os ? os[0] : 'an unknown system',
    osMajor: os ? (os[1].exec(text)?.[1] ?? '') : '',
    automation: text === '' || AUTOMATION.test(text),
  };
}

/** The short display name kept with a device record: "Firefox on Linux". */
export function deviceLabel(info: UserAgentInfo): string {
  return `${info.browser} on ${info.os}`;
}
