// Pairwise subject identifiers (OIDC Core 8.1) and the subject_type metadata rules (OIDC Registration 2), without a server.
import { randomBytes } from 'node:crypto';
import t from 'tap';
import { clientMetadataProblems } from '../../../src/domain/clients/client-metadata.js';
import { pairwiseSectorOf, SubjectIdentifiers } from '../../../src/domain/clients/pairwise.js';

const USER = '7f1c2a9e-5b0d-4c3e-8a6f-1d2e3f4a5b6c';
const OTHER_USER = '0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d';

t.test('OIDC Core 8.1: a pairwise sub is stable per sector and user, and differs across sectors, users and secrets', async (t) => {
  const secret = randomBytes(32);
  const subjects = new SubjectIdentifiers(secret);
  const sub = subjects.subjectFor('rp.example', USER);
  t.equal(new SubjectIdentifiers(Buffer.from(secret)).subjectFor('rp.example', USER), sub, 'every instance with the secret agrees');
  t.not(subjects.subjectFor('other.example', USER), sub, 'another sector');
  t.not(subjects.subjectFor('rp.example', OTHER_USER), sub, 'another user');
  t.not(new SubjectIdentifiers(randomBytes(32)).subjectFor('rp.example', USER), sub, 'another secret');
  t.notOk(sub.includes(USER), 'the user id does not show through');
  t.equal(subjects.subjectFor(null, USER), USER, 'a public client sees the user id');
});

t.test('the sector and user are kept apart: moving a character between them changes the sub', async (t) => {
  const subjects = new SubjectIdentifiers(randomBytes(32));
  t.not(subjects.subjectFor('rp.example1', '23'), subjects.subjectFor('rp.example', '123'));
});

t.test('a pairwise secret shorter than 32 bytes is refused', async (t) => {
  t.throws(() => new SubjectIdentifiers(randomBytes(16)), /at least 32 bytes/);
});

t.test('OIDC Core 8.1: the sector is the sector_identifier_uri host, else the redirect URIs host; none when public', async (t) => {
  t.equal(pairwiseSectorOf({ subject_type: 'pairwise' }, ['https://rp.example:8443/cb']), 'rp.example:8443');
  t.equal(
    pairwiseSectorOf({ subject_type: 'pairwise', sector_identifier_uri: 'https://sector.example/r.json' }, ['https://a.example/cb']),
    'sector.example',
  );
  t.equal(pairwiseSectorOf({ subject_type: 'public' }, ['https://rp.example/cb']), null);
  t.equal(pairwiseSectorOf({}, ['https://rp.example/cb']), null);
});

const problemsOf = (c: Record<string, unknown>) => clientMetadataProblems(c, 'seed').map((p) => p.message);

t.test('OIDC Registration 2: a seeded pairwise client needs one redirect host or a sector_identifier_uri', async (t) => {
  t.same(problemsOf({ redirect_uris: ['https://rp.example/a', 'https://rp.example/b'], subject_type: 'pairwise' }), []);
  t.match(problemsOf({ redirect_uris: ['https://a.example/cb', 'https://b.example/cb'], subject_type: 'pairwise' }), [
    /must register a sector_identifier_uri/,
  ]);
  t.match(problemsOf({ redirect_uris: ['com.example.app:/cb'], subject_type: 'pairwise' }), [/must register a sector_identifier_uri/]);
  t.same(
    problemsOf({
      redirect_uris: ['https://a.example/cb', 'https://b.example/cb'],
      subject_type: 'pairwise',
      sector_identifier_uri: 'https://sector.example/r.json',
    }),
    [],
  );
});

t.test('OIDC Core 8.1: sector_identifier_uri is an https URL; subject_type is public or pairwise', async (t) => {
  for (const uri of ['http://sector.example/r.json', 'https://sector.example/r.json#x', 'not a url', 42]) {
    t.match(
      problemsOf({ redirect_uris: ['https://rp.example/cb'], sector_identifier_uri: uri }),
      [/sector_identifier_uri must be an https URL/],
      String(uri),
    );
  }
  t.match(problemsOf({ redirect_uris: ['https://rp.example/cb'], subject_type: 'secret' }), [
    /subject_type must be one of public, pairwise/,
  ]);
});
