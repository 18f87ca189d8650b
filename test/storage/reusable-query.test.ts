// reusableQuery (src/storage/hot-path/reusable-query.ts): compiled once per shape, each call with its own values.
import t from 'tap';
import { reusableQuery } from '../../src/storage/hot-path/reusable-query.js';
import type { Db } from '../../src/storage/database.js';
import { buildTestApp, ALICE, BOB } from '../helpers/app.js';

const { db } = await buildTestApp(t);

let builds = 0;
const byName = reusableQuery((db: Db, v: { name: string; email: string | null }, shape: { withEmail: boolean }) => {
  builds += 1;
  return db
    .selectFrom('users')
    .select(['username', 'email'])
    .where('username', '=', v.name)
    .$if(shape.withEmail, (qb) => qb.where('email', '=', v.email!));
});

t.test('every call gets its own values; a shape is built once', async (t) => {
  t.same(await byName.execute(db, { name: ALICE.username, email: null }, { withEmail: false }), [
    { username: ALICE.username, email: ALICE.email },
  ]);
  t.same(await byName.execute(db, { name: BOB.username, email: null }, { withEmail: false }), [
    { username: BOB.username, email: BOB.email },
  ]);
  t.equal(builds, 1, 'the second call reused the compiled statement');
  t.same(
    await byName.execute(db, { name: ALICE.username, email: 'someone@else.example' }, { withEmail: true }),
    [],
    'the optional condition applies',
  );
  t.same(await byName.execute(db, { name: BOB.username, email: BOB.email }, { withEmail: true }), [
    { username: BOB.username, email: BOB.email },
  ]);
  t.equal(builds, 2, 'one build per shape');
});
