// The admin command line's grammar, in this process: help at every level for every noun and verb, and every kind of
// bad command line refused with exit code 2 and one line, before any configuration or database is touched.
import t from 'tap';
import { runAdmin, type Environment } from '../../src/cli/command.js';
import { NOUNS } from '../../src/cli/nouns/index.js';
import { stdoutOutput } from '../../src/cli/output.js';
import type { Terminal } from '../../src/cli/terminal.js';

interface Captured {
  code: number;
  stdout: string;
  stderr: string[];
  opened: boolean;
}

/** runAdmin with a terminal (or none), capturing its output; the database is never really opened. */
async function run(argv: string[], options: { interactive?: boolean; stdin?: string } = {}): Promise<Captured> {
  let stdout = '';
  const stderr: string[] = [];
  let opened = false;
  const terminal: Terminal = {
    interactive: options.interactive ?? false,
    ask: async () => undefined,
    readHidden: async () => 'typed-password',
    readAll: async () => options.stdin ?? '',
  };
  const env: Environment = {
    terminal,
    out: stdoutOutput((text) => (stdout += text)),
    error: (line) => stderr.push(line),
    open: async () => {
      opened = true;
      throw new Error('the database is not for this test');
    },
  };
  const code = await runAdmin(NOUNS, argv, env);
  return { code, stdout, stderr, opened };
}

t.test('--help prints the nouns, each noun its verbs, and each verb its arguments and options, with exit code 0', async (t) => {
  const top = await run(['--help']);
  t.equal(top.code, 0);
  t.match(top.stdout, /^usage: sso-admin <noun> <verb>/);
  const lines = top.stdout.split('\n');
  for (const noun of NOUNS) {
    t.ok(
      lines.some((l) => l.startsWith(`  ${noun.name} `) && l.endsWith(noun.summary)),
      `the top help names ${noun.name}`,
    );
  }
  t.match(top.stdout, 'Exit codes: 0 done, 1 refused or failed (nothing changed), 2 bad command line.');
  t.same((await run(['-h'])).stdout, top.stdout, '-h is --help');

  for (const noun of NOUNS) {
    const help = await run([noun.name, '--help']);
    t.equal(help.code, 0);
    t.match(help.stdout, `usage: sso-admin ${noun.name} <verb>`);
    for (const verb of noun.verbs) {
      t.match(help.stdout, new RegExp(`\\n  ${verb.name} +`), `${noun.name} --help names ${verb.name}`);
      const verbHelp = await run([noun.name, verb.name, '--help']);
      t.equal(verbHelp.code, 0);
      t.match(verbHelp.stdout, `usage: sso-admin ${noun.name} ${verb.name}`);
      t.match(verbHelp.stdout, verb.summary);
      t.match(verbHelp.stdout, '--json');
      for (const arg of verb.args ?? []) t.match(verbHelp.stdout, `<${arg.name}>`);
      for (const option of Object.keys(verb.options ?? {})) t.match(verbHelp.stdout, `--${option}`);
      if (verb.destructive) t.match(verbHelp.stdout, /-y, --yes +do it without asking/);
      else t.notMatch(verbHelp.stdout, '--yes');
      t.equal(verbHelp.opened, false);
    }
  }
});

t.test("help comes first: --help anywhere after the verb shows the verb's help, whatever else is wrong", async (t) => {
  const help = await run(['clients', 'create', '--bogus', '--help']);
  t.equal(help.code, 0);
  t.match(help.stdout, 'usage: sso-admin clients create <client_id>');
});

