// TXT records, asked of the DNS servers DNS_RESOLVERS names (or the system's): how the provider reads the record that
// proves an organization's domain (issue 40). Not an HTTP request, so not the guarded fetch; bounded all the same:
// a server that does not answer is given up on after the lookup's budget (LOOKUP_TIMEOUT_MS), never waited on.
import { Resolver } from 'node:dns/promises';

/** What a TXT lookup found. */
export type TxtAnswer =
  /** The TXT records at the name, each one value: its character-strings joined (RFC 7208 3.3). */
  | { kind: 'records'; values: string[] }
  /** The name does not exist (NXDOMAIN) or holds no TXT record (NODATA). */
  | { kind: 'none' }
  /** No answer to go by (a timeout, a refusal, SERVFAIL): it says nothing of the record; ask again later. */
  | { kind: 'unavailable'; reason: string };

/** Looks up the TXT records at a name; never throws, never takes longer than its budget. */
export interface TxtLookup {
  txt(name: string): Promise<TxtAnswer>;
}

/** A lookup's budget, all servers and tries included. */
export const LOOKUP_TIMEOUT_MS = 3000;

/** c-ares's answers that say the record is not there, rather than that no answer came. */
const NO_RECORD = new Set(['ENOTFOUND', 'ENODATA', 'EBADNAME']);

/** TXT lookups against `servers` (node:dns setServers form; empty: the system's resolvers). */
export function dnsTxtLookup(servers: readonly string[], options: { timeoutMs?: number } = {}): TxtLookup {
  const budget = options.timeoutMs ?? LOOKUP_TIMEOUT_MS;
  return {
    async txt(name) {
      // A resolver of the lookup's own, so that giving up on it cancels this lookup only.
      const resolver = new Resolver({ timeout: Math.max(100, Math.floor(budget / 3)), tries: 2 });
      if (servers.length > 0) resolver.setServers([...servers]);
      const timer = setTimeout(() => resolver.cancel(), budget);
      try {
        // RFC 1035 3.3.14: TXT-DATA is "One or more <character-string>s"; RFC 7208 3.3: "If any record [...] has
        // multiple character-strings, they MUST be concatenated together without adding spaces."
        const records = await resolver.resolveTxt(name);
        return { kind: 'records', values: records.map((strings) => strings.join('')) };
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code ?? 'EUNKNOWN';
        if (NO_RECORD.has(code)) return { kind: 'none' };
        return { kind: 'unavailable', reason: code === 'ECANCELLED' ? 'ETIMEOUT' : code };
      } finally {
        clearTimeout(timer);
      }
    },
  };
}
