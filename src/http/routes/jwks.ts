// The JSON Web Key Set: public signing keys only, each with kid, alg and use.
import type { FastifyInstance } from 'fastify';
import type { KeyStore } from '../../domain/keys.js';

export default async function jwksRoutes(app: FastifyInstance, opts: { keys: KeyStore }) {
  app.get('/jwks', async (_request, reply) => {
    return reply
      .header('content-type', 'application/jwk-set+json; charset=utf-8')
      .header('cache-control', 'public, max-age=300')
      .send(opts.keys.jwksJson);
  });
}