t.test('a bad command line exits 2 with one line naming the command whose help to read, and opens nothing', async (t) => {
  const cases: Array<[string[], string]> = [
    [
      [],
      'sso-admin: expected a noun: clients, resources, users, keys, sessions, devices, rules, connections, directories, groups, webhooks, scim-tokens, saml-sps, orgs (sso-admin --help)',
    ],
    [
      ['--json'],
      'sso-admin: unknown noun "--json" (nouns: clients, resources, users, keys, sessions, devices, rules, connections, directories, groups, webhooks, scim-tokens, saml-sps, orgs) (sso-admin --help)',
    ],
    [
      ['bogus'],
      'sso-admin: unknown noun "bogus" (nouns: clients, resources, users, keys, sessions, devices, rules, connections, directories, groups, webhooks, scim-tokens, saml-sps, orgs) (sso-admin --help)',
    ],
    [
      ['users'],
      'sso-admin users: expected a verb: list, show, create, set-password, set-role, reset-link, invite, disable, enable, delete (sso-admin users --help)',
    ],
    [
      ['users', 'frob'],
      'sso-admin users: unknown verb "frob" (verbs: list, show, create, set-password, set-role, reset-link, invite, disable, enable, delete) (sso-admin users --help)',
    ],
    [['clients', 'show'], 'sso-admin clients show: missing <client_id> (sso-admin clients show --help)'],
    [['clients', 'show', 'a', 'b'], 'sso-admin clients show: unexpected argument "b" (sso-admin clients show --help)'],
    [['clients', 'list', '--bogus'], 'sso-admin clients list: unknown option --bogus (sso-admin clients list --help)'],
    [
      ['clients', 'create', 'a', '--client-name'],
      'sso-admin clients create: option --client-name needs a value (sso-admin clients create --help)',
    ],
    [['clients', 'list', '--json=yes'], 'sso-admin clients list: option --json takes no value (sso-admin clients list --help)'],
    [['clients', 'list', '--yes'], 'sso-admin clients list: unknown option --yes (sso-admin clients list --help)'],
    [
      ['clients', 'update', 'a'],
      'sso-admin clients update: nothing to change: give a field option, --remove or --admin-organization (sso-admin clients update --help)',
    ],
    [
      ['clients', 'create', 'a', '--backchannel-logout-session-required', 'maybe'],
      'sso-admin clients create: --backchannel-logout-session-required must be true or false (sso-admin clients create --help)',
    ],
    [['sessions', 'list'], 'sso-admin sessions list: missing --user USER (sso-admin sessions list --help)'],
    [['devices', 'revoke', '--device', 'x', '--yes'], 'sso-admin devices revoke: missing --user USER (sso-admin devices revoke --help)'],
    [
      ['keys', 'rotate', '--alg', 'HS256', '--yes'],
      'sso-admin keys rotate: --alg must be one of RS256, PS256, ES256, EdDSA (got "HS256") (sso-admin keys rotate --help)',
    ],
    [
      ['keys', 'rotate', '--delay', 'soon', '--yes'],
      'sso-admin keys rotate: --delay must be a whole number of seconds (got "soon") (sso-admin keys rotate --help)',
    ],
    [
      ['users', 'create', 'bob', '--claim', 'nickname'],
      'sso-admin users create: --claim takes NAME=VALUE (got "nickname") (sso-admin users create --help)',
    ],
    [
      ['rules', 'add', '--value', '203.0.113.0/24', '--effect', 'block'],
      'sso-admin rules add: missing --kind device|network|username (sso-admin rules add --help)',
    ],
    [['rules', 'delete', '--yes'], 'sso-admin rules delete: missing <id> (sso-admin rules delete --help)'],
    [
      ['webhooks', 'update', 'siem'],
      'sso-admin webhooks update: nothing to change: give --url, --events, --description, --enabled or --rotate-secret (sso-admin webhooks update --help)',
    ],
    [
      ['webhooks', 'update', 'siem', '--enabled', 'yes'],
      'sso-admin webhooks update: --enabled must be true or false (sso-admin webhooks update --help)',
    ],
    [
      ['webhooks', 'update', 'siem', '--events', 'user.created,'],
      'sso-admin webhooks update: --events takes event types separated by commas, none empty (sso-admin webhooks update --help)',
    ],
    [['webhooks', 'pause', 'siem'], 'sso-admin webhooks pause: missing --reason TEXT (sso-admin webhooks pause --help)'],
  ];
  for (const [argv, line] of cases) {
    const result = await run(argv);
    t.equal(result.code, 2, argv.join(' '));
    t.same(result.stderr, [line]);
    t.equal(result.stdout, '');
    t.equal(result.opened, false);
  }
});

t.test('every destructive verb refuses without --yes when stdin is not a terminal, before opening anything', async (t) => {
  const destructive = NOUNS.flatMap((noun) => noun.verbs.filter((v) => v.destructive).map((v) => [noun.name, v.name] as const));
  t.same(
    destructive.map((d) => d.join(' ')),
    [
      'clients rotate-secret',
      'clients delete',
      'resources delete',
      'users disable',
      'users delete',
      'keys rotate',
      'sessions revoke',
      'devices revoke',
      'rules delete',
      'connections remove',
      'connections unlink',
      'directories remove',
      'groups remove',
      'webhooks remove',
      'scim-tokens revoke',
      'saml-sps rotate-key',
      'saml-sps remove',
      'orgs remove',
    ],
  );
  const args: Record<string, string[]> = {
    'clients rotate-secret': ['app'],
    'clients delete': ['app'],
    'resources delete': ['https://api.example/'],
    'users disable': ['alice'],
    'users delete': ['alice'],
    'keys rotate': [],
    'sessions revoke': ['--user', 'alice'],
    'devices revoke': ['--user', 'alice'],
    'rules delete': ['0f6c6e0a-8c4b-4d43-9e0c-1b2a3c4d5e6f'],
    'connections remove': ['google'],
    'connections unlink': ['alice', 'google'],
    'directories remove': ['corp'],
    'groups remove': ['staff'],
    'webhooks remove': ['siem'],
    'scim-tokens revoke': ['entra'],
    'saml-sps rotate-key': [],
    'saml-sps remove': ['https://sp.example/saml'],
    'orgs remove': ['acme'],
  };
  for (const [noun, verb] of destructive) {
    const refused = await run([noun, verb, ...args[`${noun} ${verb}`]!]);
    t.equal(refused.code, 2);
    t.same(refused.stderr, [
      `sso-admin ${noun} ${verb}: stdin is not a terminal, so nobody can confirm: pass --yes to do it without asking (sso-admin ${noun} ${verb} --help)`,
    ]);
    t.equal(refused.opened, false);
    const onTerminal = await run([noun, verb, ...args[`${noun} ${verb}`]!], { interactive: true });
    t.equal(onTerminal.opened, true, 'on a terminal it goes on (and will ask)');
  }
});

