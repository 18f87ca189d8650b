// The traffic the eval replays, as actors: each a generator of sign-in attempts in time order that sees the
// outcome of its previous attempt. Benign people (known devices, a new laptop, a trip) and attackers
// (credential stuffing, brute force, automation, a copied device cookie).
import type { RiskAction } from '../../src/domain/risk/verdict.js';
import type { DeviceSignals } from '../../src/domain/risk/signals.js';
import {
  BROWSERS,
  DESKTOP_SHARE,
  LANGUAGES,
  MOBILE_SHARE,
  Networks,
  Random,
  deviceSignals,
  newDevice,
  type BrowserName,
  type Device,
} from './population.js';

export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;

/** How much traffic: `full` for npm run eval:risk, `small` for the test. */
export interface EvalScale {
  /** Benign people, each with a laptop, most with a phone, office workers with a work computer. */
  users: number;
  /** Measured days (Monday on); two unmeasured days before them enrol everyone's devices. */
  days: number;
  /** People who get a new laptop, and people who travel, during the measured days. */
  newLaptops: number;
  travellers: number;
  /** Usernames tried from one device, then from rotating networks. */
  stuffingOneDevice: number;
  stuffingRotating: number;
  bruteForceAttempts: number;
  /** Accounts tried by each automation attack. */
  automationAccounts: number;
  copiedCookies: number;
}

export const SCALES: Readonly<Record<'full' | 'small', EvalScale>> = {
  full: {
    users: 300,
    days: 7,
    newLaptops: 6,
    travellers: 4,
    stuffingOneDevice: 300,
    stuffingRotating: 200,
    bruteForceAttempts: 40,
    automationAccounts: 20,
    copiedCookies: 5,
  },
  small: {
    users: 40,
    days: 2,
    newLaptops: 2,
    travellers: 2,
    stuffingOneDevice: 40,
    stuffingRotating: 30,
    bruteForceAttempts: 16,
    automationAccounts: 5,
    copiedCookies: 2,
  },
};

export const SCENARIOS = {
  'warm-up': {
    benign: true,
    measured: false,
    about: 'every device of every person signs in once (enrolment), two days before the measured ones',
  },
  'known devices': {
    benign: true,
    measured: true,
    about:
      'people on their own laptops, phones and work computers: home, office, mobile networks; typos, browser updates, cleared cookies, home address changes',
  },
  'new laptop': { benign: true, measured: true, about: 'a person signs in on a new laptop, at home (the last of them at a café)' },
  travelling: {
    benign: true,
    measured: true,
    about: 'a person on a trip: known laptop and phone from hotel, airport and foreign mobile networks',
  },
  'stuffing, one device': {
    benign: false,
    measured: true,
    about:
      'a combo list tried from one machine and one address, a fresh session (device cookie) per attempt, headers of the most common browser',
  },
  'stuffing, rotating networks': {
    benign: false,
    measured: true,
    about: 'the same machine then rotates through residential proxy networks, one per attempt',
  },
  'brute force': {
    benign: false,
    measured: true,
    about: 'one account from a botnet: every attempt another network and browser; waits out the throttle; the right password comes late',
  },
  'headless browser': { benign: false, measured: true, about: 'HeadlessChrome checks valid credentials from a cloud network' },
  'automation flag': { benign: false, measured: true, about: 'an automated real Chrome (navigator.webdriver) with valid credentials' },
  'forged user agent': { benign: false, measured: true, about: 'a Safari user agent with Chromium client hints, valid credentials' },
  'copied device cookie': {
    benign: false,
    measured: true,
    about: 'a stolen device cookie and password replayed on another machine and network',
  },
} as const satisfies Record<string, { benign: boolean; measured: boolean; about: string }>;
export type ScenarioName = keyof typeof SCENARIOS;

export interface SyntheticUser {
  username: string;
  password: string;
  email: string;
}

export interface Step {
  scenario: ScenarioName;
  /** Virtual time, ms since the epoch. */
  at: number;
  login: string;
  password: string;
  /** The password is the user's: the attempt signs in unless the verdict stops it. */
  valid: boolean;
  /** Read when the attempt is made (a browser's cookie or address may change in between). */
  signals: () => DeviceSignals;
  /** A person answers a second-factor challenge; an attacker cannot. */
  passesSecondFactor: boolean;
}

