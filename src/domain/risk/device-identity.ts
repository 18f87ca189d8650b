// A sign-in's device as the provider keeps it: pseudonymous keys instead of the cookie, the user agent and
// the address. The keys are HMACs under the server's device secret, so a leaked table cannot be matched
// against user agents or addresses without it.
import { createHmac } from 'node:crypto';
import { networkPrefix } from '../../net/ip-prefix.js';
import { sha256 } from '../secrets.js';
import type { DeviceSignals } from './signals.js';
import { deviceLabel, parseUserAgent, type UserAgentInfo } from './user-agent.js';

/** Plain JSON: a pending second factor stores it and finishes the sign-in with it later. */
export interface DeviceIdentity {
  /** SHA-256 of the device cookie, when the browser sent one. */
  cookieHash: string | null;
  /** `coarse.fine`: HMAC of the families (browser, OS, platform), then HMAC of the versions, hints and language. */
  fingerprint: string;
  /** HMAC of the client's /24 (IPv4) or /48 (IPv6) network. */
  networkKey: string;
  /** What counters group attempts by: the cookie when there is one, else fingerprint and network together. */
  deviceKey: string;
  /** "Firefox on Linux". */
  label: string;
  /** The user agent or the page's script says the browser is automated. */
  automation: boolean;
  /** The client hints contradict the user agent (a forged user agent). */
  hintsMismatch: boolean;
}

export function deviceIdentity(signals: DeviceSignals, secret: Buffer): DeviceIdentity {
  const ua = parseUserAgent(signals.userAgent);
  const mac = (...parts: string[]) => createHmac('sha256', secret).update(parts.join('\u0000')).digest('base64url').slice(0, 27);
  const platform = normalisedPlatform(signals.hints.platform);
  const coarse = mac('coarse', ua.browser, ua.os, platform);
  const fine = mac(
    'fine',
    ua.browserMajor,
    ua.osMajor,
    signals.hints.brands ?? '',
    signals.hints.mobile ?? '',
    primaryLanguage(signals.acceptLanguage),
  );
  const fingerprint = `${coarse}.${fine}`;
  const networkKey = mac('network', networkPrefix(signals.ip, 24, 3));
  const cookieHash = signals.deviceCookie ? sha256(signals.deviceCookie) : null;
  return {
    cookieHash,
    fingerprint,
    networkKey,
    deviceKey: cookieHash ? `c:${cookieHash}` : `f:${mac('device', fingerprint, networkKey)}`,
    label: deviceLabel(ua),
    automation: ua.automation || signals.client.webdriver === true,
    hintsMismatch: hintsContradict(ua, signals.hints),
  };
}

/** The part of two fingerprints that a browser update does not change. */
export function coarseFingerprint(fingerprint: string): string {
  return fingerprint.split('.')[0] ?? '';
}

/** "en-GB,en;q=0.9" → "en-gb". */
function primaryLanguage(header: string | undefined): string {
  return (header ?? '').split(',')[0]!.split(';')[0]!.trim().toLowerCase().slice(0, 35);
}

function normalisedPlatform(platform: string | undefined): string {
  return (platform ?? '').replace(/"/g, '').trim().toLowerCase();
}

const PLATFORM_OF_OS: Record<string, string> = {
  Windows: 'windows',
  macOS: 'macos',
  Linux: 'linux',
  Android: 'android',
  iOS: 'ios',
  ChromeOS: 'chrome os',
};

/**
 * Client hints are sent by Chromium browsers only, and agree with their user agent. A hint that names another
 * platform, says mobile on a desktop agent, or comes with an agent that is not Chromium-based gives a forged
 * user agent away. Without hints nothing is concluded.
 */
function hintsContradict(ua: UserAgentInfo, hints: DeviceSignals['hints']): boolean {
  const platform = normalisedPlatform(hints.platform);
  if (!platform && hints.mobile === undefined && !hints.brands) return false;
  if (ua.browser === 'Firefox' || ua.browser === 'Safari') return true;
  const expected = PLATFORM_OF_OS[ua.os];
  if (platform && expected && platform !== expected) return true;
  const mobileAgent = ua.os === 'Android' || ua.os === 'iOS';
  if (hints.mobile === '?1' && !mobileAgent) return true;
  if (hints.mobile === '?0' && ua.os === 'iOS') return true;
  return false;
}
