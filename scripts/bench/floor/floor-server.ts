// The stack's own floor (issue 21), as a server of its own: Fastify with the same body and cookie parsers, the
// provider's database pool (named prepared statements, src/storage/hot-path/preparing-client.ts), the same signature
// call as an ID token (jose's CompactSign, src/domain/tokens/id-token.ts) and the same password verification
// (src/domain/accounts/passwords.ts), and nothing of the provider's own logic. Each route answers with the size the
// bench measured on the provider's matching endpoint (FLOOR_SIZES), so that HTTP costs the same on both.
//
// Routes: POST /floor/http (form parsed, JSON answered), GET /floor/read (+ one primary-key SELECT),
// GET /floor/write (+ one INSERT ... RETURNING, answered with a redirect), POST /floor/token (+ one INSERT ... RETURNING
// and one signature), POST /floor/password (+ one argon2id verification), POST /floor/signatures (CPU per signature).
// Started by scripts/bench/floor/floor.ts with the server's environment; it creates its one table and drops it on exit.
import { createHash, randomBytes } from 'node:crypto';
import cookie from '@fastify/cookie';
import formbody from '@fastify/formbody';
import Fastify from 'fastify';
import { CompactSign, generateKeyPair } from 'jose';
import { CompiledQuery } from 'kysely';
import pino from 'pino';
import { loadConfig } from '../../../src/config.js';
import { PasswordHasher } from '../../../src/domain/accounts/passwords.js';
import { openDatabase } from '../../../src/storage/database.js';
import { floorReadToken, FLOOR_PASSWORD, FLOOR_READ_TOKENS, FLOOR_TABLE, parseFloorSizes } from './floor-shared.js';

const config = loadConfig(process.env);
const sizes = parseFloorSizes(process.env.FLOOR_SIZES);
const database = await openDatabase({ url: config.databaseUrl, dataDir: config.dataDir, poolMax: config.databasePoolMax });
const { db } = database;
const run = (text: string, parameters: unknown[]) => db.executeQuery<Record<string, unknown>>(CompiledQuery.raw(text, parameters));

await run(`CREATE TABLE IF NOT EXISTS ${FLOOR_TABLE} (key text PRIMARY KEY, value text NOT NULL, created_at timestamptz NOT NULL)`, []);
const digest = (value: string) => createHash('sha256').update(value).digest('base64url');
for (let i = 0; i < FLOOR_READ_TOKENS; i += 1) {
  await run(`INSERT INTO ${FLOOR_TABLE} (key, value, created_at) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING`, [
    digest(floorReadToken(i)),
    'floor',
    new Date(),
  ]);
}
const INSERT = `INSERT INTO ${FLOOR_TABLE} (key, value, created_at) VALUES ($1, $2, $3) RETURNING created_at`;
const SELECT = `SELECT key, value, created_at FROM ${FLOOR_TABLE} WHERE key = $1`;

const rsa = await generateKeyPair('RS256');
const ec = await generateKeyPair('ES256');
const hasher = new PasswordHasher(config.argon2, { limits: config.passwordWork });
const passwordHash = await hasher.hash(FLOOR_PASSWORD);
const utf8 = new TextEncoder();

/** A JSON payload of `bytes` characters once serialised, for a token of the provider's size. */
function padded(base: Record<string, unknown>, bytes: number): Record<string, unknown> {
  const length = JSON.stringify({ ...base, pad: '' }).length;
  return { ...base, pad: 'x'.repeat(Math.max(0, bytes - length)) };
}

function sign(alg: 'RS256' | 'ES256', payload: Record<string, unknown>): Promise<string> {
  return new CompactSign(utf8.encode(JSON.stringify(payload)))
    .setProtectedHeader({ alg, kid: 'floor', typ: 'JWT' })
    .sign(alg === 'RS256' ? rsa.privateKey : ec.privateKey);
}

const newKey = () => digest(randomBytes(32).toString('base64url'));
const idTokenPayloadBytes = sizes.idTokenPayload;

