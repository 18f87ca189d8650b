// What a sign-in attempt tells about the device it comes from: the server-visible signals of the request and
// the optional client signals posted by the login page's script. Read by src/http/pages/device-signals.ts.

/** Signals posted by the first-party script; each is absent when the page ran without JavaScript. */
export interface ClientSignals {
  /** navigator.webdriver: the browser is driven by automation. */
  webdriver?: boolean;
  timeZone?: string;
  hardwareConcurrency?: number;
  screen?: string;
  languages?: string;
}

export interface DeviceSignals {
  /** The client address as the throttles see it. Used for the network key and CIDR rules; never stored. */
  ip: string;
  userAgent?: string;
  acceptLanguage?: string;
  /** User-Agent Client Hints (Sec-CH-UA, Sec-CH-UA-Mobile, Sec-CH-UA-Platform), when the browser sends them. */
  hints: { brands?: string; mobile?: string; platform?: string };
  /** The device cookie's value, when the browser has one. */
  deviceCookie?: string;
  client: ClientSignals;
}
