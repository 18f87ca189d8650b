// The synthetic world the eval replays: a seeded random generator, the browsers people use (user agents, client
// hints, languages, in realistic proportions so that crowds share fingerprints), and the networks they use.
import type { DeviceSignals } from '../../src/domain/risk/signals.js';

/** mulberry32: small, fast, and the same sequence for the same seed on every machine. */
export class Random {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let z = this.state;
    z = Math.imul(z ^ (z >>> 15), z | 1);
    z ^= z + Math.imul(z ^ (z >>> 7), z | 61);
    return ((z ^ (z >>> 14)) >>> 0) / 4_294_967_296;
  }

  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)]!;
  }

  weighted<T>(items: ReadonlyArray<readonly [T, number]>): T {
    const total = items.reduce((sum, [, w]) => sum + w, 0);
    let x = this.next() * total;
    for (const [item, w] of items) {
      x -= w;
      if (x < 0) return item;
    }
    return items.at(-1)![0];
  }

  /** A 128-bit device cookie value, as the sign-in page would set it. */
  cookie(): string {
    const bytes = Buffer.alloc(16);
    for (let i = 0; i < 16; i += 1) bytes[i] = this.int(0, 255);
    return bytes.toString('base64url');
  }
}

/** A browser on a system: what it sends with every request. `version` moves when the browser updates. */
export interface BrowserProfile {
  name: string;
  mobile: boolean;
  userAgent(version: number): string;
  /** Chromium browsers send low-entropy client hints; others none. */
  hints(version: number): DeviceSignals['hints'];
  version: number;
}

const chromiumHints = (brand: string, platform: string, mobile: boolean) => (v: number) => ({
  brands: `"Chromium";v="${v}", "${brand}";v="${v}", "Not?A_Brand";v="99"`,
  mobile: mobile ? '?1' : '?0',
  platform: `"${platform}"`,
});
const noHints = () => ({});

export const BROWSERS = {
  chromeWindows: {
    name: 'Chrome on Windows',
    mobile: false,
    version: 130,
    userAgent: (v) => `Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/${v}.0.0.0 Safari/537.36`,
    hints: chromiumHints('Google Chrome', 'Windows', false),
  },
  edgeWindows: {
    name: 'Edge on Windows',
    mobile: false,
    version: 130,
    userAgent: (v) =>
      `Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/${v}.0.0.0 Safari/537.36 Edg/${v}.0.0.0`,
    hints: chromiumHints('Microsoft Edge', 'Windows', false),
  },
  chromeMac: {
    name: 'Chrome on macOS',
    mobile: false,
    version: 130,
    userAgent: (v) =>
      `Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/${v}.0.0.0 Safari/537.36`,
    hints: chromiumHints('Google Chrome', 'macOS', false),
  },
  safariMac: {
    name: 'Safari on macOS',
    mobile: false,
    version: 18,
    userAgent: (v) =>
      `Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/${v}.0 Safari/605.1.15`,
    hints: noHints,
  },
  firefoxWindows: {
    name: 'Firefox on Windows',
    mobile: false,
    version: 132,
    userAgent: (v) => `Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:${v}.0) Gecko/20100101 Firefox/${v}.0`,
    hints: noHints,
  },
  firefoxLinux: {
    name: 'Firefox on Linux',
    mobile: false,
    version: 132,
    userAgent: (v) => `Mozilla/5.0 (X11; Linux x86_64; rv:${v}.0) Gecko/20100101 Firefox/${v}.0`,
    hints: noHints,
  },
  safariIphone: {
    name: 'Safari on iOS',
    mobile: true,
    version: 18,
    userAgent: (v) =>
      `Mozilla/5.0 (iPhone; CPU iPhone OS ${v}_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/${v}.1 Mobile/15E148 Safari/604.1`,
    hints: noHints,
  },
  chromeAndroid: {
    name: 'Chrome on Android',
    mobile: true,
    version: 130,
    userAgent: (v) => `Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/${v}.0.0.0 Mobile Safari/537.36`,
    hints: chromiumHints('Google Chrome', 'Android', true),
  },
} satisfies Record<string, BrowserProfile>;
export type BrowserName = keyof typeof BROWSERS;

/** Desktop and mobile shares, roughly as web analytics report them: a few browsers make most of the crowd. */
export const DESKTOP_SHARE: ReadonlyArray<readonly [BrowserName, number]> = [
  ['chromeWindows', 45],
  ['edgeWindows', 12],
  ['chromeMac', 12],
  ['safariMac', 10],
  ['firefoxWindows', 8],
  ['firefoxLinux', 4],
];
export const MOBILE_SHARE: ReadonlyArray<readonly [BrowserName, number]> = [
  ['safariIphone', 55],
  ['chromeAndroid', 45],
];
export const LANGUAGES: ReadonlyArray<readonly [string, number]> = [
  ['en-US,en;q=0.9', 50],
  ['en-GB,en;q=0.9', 15],
  ['de-DE,de;q=0.9,en;q=0.8', 12],
  ['fr-FR,fr;q=0.9,en;q=0.8', 10],
  ['es-ES,es;q=0.9', 8],
  ['nl-NL,nl;q=0.9,en;q=0.8', 5],
];

/** One browser install on one machine: its profile, version, language, device cookie and page-script signals. */
export interface Device {
  browser: BrowserName;
  version: number;
  language: string;
  /** The device cookie the browser holds; undefined before it first loads a sign-in page. */
  cookie: string | undefined;
  client: DeviceSignals['client'];
}

export function newDevice(random: Random, browser: BrowserName, language: string): Device {
  const profile = BROWSERS[browser];
  return {
    browser,
    version: profile.version,
    language,
    cookie: undefined,
    client: profile.mobile
      ? { webdriver: false, timeZone: 'Europe/Amsterdam', hardwareConcurrency: 6, screen: '390x844', languages: language.split(',')[0] }
      : {
          webdriver: false,
          timeZone: 'Europe/Amsterdam',
          hardwareConcurrency: random.pick([4, 8, 12, 16]),
          screen: random.pick(['1920x1080', '2560x1440', '1440x900']),
          languages: language.split(',')[0],
        },
  };
}

/**
 * What the device sends from `ip`. The sign-in page sets a device cookie on the browser that has none before the
 * form is posted, so a browser always posts one: a fresh one the first time.
 */
export function deviceSignals(random: Random, device: Device, ip: string): DeviceSignals {
  device.cookie ??= random.cookie();
  const profile = BROWSERS[device.browser];
  return {
    ip,
    userAgent: profile.userAgent(device.version),
    acceptLanguage: device.language,
    hints: profile.hints(device.version),
    deviceCookie: device.cookie,
    client: device.client,
  };
}

/** Addresses in distinct /24 networks (IPv4) or /48 networks (IPv6), each from its own range of the eval. */
export class Networks {
  private next = 0;

  constructor(private readonly prefix: number) {}

  /** A /24 of its own: `${prefix}.x.y.0/24`, with its host addresses from `host(n)`. */
  ipv4(): (host: number) => string {
    const n = this.next++;
    const base = `${this.prefix}.${(n >> 8) & 255}.${n & 255}`;
    return (host) => `${base}.${1 + (host % 250)}`;
  }

  /** A /48 of its own: `2001:<prefix>:<n>::/48`. */
  ipv6(): (host: number) => string {
    const n = this.next++;
    return (host) => `2001:${(0x0d00 + this.prefix).toString(16)}:${n.toString(16)}:${(host % 65536).toString(16)}::1`;
  }
}
