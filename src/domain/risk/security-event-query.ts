// GET /sso/security-events: the query's parameters checked and turned into a filter, and one page of events,
// newest first, with an opaque cursor to the next page.
import { InvalidRequest } from '../../errors/oauth-error.js';
import { findSecurityEvents, type EventFilter, type EventPosition } from '../../storage/security-events.js';
import type { ProviderContext } from '../context.js';
import { single, type RawParams } from '../params.js';

export const DEFAULT_EVENTS_LIMIT = 50;
export const MAX_EVENTS_LIMIT = 200;

export interface SecurityEventView {
  id: string;
  type: string;
  created_at: string;
  /** The user's `sub`. */
  user_id: string | null;
  username: string | null;
  device_id: string | null;
  client_id: string | null;
  /** The verdict (action, score, reasons), the device's label, the amr: never a secret, address or user agent. */
  details: Record<string, unknown>;
}

export interface SecurityEventPage {
  events: SecurityEventView[];
  /** Pass as `cursor` for the next (older) page; null on the last page. */
  next_cursor: string | null;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const EVENT_TYPE = /^[a-z][a-z0-9_]{0,63}$/;
// RFC 3339 5.6 date-time: full-date "T" full-time, with "Z" or a numeric offset ("t" and "z" are allowed too).
const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?([Zz]|[+-]\d{2}:\d{2})$/;

/** RFC 3339 date-time, every field in range; undefined otherwise. */
export function parseRfc3339(value: string): Date | undefined {
  const m = RFC3339.exec(value);
  if (!m) return undefined;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  // RFC 3339 5.7 allows a leap second (60); JavaScript has none, so it reads as the next second.
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth || hour > 23 || minute > 59 || second > 60) return undefined;
  const offset = m[8]!.toUpperCase();
  if (offset !== 'Z' && (Number(offset.slice(1, 3)) > 23 || Number(offset.slice(4, 6)) > 59)) return undefined;
  const ms = Date.parse(
    `${m.slice(1, 4).join('-')}T${m.slice(4, 6).join(':')}:${second === 60 ? '59' : m[6]}${(m[7] ?? '').slice(0, 4)}${offset}`,
  );
  if (Number.isNaN(ms)) return undefined;
  return new Date(second === 60 ? ms + 1000 : ms);
}

export function encodeCursor(position: EventPosition): string {
  return Buffer.from(`${position.micros}.${position.id}`).toString('base64url');
}

export function decodeCursor(cursor: string): EventPosition | undefined {
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(cursor)) return undefined;
  const m = /^(\d{1,18})\.(\d{1,18})$/.exec(Buffer.from(cursor, 'base64url').toString('latin1'));
  return m ? { micros: m[1]!, id: m[2]! } : undefined;
}

/** The query parameters as a filter; every malformed one is invalid_request, naming it. */
export function parseEventQuery(params: RawParams): EventFilter {
  const filter: EventFilter = { limit: DEFAULT_EVENTS_LIMIT };
  const user = single(params, 'user');
  if (user !== undefined) {
    if (user.length > 256) throw new InvalidRequest('parameter user is too long');
    if (UUID.test(user)) filter.userId = user.toLowerCase();
    else filter.username = user;
  }
  const type = single(params, 'type');
  if (type !== undefined) {
    if (!EVENT_TYPE.test(type)) throw new InvalidRequest('parameter type must be an event type such as sign_in_blocked');
    filter.type = type;
  }
  for (const name of ['since', 'until'] as const) {
    // An unencoded "+" in an offset arrives as a space (form decoding): read it back as "+".
    const raw = single(params, name)?.replace(/ (\d{2}:\d{2})$/, '+$1');
    if (raw === undefined) continue;
    const date = parseRfc3339(raw);
    if (!date) throw new InvalidRequest(`parameter ${name} must be an RFC 3339 date-time such as 2026-01-31T09:00:00Z`);
    filter[name] = date;
  }
  if (filter.since && filter.until && filter.since >= filter.until) throw new InvalidRequest('parameter since must be before until');
  const limit = single(params, 'limit');
  if (limit !== undefined) {
    const n = Number(limit);
    if (!/^\d{1,4}$/.test(limit) || n < 1 || n > MAX_EVENTS_LIMIT)
      throw new InvalidRequest(`parameter limit must be a whole number from 1 to ${MAX_EVENTS_LIMIT}`);
    filter.limit = n;
  }
  const cursor = single(params, 'cursor');
  if (cursor !== undefined) {
    const after = decodeCursor(cursor);
    if (!after) throw new InvalidRequest('parameter cursor is not a cursor this endpoint returned');
    filter.after = after;
  }
  return filter;
}

/** One page of events; one more row is read than shown, to know whether there is a next page. */
export async function listSecurityEvents(ctx: ProviderContext, filter: EventFilter): Promise<SecurityEventPage> {
  const rows = await findSecurityEvents(ctx.db, { ...filter, limit: filter.limit + 1 });
  const page = rows.slice(0, filter.limit);
  const last = page.at(-1);
  return {
    events: page.map((e) => ({
      id: e.id,
      type: e.type,
      created_at: e.created_at.toISOString(),
      user_id: e.user_id,
      username: e.username,
      device_id: e.device_id,
      client_id: e.client_id,
      details: e.details,
    })),
    next_cursor: rows.length > filter.limit && last ? encodeCursor(last.position) : null,
  };
}
