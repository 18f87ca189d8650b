// The console dashboard's charts (issue 20) on an injected clock: the buckets are whole UTC hours and days, the last
// one the hour or the day the clock is in, so today's bar carries today's date and this hour's bar this hour.
import { randomUUID } from 'node:crypto';
import t, { type Test } from 'tap';
import { buildTestApp, FIXTURES } from '../../helpers/app.js';
import { startConsoleSession } from '../../../src/domain/console/console-sessions.js';
import { findUserByUsername } from '../../../src/storage/users.js';

const ADMIN = { username: 'ada', password: 'ada-password-0123', role: 'admin' as const };
// Years after the seed's rows (made at the real time), so that only the users added here are counted.
const NOW = new Date('2031-03-04T14:30:00Z');
const clock = () => NOW;

const { app, db } = await buildTestApp(t, { clock, seed: { ...FIXTURES, users: [...FIXTURES.users, ADMIN] } });
const cookie = await startConsoleSession({ db, clock }, (await findUserByUsername(db, ADMIN.username))!.id);

async function addUserAt(iso: string) {
  const at = new Date(iso);
  await db
    .insertInto('users')
    .values({
      id: randomUUID(),
      username: `at-${at.getTime()}`,
      password_hash: 'not-a-hash',
      email: null,
      email_verified: false,
      claims: JSON.stringify({}),
      created_at: at,
      updated_at: at,
    })
    .execute();
}

/** The figures of one chart, from its text alternative: [label, count] in the bars' order. */
async function figures(t: Test, caption: string): Promise<Array<[string, number]>> {
  const res = await app.inject({ method: 'GET', url: '/admin', headers: { cookie: `sso_console=${cookie}` } });
  t.equal(res.statusCode, 200);
  const figure = res.body.split('<figure>').find((f) => f.includes(`${caption}:`));
  const desc = /<desc id="[^"]+">[^:]+: ([^<]*)<\/desc>/.exec(figure ?? '')?.[1] ?? '';
  return desc.split(', ').map((pair) => {
    const at = pair.lastIndexOf(': ');
    return [pair.slice(0, at), Number(pair.slice(at + 2))];
  });
}

await addUserAt('2031-03-04T10:00:00Z'); // today, this morning
await addUserAt('2031-03-03T20:00:00Z'); // yesterday evening, less than a day ago
await addUserAt('2031-03-04T14:05:00Z'); // this hour
await addUserAt('2031-03-04T13:59:59Z'); // the hour before
await addUserAt('2031-02-25T23:59:59Z'); // the day before the week began: not counted

t.test("the week's last bar is today, labelled with today's date, and counts today's rows only", async (t) => {
  const week = await figures(t, 'New users, last 7 days, by day');
  t.same(
    week.map(([label]) => label),
    ['02-26', '02-27', '02-28', '03-01', '03-02', '03-03', '03-04'],
    'seven UTC days ending today',
  );
  t.same(week.at(-1), ['03-04', 3], "today's three users are on today's bar");
  t.same(week.at(-2), ['03-03', 1], "yesterday evening's user is on yesterday's bar");
  t.equal(
    week.reduce((sum, [, n]) => sum + n, 0),
    4,
    'nothing from before the first day',
  );
});

t.test("the day's last bar is the current hour, labelled with it", async (t) => {
  const day = await figures(t, 'New users, last 24 hours, by hour');
  t.equal(day.length, 24);
  t.same(day[0], ['15:00', 0], 'the first bar is the same hour yesterday, one after the current');
  t.same(day.at(-1), ['14:00', 1], 'the user of 14:05 is on the 14:00 bar');
  t.same(day.at(-2), ['13:00', 1], 'the user of 13:59:59 is on the 13:00 bar');
});
