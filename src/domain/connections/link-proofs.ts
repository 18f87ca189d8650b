// A link proof: after an upstream sign-in whose address an account here already has, the person proves that account
// is theirs (its password or passkey) before the two are linked. The proof is a random value in the page's URL,
// bound to the browser that came back from the upstream, single use and short-lived.
import {
  consumeLinkProof,
  findLiveLinkProof,
  insertLinkProof,
  type LiveLinkProof,
  type NewLinkProof,
} from '../../storage/upstream-logins.js';
import { addSeconds } from '../clock.js';
import type { ProviderContext } from '../context.js';
import { randomToken, safeEqual, sha256 } from '../secrets.js';

export type { LiveLinkProof };

/** How long the person has to prove the account. */
export const LINK_PROOF_SECONDS = 600;

/** A new proof for `browserSecret`'s browser; returns its value, which only that browser's URL carries. */
export async function issueLinkProof(
  ctx: Pick<ProviderContext, 'db' | 'clock'>,
  browserSecret: string,
  p: Omit<NewLinkProof, 'idHash' | 'browserHash' | 'expiresAt'>,
): Promise<string> {
  const proof = randomToken();
  await insertLinkProof(ctx.db, {
    ...p,
    idHash: sha256(proof),
    browserHash: sha256(browserSecret),
    expiresAt: addSeconds(ctx.clock(), LINK_PROOF_SECONDS),
  });
  return proof;
}

/** The live proof, when it is this browser's (neither used, expired, nor another browser's); undefined otherwise. */
export async function liveLinkProof(
  ctx: Pick<ProviderContext, 'db' | 'clock'>,
  proof: string,
  browserSecret: string | undefined,
): Promise<LiveLinkProof | undefined> {
  const found = await findLiveLinkProof(ctx.db, sha256(proof), ctx.clock());
  if (!found || !browserSecret || !safeEqual(found.browserHash, sha256(browserSecret))) return undefined;
  return found;
}

/** Uses the proof once; false when another request used it first (or it expired meanwhile). */
export function useLinkProof(ctx: Pick<ProviderContext, 'db' | 'clock'>, proof: string): Promise<boolean> {
  return consumeLinkProof(ctx.db, sha256(proof), ctx.clock());
}
