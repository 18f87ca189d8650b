// What the bench and its floor server (floor-server.ts) agree on: the table, the tokens the read route finds, the
// password, and the sizes of the provider's answers that the floor's answers copy.

/** The floor's one table, created and dropped by the floor server in the bench's database. */
export const FLOOR_TABLE = 'bench_floor_rows';

/** Rows the read route finds, one per virtual user (concurrency up to this many). */
export const FLOOR_READ_TOKENS = 256;

/** A bearer token of the provider's length (43 characters, 256 bits in base64url) that the read route finds. */
export function floorReadToken(i: number): string {
  return `floor-read-${i}`.padEnd(43, '0');
}

export const FLOOR_PASSWORD = 'correct horse battery staple floor';

export interface FloorSizes {
  /** Characters of the provider's token response (the code exchange's JSON). */
  tokenBody: number;
  /** Characters of its ID token's payload, as JSON before base64url. */
  idTokenPayload: number;
  /** Characters of its userinfo response. */
  userinfoBody: number;
  /** Characters of the Location of its authorization response. */
  location: number;
}

export function parseFloorSizes(raw: string | undefined): FloorSizes {
  const value = JSON.parse(raw ?? 'null') as Partial<FloorSizes> | null;
  const sizes = {
    tokenBody: value?.tokenBody,
    idTokenPayload: value?.idTokenPayload,
    userinfoBody: value?.userinfoBody,
    location: value?.location,
  };
  for (const [name, n] of Object.entries(sizes)) {
    if (typeof n !== 'number' || !Number.isInteger(n) || n < 0 || n > 65_536)
      throw new Error(`FLOOR_SIZES.${name} must be a size in characters`);
  }
  return sizes as FloorSizes;
}
