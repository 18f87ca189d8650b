// A client's id_token_signed_response_alg (OIDC Dynamic Client Registration 2): declared in the seed file,
// validated there, RS256 when omitted.
import t from 'tap';
import { rowToClient } from '../../../src/domain/clients/clients.js';
import { CLIENT_METADATA } from '../../../src/domain/clients/stored-client-metadata.js';
import { readClientRow } from '../../../src/storage/clients.js';
import { parseSeed } from '../../../src/domain/admin/seed.js';
import type { ClientRow } from '../../../src/storage/schema.js';

const CLIENT = { client_id: 'rp', client_secret: 'rp-secret-0123456789', redirect_uris: ['https://rp.example/cb'] };

function row(metadata: Record<string, unknown>): ClientRow {
  return {
    client_id: 'rp',
    client_secret_hash: '$argon2id$...',
    client_name: null,
    redirect_uris: ['https://rp.example/cb'],
    post_logout_redirect_uris: [],
    grant_types: ['authorization_code'],
    response_types: ['code'],
    token_endpoint_auth_method: 'client_secret_basic',
    metadata,
    revision: 1,
    registration_access_token_hash: null,
    client_secret_expires_at: null,
    self_registered: false,
    client_secret_sealed: null,
    group_restricted: false,
    organization_usage: 'none',
    admin_organization_id: null,
    created_at: new Date(),
    updated_at: new Date(),
  } as ClientRow;
}

t.test('the seed file accepts RS256, PS256, ES256 and EdDSA as id_token_signed_response_alg', async (t) => {
  for (const alg of ['RS256', 'PS256', 'ES256', 'EdDSA']) {
    const seed = parseSeed({ clients: [{ ...CLIENT, id_token_signed_response_alg: alg }] });
    t.equal(seed.clients[0]!.id_token_signed_response_alg, alg);
  }
});

t.test('the seed file refuses any other id_token_signed_response_alg, "none" and HS256 included', async (t) => {
  for (const alg of ['none', 'HS256', 'RS512', 'Ed25519', 'rs256', 1]) {
    t.throws(
      () => parseSeed({ clients: [{ ...CLIENT, id_token_signed_response_alg: alg }] }),
      {
        name: 'SeedError',
        problems: ['clients[0] (client_id "rp"): id_token_signed_response_alg must be one of RS256, PS256, ES256, EdDSA'],
      },
      String(alg),
    );
  }
});

t.test(
  'a client signs with RS256 unless it registered another algorithm (OIDC Registration 2: "The default, if omitted, is RS256")',
  async (t) => {
    const read = (metadata: Record<string, unknown>) => readClientRow(row(metadata), CLIENT_METADATA);
    const alg = (metadata: Record<string, unknown>) => {
      const r = read(metadata);
      return r.readable ? rowToClient(r.row).idTokenSignedResponseAlg : undefined;
    };
    t.equal(alg({}), 'RS256');
    t.equal(alg({ id_token_signed_response_alg: 'EdDSA' }), 'EdDSA');
    t.same(
      read({ id_token_signed_response_alg: 'HS256' }),
      { readable: false, clientId: 'rp', reason: 'unexpected value at $.metadata.id_token_signed_response_alg' },
      'an alg no longer supported makes the client unreadable (treated as unknown), never a signature with another alg',
    );
  },
);