const app = Fastify({
  loggerInstance: pino({ level: config.logLevel }, pino.destination({ fd: 1, sync: false, minLength: 4096 })),
  disableRequestLogging: true,
  bodyLimit: 64 * 1024,
});
await app.register(cookie);
await app.register(formbody);

const str = { type: 'string' } as const;
const tokenResponse = {
  200: { type: 'object', properties: { access_token: str, token_type: str, expires_in: { type: 'integer' }, id_token: str, pad: str } },
};
const jsonResponse = {
  200: { type: 'object', properties: { sub: str, created_at: str, pad: str } },
  401: { type: 'object', properties: { error: str } },
};

app.post('/floor/http', { schema: { response: tokenResponse } }, async (request) => {
  const body = request.body as Record<string, string>;
  return padded({ access_token: body.code ?? '', token_type: 'Bearer', expires_in: 3600 }, sizes.tokenBody);
});

app.get('/floor/read', { schema: { response: jsonResponse } }, async (request, reply) => {
  const token = (request.headers.authorization ?? '').slice('Bearer '.length);
  const { rows } = await run(SELECT, [digest(token)]);
  if (rows.length !== 1) return reply.code(401).send({ error: 'invalid_token' });
  return padded({ sub: String(rows[0]!.key), created_at: String(rows[0]!.created_at) }, sizes.userinfoBody);
});

app.get('/floor/write', async (request, reply) => {
  const state = (request.query as Record<string, string>).state ?? '';
  const { rows } = await run(INSERT, [newKey(), state, new Date()]);
  if (rows.length !== 1) throw new Error('no row');
  const location = `http://127.0.0.1/cb?code=${'c'.repeat(43)}&state=${state}&iss=`;
  return reply.code(303).header('location', location.padEnd(sizes.location, 'x')).send();
});

app.post('/floor/token', { schema: { response: tokenResponse } }, async (request) => {
  const body = request.body as Record<string, string>;
  const { rows } = await run(INSERT, [newKey(), body.code ?? '', new Date()]);
  if (rows.length !== 1) throw new Error('no row');
  const idToken = await sign('RS256', padded({ iss: 'floor', sub: 'floor', aud: 'floor', iat: 0, exp: 0 }, idTokenPayloadBytes));
  return padded(
    { access_token: randomBytes(32).toString('base64url'), token_type: 'Bearer', expires_in: 3600, id_token: idToken },
    sizes.tokenBody,
  );
});

app.post('/floor/password', async (request, reply) => {
  const body = request.body as Record<string, string>;
  if (!(await hasher.verify(passwordHash, body.password ?? ''))) return reply.code(401).send({ error: 'wrong password' });
  return reply.code(303).header('location', '/floor/signed-in').send();
});

/** CPU per signature through the same call, `n` at a time eight abreast (WebCrypto signs on libuv's threads). */
app.post('/floor/signatures', async (request) => {
  const n = Number((request.query as Record<string, string>).n ?? '2000');
  const payload = padded({ iss: 'floor', sub: 'floor', aud: 'floor', iat: 0, exp: 0 }, idTokenPayloadBytes);
  const out: Record<string, number> = {};
  for (const alg of ['RS256', 'ES256'] as const) {
    for (let i = 0; i < 100; i += 1) await sign(alg, payload);
    const before = process.cpuUsage();
    let left = n;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (left-- > 0) await sign(alg, payload);
      }),
    );
    const used = process.cpuUsage(before);
    out[alg] = (used.user + used.system) / n / 1000;
  }
  return out;
});

app.get('/floor/ready', async () => ({ ok: true }));

const stop = async () => {
  await app.close();
  await run(`DROP TABLE IF EXISTS ${FLOOR_TABLE}`, []).catch(() => {});
  await database.close();
  process.exit(0);
};
process.on('SIGTERM', () => void stop());
process.on('SIGINT', () => void stop());
await app.listen({ port: config.port, host: config.host });