export interface StepResult {
  kind: 'signed-in' | 'challenge' | 'wrong-credentials' | 'throttled';
  action: RiskAction | null;
  signedIn: boolean;
  retryAfterSeconds?: number;
}

export type Actor = Generator<Step, void, StepResult>;

export interface World {
  seed: number;
  scale: EvalScale;
  /** Monday 00:00 of the first measured day. */
  start: number;
  users: SyntheticUser[];
  /** Has a known laptop and no measured traffic: the brute force's target. */
  victim: SyntheticUser;
}

export function syntheticUsers(random: Random, count: number): SyntheticUser[] {
  return Array.from({ length: count }, (_, i) => {
    const username = `user${String(i + 1).padStart(4, '0')}`;
    return { username, password: `pw-${random.cookie()}`, email: `${username}@example.org` };
  });
}

/** A typo: the password with one character changed. */
function typo(random: Random, password: string): string {
  const at = random.int(0, password.length - 1);
  return `${password.slice(0, at)}${password[at] === 'x' ? 'y' : 'x'}${password.slice(at + 1)}`;
}

interface Person {
  user: SyntheticUser;
  random: Random;
  homeNetwork: (host: number) => string;
  homeHost: number;
  officeWorker: boolean;
  carrier: number;
  laptop: Device;
  phone: Device | undefined;
  work: Device | undefined;
}

interface Session {
  scenario: ScenarioName;
  at: number;
  device: Device;
  /** The address, read when the session starts (the home network may have moved by then). */
  ip: () => string;
  /** Applied just before the session: a browser update, cleared cookies, a new home address. */
  before?: () => void;
}

/** The shared networks: one office, three mobile carriers (each a pool of CGNAT networks), homes, hotels, attackers. */
interface Places {
  office: (host: number) => string;
  carriers: Array<Array<(host: number) => string>>;
  homes: Networks;
  elsewhere: Networks;
  attackers: Networks;
}

function places(): Places {
  const shared = new Networks(100);
  return {
    office: shared.ipv4(),
    carriers: [0, 1, 2].map(() => Array.from({ length: 6 }, () => shared.ipv4())),
    homes: new Networks(10),
    elsewhere: new Networks(20),
    attackers: new Networks(66),
  };
}

function person(random: Random, user: SyntheticUser, where: Places, index: number): Person {
  const language = random.weighted(LANGUAGES);
  const officeWorker = random.chance(0.5);
  return {
    user,
    random,
    // A quarter of homes have IPv6.
    homeNetwork: random.chance(0.25) ? where.homes.ipv6() : where.homes.ipv4(),
    homeHost: random.int(2, 200),
    officeWorker,
    carrier: index % 3,
    laptop: newDevice(random, random.weighted(DESKTOP_SHARE), language),
    phone: random.chance(0.8) ? newDevice(random, random.weighted(MOBILE_SHARE), language) : undefined,
    // Work computers are managed: Chrome or Edge on Windows, in US English.
    work: officeWorker ? newDevice(random, random.chance(0.7) ? 'chromeWindows' : 'edgeWindows', 'en-US,en;q=0.9') : undefined,
  };
}

