// Device signals for domain-level sign-in tests: a desktop Firefox unless told otherwise.
import type { DeviceSignals } from '../../src/domain/risk/signals.js';

export const FIREFOX_LINUX = 'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0';
export const CHROME_WINDOWS =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36';
export const CHROME_MAC =
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36';
export const HEADLESS_CHROME =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/130.0.0.0 Safari/537.36';

export function signals(overrides: Partial<DeviceSignals> = {}): DeviceSignals {
  return { ip: '192.0.2.1', userAgent: FIREFOX_LINUX, acceptLanguage: 'en-GB,en;q=0.9', hints: {}, client: {}, ...overrides };
}