t.test("invalid values are refused with exit code 1 and the seed file's reasons, before the database opens", async (t) => {
  const client = await run(['clients', 'create', 'web', '--redirect-uri', 'http://app.example/cb#frag', '--grant-type', 'password']);
  t.equal(client.code, 1);
  t.same(client.stderr, [
    'sso-admin clients create: client "web" was refused: redirect_uris[0] must not contain a fragment; grant_types must be an array of authorization_code, refresh_token, client_credentials, urn:ietf:params:oauth:grant-type:device_code',
  ]);
  t.equal(client.opened, false);

  const user = await run(['users', 'create', 'bob', '--email', 'not-an-email', '--password-stdin'], { stdin: 'long enough\n' });
  t.equal(user.code, 1);
  t.same(user.stderr, ['sso-admin users create: user "bob" was refused: email is not an email address']);
  const short = await run(['users', 'set-password', 'bob', '--password-stdin'], { stdin: 'short\n' });
  t.same(
    [short.code, short.stderr],
    [1, ['sso-admin users set-password: the password was refused: password must have at least 8 characters']],
  );
  const long = await run(['users', 'set-password', 'bob', '--password-stdin'], { stdin: 'é'.repeat(129) });
  t.same(long.stderr, ['sso-admin users set-password: the password was refused: password must be at most 256 bytes of UTF-8']);
  t.notOk(user.opened || short.opened || long.opened);
});

t.test(
  'a risk rule with a bad kind, effect or value is refused with exit code 2 and every problem, before the database opens',
  async (t) => {
    const cases: Array<[string[], string]> = [
      [['--kind', 'country', '--value', 'XX', '--effect', 'block'], 'kind must be one of device, network, username'],
      [['--kind', 'network', '--value', '203.0.113.0/24', '--effect', 'deny'], 'effect must be one of allow, block'],
      [
        ['--kind', 'network', '--value', '203.0.113.7/24', '--effect', 'block'],
        '"203.0.113.7/24" has bits set after the /24 prefix: did you mean 203.0.113.0/24?',
      ],
      [
        ['--kind', 'device', '--value', 'my-laptop', '--effect', 'allow'],
        'a device rule\'s value is a device id (a UUID), not "my-laptop"',
      ],
      [['--kind', 'username', '--value', ' ', '--effect', 'allow'], 'value must be a non-empty string'],
      [
        ['--kind', 'username', '--value', 'alice', '--effect', 'allow', '--note', 'x'.repeat(501)],
        'note must be a string of at most 500 characters',
      ],
      [
        ['--kind', 'network', '--value', '10.1.2.3/8', '--effect', 'deny'],
        'effect must be one of allow, block; "10.1.2.3/8" has bits set after the /8 prefix: did you mean 10.0.0.0/8?',
      ],
    ];
    for (const [options, problem] of cases) {
      const refused = await run(['rules', 'add', ...options]);
      t.equal(refused.code, 2, options.join(' '));
      t.same(refused.stderr, [`sso-admin rules add: ${problem} (sso-admin rules add --help)`]);
      t.equal(refused.stdout, '');
      t.equal(refused.opened, false);
    }
  },
);

t.test('without a terminal a password is only read from stdin: no prompt, exit code 2', async (t) => {
  const refused = await run(['users', 'set-password', 'bob']);
  t.equal(refused.code, 2);
  t.same(refused.stderr, [
    'sso-admin users set-password: stdin is not a terminal, so the password cannot be asked for: pass it on stdin with --password-stdin (sso-admin users set-password --help)',
  ]);
});