/** One person's sessions, enrolment and measured days; the newcomers and travellers get theirs on top. */
function sessions(w: World, p: Person, where: Places, role: 'plain' | 'new laptop' | 'new laptop at a café' | 'traveller'): Session[] {
  const r = p.random;
  const home = () => p.homeNetwork(p.homeHost);
  const out: Session[] = [];
  // Enrolment: each device once, from where it is usually used.
  const enrolAt = w.start - 2 * DAY;
  out.push({ scenario: 'warm-up', at: enrolAt + r.int(0, 12 * 60) * MINUTE, device: p.laptop, ip: home });
  if (p.phone) out.push({ scenario: 'warm-up', at: enrolAt + r.int(13 * 60, 20 * 60) * MINUTE, device: p.phone, ip: home });
  if (p.work)
    out.push({
      scenario: 'warm-up',
      at: enrolAt + DAY + r.int(8 * 60, 10 * 60) * MINUTE,
      device: p.work,
      ip: () => where.office(p.homeHost),
    });

  const travel = role === 'traveller' ? { from: 1, to: 4 } : { from: -1, to: -1 };
  const hotel = [where.elsewhere.ipv4(), where.elsewhere.ipv4()];
  const abroadCarrier = where.elsewhere.ipv4();
  for (let d = 0; d < w.scale.days; d += 1) {
    const day = w.start + d * DAY;
    const weekday = d % 7 < 5;
    const away = d >= travel.from && d <= travel.to;
    // An ISP sometimes hands a home a new network.
    const moves = r.chance(0.03);
    const daySessions: Session[] = [];
    if (away) {
      const room = hotel[d <= 2 ? 0 : 1]!;
      if (d === travel.from)
        daySessions.push({
          scenario: 'travelling',
          at: day + 7 * HOUR + r.int(0, 60) * MINUTE,
          device: p.phone ?? p.laptop,
          ip: () => where.elsewhere.ipv4()(3),
        });
      daySessions.push({
        scenario: 'travelling',
        at: day + 20 * HOUR + r.int(0, 120) * MINUTE,
        device: p.laptop,
        ip: () => room(p.homeHost),
      });
      if (p.phone)
        daySessions.push({
          scenario: 'travelling',
          at: day + 12 * HOUR + r.int(0, 120) * MINUTE,
          device: p.phone,
          ip: () => abroadCarrier(r.int(0, 250)),
        });
    } else {
      if (p.work && weekday)
        daySessions.push({
          scenario: 'known devices',
          at: day + 8 * HOUR + r.int(0, 120) * MINUTE,
          device: p.work,
          ip: () => where.office(p.homeHost),
        });
      if (r.chance(0.6))
        daySessions.push({ scenario: 'known devices', at: day + 18 * HOUR + r.int(0, 240) * MINUTE, device: p.laptop, ip: home });
      if (p.phone && r.chance(0.5)) {
        const at = day + 7 * HOUR + r.int(0, 16 * 60) * MINUTE;
        const hour = new Date(at).getUTCHours();
        const onWifi = (hour < 9 || hour >= 18) && r.chance(0.4);
        const pool = where.carriers[p.carrier]!;
        daySessions.push({
          scenario: 'known devices',
          at,
          device: p.phone,
          ip: onWifi ? home : () => pool[r.int(0, pool.length - 1)]!(r.int(0, 250)),
        });
      }
    }
    if (moves && daySessions.length > 0) {
      const first = daySessions.sort((a, b) => a.at - b.at)[0]!;
      first.before = () => {
        p.homeNetwork = where.homes.ipv4();
      };
    }
    out.push(...daySessions);
  }
  if (role === 'new laptop' || role === 'new laptop at a café') {
    const laptop = newDevice(r, p.laptop.browser === 'safariMac' ? 'chromeMac' : 'safariMac', p.laptop.language);
    const cafe = where.elsewhere.ipv4();
    const at = w.start + Math.min(2, w.scale.days - 1) * DAY + 19 * HOUR;
    out.push({ scenario: 'new laptop', at, device: laptop, ip: role === 'new laptop' ? home : () => cafe(7) });
    // From then on the new laptop is the laptop.
    for (const s of out) if (s.device === p.laptop && s.at > at) s.device = laptop;
  }
  // Browsers update themselves; people sometimes clear their cookies or use a private window.
  for (const device of [p.laptop, p.phone, p.work]) {
    if (!device || !r.chance(0.4)) continue;
    const update = w.start + r.int(0, w.scale.days * 24 * 60) * MINUTE;
    const next = out.filter((s) => s.device === device && s.at >= update).sort((a, b) => a.at - b.at)[0];
    if (next) chain(next, () => (device.version += 1));
  }
  for (const s of out) if (s.scenario !== 'warm-up' && r.chance(0.015)) chain(s, () => (s.device.cookie = undefined));
  return out.sort((a, b) => a.at - b.at);
}

function chain(s: Session, then: () => void): void {
  const before = s.before;
  s.before = () => {
    before?.();
    then();
  };
}

/**
 * A person's attempts: per session a typo or two now and then, then the right password; a throttled attempt is
 * tried again when the page says, a challenge is answered.
 */
