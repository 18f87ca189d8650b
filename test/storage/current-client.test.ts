// withCurrentClient (domain/clients/current-client.ts): the one retry of a request decided with a client from memory.
// It retries once on ClientChanged, never twice, and on another error only when the remembered copy is stale.
import t from 'tap';
import { ClientCache } from '../../src/domain/clients/client-cache.js';
import type { ProviderContext } from '../../src/domain/context.js';
import { ClientChanged, lookupClient, withCurrentClient, type ClientAttempt } from '../../src/domain/clients/current-client.js';
import { PasswordHasher } from '../../src/domain/accounts/passwords.js';
import { applySeed } from '../../src/domain/admin/seed.js';
import { AuthorizationPending, InvalidClient, InvalidGrant } from '../../src/errors/oauth-error.js';
import { CONFIDENTIAL, testConfig } from '../helpers/app.js';
import { createTestDatabase } from '../helpers/database.js';

const config = testConfig();
const database = await createTestDatabase();
t.teardown(() => database.drop());
const db = database.handle.db;
await applySeed(db, new PasswordHasher(config.argon2), { clients: [CONFIDENTIAL as never], users: [] });
const id = CONFIDENTIAL.client_id;

/** A context whose memory starts empty; `remember` puts the client as registered now into it. */
function context() {
  const ctx = { config, db, clients: new ClientCache() } as unknown as ProviderContext;
  return { ctx, remember: () => lookupClient(ctx, id) };
}

const changeClient = () =>
  db
    .updateTable('clients')
    .set({ client_name: `Renamed ${Date.now()}` })
    .where('client_id', '=', id)
    .execute();

/** Runs `body` under withCurrentClient, noting for each run whether it read the database. */
async function runs<T>(ctx: ProviderContext, body: (attempt: ClientAttempt, run: number) => Promise<T>) {
  const fresh: boolean[] = [];
  const outcome = withCurrentClient(ctx, (attempt) => {
    fresh.push(attempt.fresh);
    return body(attempt, fresh.length);
  });
  return { outcome, fresh };
}

t.test('a ClientChanged from the first run is redone once, with the client read from the database', async (t) => {
  const { ctx, remember } = context();
  await remember();
  const { outcome, fresh } = await runs(ctx, async (attempt, run) => {
    const found = await attempt.lookup(id);
    if (run === 1) throw new ClientChanged(new InvalidClient('client authentication failed'));
    return found?.cached;
  });
  t.equal(await outcome, false, 'the retry decided with a copy from the database');
  t.same(fresh, [false, true]);
});

t.test('a ClientChanged from the retry is not retried again: its refusal is the answer', async (t) => {
  const { ctx } = context();
  const { outcome, fresh } = await runs(ctx, async () => {
    throw new ClientChanged(new InvalidGrant('the client changed twice'));
  });
  await t.rejects(outcome, { error: 'invalid_grant', message: 'the client changed twice' });
  t.same(fresh, [false, true], 'two runs, never a third');
});

t.test('another error is not retried while the remembered client is current', async (t) => {
  const { ctx, remember } = context();
  await remember();
  const { outcome, fresh } = await runs(ctx, async (attempt) => {
    t.equal((await attempt.lookup(id))?.cached, true);
    throw new InvalidGrant('the authorization code is invalid');
  });
  await t.rejects(outcome, { error: 'invalid_grant', message: /./ });
  t.same(fresh, [false]);
});

t.test('an error after deciding with a remembered copy that is stale is redone with the registered client', async (t) => {
  const { ctx, remember } = context();
  const before = (await remember())!.client.revision;
  await changeClient();
  const { outcome, fresh } = await runs(ctx, async (attempt) => {
    const found = await attempt.lookup(id);
    if (!attempt.fresh) throw new InvalidGrant('decided with the old copy');
    return found!.client.revision;
  });
  t.ok((await outcome) > before, 'the retry saw the new revision');
  t.same(fresh, [false, true]);
});

t.test('an error with a client read from the database is not retried', async (t) => {
  const { ctx } = context();
  const { outcome, fresh } = await runs(ctx, async (attempt) => {
    t.equal((await attempt.lookup(id))?.cached, false);
    await changeClient();
    throw new InvalidGrant('refused');
  });
  await t.rejects(outcome, { error: 'invalid_grant', message: /./ });
  t.same(fresh, [false]);
});

t.test('an error that a statement checking the revision gave stands, even from a stale copy', async (t) => {
  const { ctx, remember } = context();
  await remember();
  await changeClient();
  const { outcome, fresh } = await runs(ctx, async (attempt) => {
    await attempt.lookup(id);
    attempt.confirm();
    throw new AuthorizationPending();
  });
  await t.rejects(outcome, { error: 'authorization_pending', message: /./ });
  t.same(fresh, [false], 'no retry, and no look at the client');
});

t.test('ensureCurrent hands a stale copy to the retry and lets a current one answer', async (t) => {
  const { ctx, remember } = context();
  await remember();
  const current = await runs(ctx, async (attempt) => {
    await attempt.lookup(id);
    await attempt.ensureCurrent();
    return 'answered';
  });
  t.equal(await current.outcome, 'answered');
  t.same(current.fresh, [false]);

  await changeClient();
  const stale = await runs(ctx, async (attempt) => {
    await attempt.lookup(id);
    await attempt.ensureCurrent();
    return attempt.fresh ? 'answered afresh' : 'answered with the old copy';
  });
  t.equal(await stale.outcome, 'answered afresh');
  t.same(stale.fresh, [false, true]);
});
