// The JSON Web Key Set: public signing keys only, each with kid, alg and use. Read from the key store on every
// request (a prebuilt string, swapped when the keys are reloaded), so a rotation shows without a restart.
import type { FastifyInstance } from 'fastify';
import { JWKS_MAX_AGE_SECONDS, type KeyStore } from '../../domain/keys/keys.js';

export default async function jwksRoutes(app: FastifyInstance, opts: { keys: KeyStore }) {
  app.get('/jwks', async (_request, reply) => {
    return reply
      .header('content-type', 'application/jwk-set+json; charset=utf-8')
      .header('cache-control', `public, max-age=${JWKS_MAX_AGE_SECONDS}`)
      .send(opts.keys.jwksJson);
  });
}