function* personActor(p: Person, plan: Session[]): Actor {
  const r = p.random;
  for (const s of plan) {
    let ip: string | undefined;
    const signals = () => {
      if (ip === undefined) {
        s.before?.();
        ip = s.ip();
      }
      return deviceSignals(r, s.device, ip);
    };
    const roll = r.next();
    const typos = roll < 0.04 ? 1 : roll < 0.047 ? r.int(2, 3) : 0;
    let at = s.at - typos * 12_000;
    // Some people sign in with their email; within a session they type the same login each time.
    const login = r.chance(0.2) ? p.user.email : p.user.username;
    const step = (password: string, valid: boolean): Step => ({
      scenario: s.scenario,
      at,
      login,
      password,
      valid,
      signals,
      passesSecondFactor: true,
    });
    for (let i = 0; i < typos; i += 1) {
      yield step(typo(r, p.user.password), false);
      at += r.int(5, 15) * 1000;
    }
    for (let tries = 0; tries < 3; tries += 1) {
      const result = yield step(p.user.password, true);
      if (result.kind !== 'throttled') break;
      at += (result.retryAfterSeconds ?? 1) * 1000;
    }
  }
}

const LEAKED_NAMES = ['jsmith', 'mmueller', 'anna.k', 'pierre', 'lucia', 'tom', 'sara', 'admin', 'info', 'dvries', 'k.nowak', 'li.wei'];

/** A combo list: mostly usernames not here, some of ours with an old password, a few with the password they reuse. */
function comboList(random: Random, users: SyntheticUser[], size: number): Array<{ login: string; password: string; valid: boolean }> {
  return Array.from({ length: size }, (_, i) => {
    const roll = random.next();
    if (roll < 0.05) {
      const user = random.pick(users);
      return { login: user.username, password: user.password, valid: true };
    }
    if (roll < 0.3) return { login: random.pick(users).email, password: `Summer${random.int(2015, 2025)}!`, valid: false };
    return {
      login: `${random.pick(LEAKED_NAMES)}${random.int(1, 9999)}.${i}@mail.example`,
      password: `Passw0rd${random.int(1, 99)}`,
      valid: false,
    };
  });
}

/** One machine: the headers of Chrome 130 on Windows in US English, the most common browser of the people here. */
function* stuffing(w: World, random: Random, where: Places): Actor {
  const machine = newDevice(random, 'chromeWindows', 'en-US,en;q=0.9');
  machine.client = {};
  const address = where.attackers.ipv4();
  const combos = comboList(random, w.users, w.scale.stuffingOneDevice + w.scale.stuffingRotating);
  // In the morning rush, when the office's managed Chrome on Windows computers sign in: the worst time to share a fingerprint.
  let at = w.start + 1 * DAY + 8 * HOUR + 30 * MINUTE;
  for (const [i, combo] of combos.entries()) {
    const rotating = i >= w.scale.stuffingOneDevice;
    const ip = rotating ? where.attackers.ipv4()(random.int(0, 250)) : address(9);
    const signals = () => {
      // A fresh session per attempt: the login page hands out a new device cookie each time.
      machine.cookie = undefined;
      return deviceSignals(random, machine, ip);
    };
    yield { scenario: rotating ? 'stuffing, rotating networks' : 'stuffing, one device', at, ...combo, signals, passesSecondFactor: false };
    at += rotating ? 3000 : 2000;
  }
}

function* bruteForce(w: World, random: Random, where: Places): Actor {
  const n = w.scale.bruteForceAttempts;
  const rightAt = n - 3;
  let at = w.start + Math.min(3, w.scale.days - 1) * DAY + 2 * HOUR;
  for (let i = 1; i <= n; i += 1) {
    const bot = newDevice(random, random.weighted(DESKTOP_SHARE), random.weighted(LANGUAGES));
    bot.client = {};
    const valid = i === rightAt;
    const result = yield {
      scenario: 'brute force',
      at,
      login: w.victim.username,
      password: valid ? w.victim.password : `guess-${i}-${random.int(0, 1e6)}`,
      valid,
      signals: () => deviceSignals(random, bot, where.attackers.ipv4()(random.int(0, 250))),
      passesSecondFactor: false,
    };
    at += result.kind === 'throttled' ? (result.retryAfterSeconds ?? 1) * 1000 : 20_000;
  }
}

