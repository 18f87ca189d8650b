// The lists of users, clients and risk rules are paged in SQL (keyset: ORDER BY the key, WHERE key > the cursor's,
// LIMIT n + 1; src/http/admin-api/pagination.ts readPage): walked a page at a time they give every match once, in
// key order, with the filters applied in the query; a page reads its rows only; a forged cursor is a 400, never a 500.
import { sql } from 'kysely';
import t, { type Test } from 'tap';
import type { AdminContext } from '../../../src/domain/admin/admin.js';
import { listUserPage } from '../../../src/domain/admin/user-admin.js';
import { listRulePage } from '../../../src/domain/risk/rule-admin.js';
import { adminApiApp } from '../../helpers/admin-api.js';

const api = await adminApiApp(t);

/** Every item of the list, walked `limit` at a time. */
async function walk(t: Test, path: string, limit: number): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let cursor: string | null = null;
  do {
    const sep = path.includes('?') ? '&' : '?';
    const res = await api.call(t, 'GET', `${path}${sep}limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`);
    t.equal(res.statusCode, 200);
    const page = res.json() as { items: Record<string, unknown>[]; next_cursor: string | null };
    t.ok(page.items.length <= limit);
    items.push(...page.items);
    cursor = page.next_cursor;
  } while (cursor !== null);
  return items;
}

const sorted = (keys: string[]) => [...keys].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));

t.before(async () => {
  for (let i = 0; i < 7; i++)
    await api.call(t, 'POST', '/users', {
      body: { username: `pager-${i}`, password: `pager-password-${i}-long`, email: `p${i}@pages.example` },
    });
  await api.call(t, 'POST', '/users/pager-3/disable');
  for (const n of [1, 2, 3])
    await api.call(t, 'POST', '/risk-rules', { body: { kind: 'network', value: `192.0.2.${n}/32`, effect: n === 2 ? 'allow' : 'block' } });
});

t.test('users: every match once, by id, with q and disabled applied in the query', async (t) => {
  const all = await walk(t, '/users?q=PAGES.example', 2);
  t.equal(all.length, 7, 'q searches the email in any case');
  t.same(
    all.map((u) => u.id),
    sorted(all.map((u) => u.id as string)),
  );
  const disabled = await walk(t, '/users?q=pager&disabled=true', 1);
  t.same(
    disabled.map((u) => u.username),
    ['pager-3'],
  );
  t.equal((await walk(t, '/users?q=pager&disabled=false', 3)).length, 6);
});

t.test('clients and risk rules page the same way, filters in the query', async (t) => {
  const clients = await walk(t, '/clients', 1);
  const names = clients.map((c) => c.client_id as string);
  t.same(names, sorted(names));
  t.equal(new Set(names).size, Number((await sql<{ n: string }>`select count(*)::text as n from clients`.execute(api.db)).rows[0]!.n));
  t.same((await walk(t, '/risk-rules?effect=block', 1)).map((r) => r.value).sort(), ['192.0.2.1/32', '192.0.2.3/32']);
});

t.test('a page reads its rows only, whatever the number of users: one row past the page, no more', async (t) => {
  let rowsRead = 0;
  const counting = api.db.withPlugin({
    transformQuery: (args) => args.node,
    transformResult: async (args) => {
      rowsRead += args.result.rows.length;
      return args.result;
    },
  });
  const ctx = { db: counting } as unknown as AdminContext;
  const total = Number((await sql<{ n: string }>`select count(*)::text as n from users`.execute(api.db)).rows[0]!.n);
  t.ok(total > 6, 'more users than the page');
  const first = await listUserPage(ctx, {}, undefined, 3);
  t.equal(first.length, 3);
  t.equal(rowsRead, 3, 'three rows read for a page of three');
  rowsRead = 0;
  const rules = await listRulePage(ctx, {}, undefined, 1);
  t.equal(rules.length, 1);
  t.equal(rowsRead, 1);
  const page = (await api.call(t, 'GET', '/users?limit=2')).json();
  const next = (await api.call(t, 'GET', `/users?limit=2&cursor=${page.next_cursor}`)).json();
  t.ok(next.items[0].id > page.items[1].id, 'the next page starts after the cursor');
});

t.test('a cursor this list did not give, or one whose key is no id, is a 400', async (t) => {
  const forged = Buffer.from(JSON.stringify({ l: 'users', a: 'not-a-uuid' })).toString('base64url');
  const res = await api.call(t, 'GET', `/users?cursor=${forged}`);
  t.equal(res.statusCode, 400);
  t.equal(res.json().code, 'invalid_cursor');
  const rules = Buffer.from(JSON.stringify({ l: 'risk-rules', a: "x' or 1=1" })).toString('base64url');
  t.equal((await api.call(t, 'GET', `/risk-rules?cursor=${rules}`)).statusCode, 400);
  const other = Buffer.from(JSON.stringify({ l: 'users', a: '00000000-0000-4000-8000-000000000000' })).toString('base64url');
  t.equal((await api.call(t, 'GET', `/clients?cursor=${other}`)).statusCode, 400, "another list's cursor");
  const client = Buffer.from(JSON.stringify({ l: 'clients', a: 'zzz' })).toString('base64url');
  t.same((await api.call(t, 'GET', `/clients?cursor=${client}`)).json(), { items: [], next_cursor: null }, 'any text is a client key');
});
