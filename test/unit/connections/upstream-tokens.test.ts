// What a connection with store_tokens keeps of an upstream token response (RFC 6749 5.1): the tokens and their
// type, the lifetime as a time, nothing else; a response without a usable access token keeps nothing.
import t from 'tap';
import { tokensOf } from '../../../src/domain/connections/upstream-tokens.js';

const NOW = new Date('2026-11-27T10:00:00Z');

t.test('RFC 6749 5.1 members are kept; expires_in becomes expires_at; other members are dropped', async (t) => {
  t.same(
    tokensOf(
      { access_token: 'at', token_type: 'Bearer', refresh_token: 'rt', id_token: 'it', scope: 'openid', expires_in: 3600, extra: 'x' },
      NOW,
    ),
    {
      access_token: 'at',
      token_type: 'Bearer',
      refresh_token: 'rt',
      id_token: 'it',
      scope: 'openid',
      expires_at: '2026-11-27T11:00:00.000Z',
    },
  );
  t.same(
    tokensOf({ access_token: 'at', expires_in: '60' }, NOW),
    { access_token: 'at', token_type: 'Bearer', expires_at: '2026-11-27T10:01:00.000Z' },
    'a numeric string lifetime (as some providers send) and no token_type (Bearer assumed)',
  );
});

t.test('nothing usable, nothing kept; nonsense lifetimes and members are left out', async (t) => {
  t.equal(tokensOf({ token_type: 'Bearer' }, NOW), undefined, 'no access_token');
  t.equal(tokensOf({ access_token: '' }, NOW), undefined, 'an empty one');
  t.equal(tokensOf({ access_token: 'x'.repeat(16 * 1024 + 1) }, NOW), undefined, 'an oversized one');
  t.same(tokensOf({ access_token: 'at', expires_in: -5, refresh_token: 7 }, NOW), { access_token: 'at', token_type: 'Bearer' });
  t.same(tokensOf({ access_token: 'at', expires_in: 1.5 }, NOW), { access_token: 'at', token_type: 'Bearer' });
});