const HEADLESS_UA = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/130.0.0.0 Safari/537.36';

/** Valid credentials of some people, tried by a program; `kind` says what gives it away. */
function* automation(
  w: World,
  random: Random,
  where: Places,
  scenario: 'headless browser' | 'automation flag' | 'forged user agent',
  day: number,
): Actor {
  const address = where.attackers.ipv4();
  let at = w.start + Math.min(day, w.scale.days - 1) * DAY + 11 * HOUR;
  for (let i = 0; i < w.scale.automationAccounts; i += 1) {
    const user = w.users[(i * 7 + day) % w.users.length]!;
    const device = newDevice(random, 'chromeWindows', 'en-US,en;q=0.9');
    const signals = () => {
      const plain = deviceSignals(random, device, address(20));
      if (scenario === 'headless browser') {
        return {
          ...plain,
          userAgent: HEADLESS_UA,
          hints: { brands: '"Chromium";v="130", "HeadlessChrome";v="130"', mobile: '?0', platform: '"Linux"' },
        };
      }
      if (scenario === 'automation flag') return { ...plain, client: { ...plain.client, webdriver: true } };
      return { ...plain, userAgent: BROWSERS.safariMac.userAgent(18) };
    };
    yield { scenario, at, login: user.username, password: user.password, valid: true, signals, passesSecondFactor: false };
    at += 5000;
  }
}

/** Another browser and system than the victim's: what a stolen cookie looks like on the thief's machine. */
function thiefBrowser(victim: BrowserName): BrowserName {
  const family = (b: BrowserName) => BROWSERS[b].name.split(' on ');
  const [browser, os] = family(victim);
  return (['chromeWindows', 'firefoxLinux', 'chromeMac'] as const).find((b) => family(b)[0] !== browser && family(b)[1] !== os)!;
}

function* copiedCookie(w: World, random: Random, where: Places, victims: Person[]): Actor {
  let at = w.start + Math.min(5, w.scale.days - 1) * DAY + 3 * HOUR;
  const address = where.attackers.ipv4();
  for (const victim of victims) {
    const machine = newDevice(random, thiefBrowser(victim.laptop.browser), victim.laptop.language);
    const signals = () => {
      // The cookie as it is at the time of the theft (an infostealer copies the browser's cookie store).
      machine.cookie = victim.laptop.cookie;
      return deviceSignals(random, machine, address(30));
    };
    yield {
      scenario: 'copied device cookie',
      at,
      login: victim.user.username,
      password: victim.user.password,
      valid: true,
      signals,
      passesSecondFactor: false,
    };
    at += 10 * MINUTE;
  }
}

/** Every actor of the world, each with a random generator of its own derived from the seed. */
export function buildActors(w: World): Actor[] {
  const where = places();
  const rng = (n: number) => new Random(w.seed * 1000 + n);
  const people = w.users.map((user, i) => person(rng(i), user, where, i));
  const victim = person(rng(w.users.length), w.victim, where, 0);
  const actors: Actor[] = [];
  people.forEach((p, i) => {
    const s = w.scale;
    const role =
      i < s.newLaptops - 1
        ? 'new laptop'
        : i === s.newLaptops - 1
          ? 'new laptop at a café'
          : i < s.newLaptops + s.travellers
            ? 'traveller'
            : 'plain';
    actors.push(personActor(p, sessions(w, p, where, role)));
  });
  actors.push(
    personActor(
      victim,
      sessions(w, victim, where, 'plain').filter((s) => s.scenario === 'warm-up' && s.device === victim.laptop),
    ),
  );
  // Copied cookies are taken from people with no other role, whose laptops stay theirs.
  const ordinary = people.slice(w.scale.newLaptops + w.scale.travellers);
  const base = w.users.length + 1;
  actors.push(stuffing(w, rng(base), where));
  actors.push(bruteForce(w, rng(base + 1), where));
  actors.push(automation(w, rng(base + 2), where, 'headless browser', 4));
  actors.push(automation(w, rng(base + 3), where, 'automation flag', 4));
  actors.push(automation(w, rng(base + 4), where, 'forged user agent', 5));
  actors.push(copiedCookie(w, rng(base + 5), where, ordinary.slice(0, w.scale.copiedCookies)));
  return actors;
}
