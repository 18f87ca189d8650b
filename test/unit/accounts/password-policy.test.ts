// The password policy of NIST SP 800-63B 5.1.1.2 and the bundled breached-password list it checks.
import fs from 'node:fs';
import t from 'tap';
import { CommonPasswordList, normalisedPassword } from '../../../src/domain/accounts/common-passwords.js';
import { MAX_PASSWORD_BYTES, PasswordPolicy } from '../../../src/domain/accounts/password-policy.js';
import { PasswordHasher } from '../../../src/domain/accounts/passwords.js';
import { translate } from '../../../src/i18n/translate.js';

const LIST_FILE = new URL('../../../assets/common-passwords.txt', import.meta.url);
const list = CommonPasswordList.load(LIST_FILE);
const policy = new PasswordPolicy({ minLength: 8 }, () => list);
const code = (password: string, owner = {}) => policy.problem(password, owner)?.code;

t.test('the bundled list holds at least 100,000 entries, each once, normalised, in the order its binary search needs', async (t) => {
  const lines = fs.readFileSync(LIST_FILE, 'utf8').split('\n');
  t.equal(lines.pop(), '', 'the file ends with a newline');
  t.ok(lines.length >= 100_000, `${lines.length} entries`);
  t.equal(list.size, lines.length);
  let unordered = 0;
  let unnormalised = 0;
  for (let i = 0; i < lines.length; i++) {
    if (i > 0 && !(lines[i - 1]! < lines[i]!)) unordered++;
    if (normalisedPassword(lines[i]!) !== lines[i]) unnormalised++;
  }
  t.equal(unordered, 0, 'strictly ascending: sorted and without duplicates');
  t.equal(unnormalised, 0, 'every entry is NFKC and lower case');
  const missed = lines.filter((entry) => !list.has(entry));
  t.same(missed, [], 'the search finds every entry');
  t.notOk(list.has('a passphrase nobody has used before 7f3a'));
  t.notOk(list.has(''), 'nothing is found for an empty password');
});

t.test('NIST SP 800-63B 5.1.1.2: a password from breach corpuses is refused, whatever its case or Unicode form', async (t) => {
  t.equal(code('password1'), 'common');
  t.equal(code('PassWord1'), 'common', 'the comparison ignores case');
  t.equal(code('ｐａｓｓｗｏｒｄ１'), 'common', 'full-width letters are their ASCII form after NFKC');
  t.equal(code('iloveyou2'), 'common');
  t.equal(code('qwertyuiop'), 'common');
  t.equal(code('wonderland-rabbit-hole'), undefined, 'the shipped example seed password is not on the list');
  t.equal(code('correct horse battery staple 42'), undefined);
});

t.test('NIST SP 800-63B 5.1.1.2: at least minLength characters after NFKC, at most 256 bytes, no composition rules', async (t) => {
  t.equal(code('seven77'), 'too-short');
  t.equal(code('eightch8'), undefined, 'eight characters, lower case and digits only: no composition rule');
  t.equal(code('🦊🦊🦊🦊🦊🦊🦊🦊'), undefined, 'eight emoji are eight characters, though sixteen UTF-16 units');
  t.equal(code('🦊🦊🦊🦊🦊🦊🦊'), 'too-short');
  t.equal(code('ﬁﬂﬁﬂ'), undefined, 'four ligatures are eight characters once NFKC spells them out');
  t.equal(code('ﬁﬂﬁ'), 'too-short');
  t.equal(code('x'.repeat(MAX_PASSWORD_BYTES)), undefined, 'exactly 256 bytes');
  t.equal(code('é'.repeat(MAX_PASSWORD_BYTES / 2 + 1)), 'too-long', '129 two-byte characters are 258 bytes');
  const strict = new PasswordPolicy({ minLength: 12 }, () => list);
  t.equal(strict.problem('eleven-char')?.code, 'too-short');
  const message = strict.problem('eleven-char')!.message;
  t.match(translate('en', message.key, message.params), 'at least 12 characters');
  t.match(translate('de', message.key, message.params), 'mindestens 12 Zeichen');
  t.equal(strict.problem('twelve-chars'), undefined);
});

t.test('a password equal to the username or the email is refused, in any case', async (t) => {
  const owner = { username: 'Ysolde-Brun', email: 'ysolde.brun@example.org' };
  t.equal(code('ysolde-brun', owner), 'personal');
  t.equal(code('YSOLDE.BRUN@example.org', owner), 'personal');
  t.equal(code('ysolde-brun writes', owner), undefined);
  t.equal(code('ysolde-brun', { username: null, email: null }), undefined);
});

t.test('the list is read on the first check only, once', async (t) => {
  let loads = 0;
  const lazy = new PasswordPolicy(undefined, () => (loads++, list));
  t.equal(loads, 0, 'building the policy reads nothing');
  t.equal(lazy.problem('short')?.code, 'too-short');
  t.equal(loads, 0, 'a password refused for its length does not need the list');
  lazy.problem('long enough passphrase');
  lazy.problem('another long passphrase');
  t.equal(loads, 1);
});

t.test('NIST SP 800-63B 5.1.1.2: passwords are hashed in NFKC form; a hash of the typed form still verifies', async (t) => {
  const hasher = new PasswordHasher({ memoryKiB: 7168, timeCost: 1, parallelism: 1 });
  const composed = 'caf\u00e9 au lait';
  const decomposed = 'cafe\u0301 au lait';
  const hash = await hasher.hash(decomposed);
  t.ok(await hasher.verify(hash, composed), 'another keyboard sends the composed form: it matches');
  t.ok(await hasher.verify(hash, decomposed));
  t.notOk(await hasher.verify(hash, 'cafe au lait'));
  const argon2 = await import('argon2');
  const legacy = await argon2.default.hash(decomposed, { type: argon2.default.argon2id, memoryCost: 7168, timeCost: 1 });
  t.ok(await hasher.verify(legacy, decomposed), 'a hash made before normalisation verifies the password as typed');
});
