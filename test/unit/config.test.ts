// loadConfig: the documented defaults, the issuer rules, and one error that lists every bad variable.
import path from 'node:path';
import t, { type Test } from 'tap';
import { ConfigError, loadConfig } from '../../src/config.js';

/** The ConfigError that loading `env` throws; fails the test when it loads. */
function configError(t: Test, env: Record<string, string>): ConfigError {
  try {
    loadConfig(env);
  } catch (err) {
    t.type(err, ConfigError);
    return err as ConfigError;
  }
  t.fail(`expected ${JSON.stringify(env)} to be refused`);
  return new ConfigError([]);
}

/** An issuer outside localhost needs KEYS_ENCRYPTION_SECRET (its own tests are at the end of this file). */
const KEYS = { KEYS_ENCRYPTION_SECRET: 'a-test-secret-of-at-least-32-characters' };

t.test('an empty environment loads the documented defaults', async (t) => {
  const config = loadConfig({});
  t.equal(config.port, 3000);
  t.equal(config.host, 'localhost');
  t.equal(config.baseUrl, 'http://localhost:3000');
  t.equal(config.issuer, 'http://localhost:3000/sso');
  t.equal(config.secureCookies, false);
  t.equal(config.databaseUrl, undefined);
  t.equal(config.dataDir, path.resolve('./data'));
  t.ok(path.isAbsolute(config.dataDir), 'DATA_DIR is resolved to an absolute path');
  t.equal(config.logLevel, 'info');
  t.same(config.argon2, { memoryKiB: 19456, timeCost: 2, parallelism: 1 });
  t.ok(Object.isFrozen(config), 'the config is frozen');
  t.ok(Object.isFrozen(config.argon2), 'the argon2 parameters are frozen');
});

t.test('a relative DATA_DIR is resolved against the working directory', async (t) => {
  t.equal(loadConfig({ DATA_DIR: 'var/sso' }).dataDir, path.join(process.cwd(), 'var/sso'));
  t.equal(loadConfig({ DATA_DIR: '/srv/sso' }).dataDir, '/srv/sso');
});

t.test('a trailing slash on BASE_URL is removed before the issuer is derived', async (t) => {
  const config = loadConfig({ BASE_URL: 'https://id.example.com/', ...KEYS });
  t.equal(config.baseUrl, 'https://id.example.com');
  t.equal(config.issuer, 'https://id.example.com/sso');
  const nested = loadConfig({ BASE_URL: 'https://example.com/auth//', ...KEYS });
  t.equal(nested.issuer, 'https://example.com/auth/sso');
});

t.test('http BASE_URL is accepted on localhost, 127.0.0.1 and [::1]', async (t) => {
  for (const base of ['http://localhost:8080', 'http://127.0.0.1:3000', 'http://[::1]:3000']) {
    const config = loadConfig({ BASE_URL: base });
    t.equal(config.issuer, `${base}/sso`, base);
    t.equal(config.secureCookies, false, `${base} does not set secure cookies`);
  }
});

t.test('http BASE_URL on another host is refused with a message naming BASE_URL', async (t) => {
  const err = configError(t, { BASE_URL: 'http://id.example.com', ...KEYS });
  t.equal(err.problems.length, 1);
  t.match(err.problems[0], /^BASE_URL must use https/);
  t.match(err.message, 'http://id.example.com');
  t.match(err.message, 'ALLOW_INSECURE_ISSUER');
});

t.test('ALLOW_INSECURE_ISSUER=true lets an http BASE_URL on another host through', async (t) => {
  const config = loadConfig({ BASE_URL: 'http://id.example.com', ALLOW_INSECURE_ISSUER: 'true', ...KEYS });
  t.equal(config.issuer, 'http://id.example.com/sso');
  t.equal(config.secureCookies, false);
  configError(t, { BASE_URL: 'http://id.example.com', ALLOW_INSECURE_ISSUER: 'false', ...KEYS });
});

t.test('an https BASE_URL turns on secure cookies', async (t) => {
  const config = loadConfig({ BASE_URL: 'https://id.example.com', ...KEYS });
  t.equal(config.secureCookies, true);
  t.equal(config.issuer, 'https://id.example.com/sso');
});

t.test('a BASE_URL that is not an absolute http(s) URL is refused', async (t) => {
  t.match(configError(t, { BASE_URL: 'id.example.com' }).problems, [/^BASE_URL must be an absolute URL/]);
  t.match(configError(t, { BASE_URL: 'ftp://id.example.com' }).problems, [/^BASE_URL must be an http\(s\) URL/]);
  t.match(configError(t, { BASE_URL: 'https://id.example.com/?a=1' }).problems, [/^BASE_URL must not carry a query/]);
});

t.test('a bad PORT is refused with a ConfigError naming PORT', async (t) => {
  for (const port of ['abc', '-1', '65536', '3000.5', '0x10']) {
    const err = configError(t, { PORT: port });
    t.equal(err.problems.length, 1, port);
    t.match(err.problems[0], /^PORT must be a whole number from 0 to 65535/, port);
    t.match(err.message, `"${port}"`);
  }
});

t.test('a bad LOG_LEVEL is refused with a ConfigError naming LOG_LEVEL', async (t) => {
  const err = configError(t, { LOG_LEVEL: 'verbose' });
  t.match(err.problems, [/^LOG_LEVEL must be one of .*"verbose"/]);
});

t.test('a DATABASE_URL that is not postgres:// is refused with a ConfigError naming DATABASE_URL', async (t) => {
  const err = configError(t, { DATABASE_URL: 'mysql://db.example/sso' });
  t.match(err.problems, [/^DATABASE_URL must be a postgres:\/\/ or postgresql:\/\/ URL/]);
  t.notMatch(err.message, 'db.example', 'the URL, which may hold a password, is not echoed');
  t.equal(loadConfig({ DATABASE_URL: 'postgresql://u:p@db/sso' }).databaseUrl, 'postgresql://u:p@db/sso');
});

t.test('argon2 parameters below the OWASP minimum are refused naming the variable', async (t) => {
  t.match(configError(t, { ARGON2_MEMORY_KIB: '4096' }).problems, [/^ARGON2_MEMORY_KIB must be a whole number from 7168/]);
  t.match(configError(t, { ARGON2_TIME_COST: '0' }).problems, [/^ARGON2_TIME_COST must be a whole number from 1/]);
  t.match(configError(t, { ARGON2_PARALLELISM: '0' }).problems, [/^ARGON2_PARALLELISM must be a whole number from 1/]);
  // m=19 MiB with t=1 is 19,456 KiB-passes, under OWASP's weakest equivalent (7 MiB x 5 = 35,840).
  t.match(configError(t, { ARGON2_TIME_COST: '1' }).problems, [/^ARGON2_MEMORY_KIB x ARGON2_TIME_COST must be at least 35840/]);
  t.same(loadConfig({ ARGON2_MEMORY_KIB: '7168', ARGON2_TIME_COST: '5' }).argon2, { memoryKiB: 7168, timeCost: 5, parallelism: 1 });
});

t.test('several bad variables are all listed in one error', async (t) => {
  const err = configError(t, {
    PORT: 'abc',
    LOG_LEVEL: 'loud',
    DATABASE_URL: 'sqlite:///tmp/x',
    BASE_URL: 'http://id.example.com',
    ARGON2_MEMORY_KIB: '1',
    ...KEYS,
  });
  const names = err.problems.map((p) => /^[A-Z_0-9]+/.exec(p)?.[0]);
  t.same(names.sort(), ['ARGON2_MEMORY_KIB', 'BASE_URL', 'DATABASE_URL', 'LOG_LEVEL', 'PORT']);
  for (const name of names) t.match(err.message, name!);
});

t.test('NODE_ENV=production with nothing else set still loads', async (t) => {
  const config = loadConfig({ NODE_ENV: 'production' });
  t.equal(config.issuer, 'http://localhost:3000/sso');
  t.equal(config.port, 3000);
});

t.test('blank values fall back to their defaults', async (t) => {
  const config = loadConfig({ PORT: '', LOG_LEVEL: '  ', DATABASE_URL: '', BASE_URL: '' });
  t.equal(config.port, 3000);
  t.equal(config.logLevel, 'info');
  t.equal(config.databaseUrl, undefined);
  t.equal(config.issuer, 'http://localhost:3000/sso');
});

t.test('issue 16 finding 8: an issuer outside localhost does not start without KEYS_ENCRYPTION_SECRET', async (t) => {
  const err = configError(t, { BASE_URL: 'https://id.example.com' });
  t.equal(err.problems.length, 1);
  t.match(err.problems[0], /^KEYS_ENCRYPTION_SECRET must be set on an issuer outside localhost/);
  t.match(err.problems[0], /ALLOW_UNENCRYPTED_KEYS=true/, 'the message names the opt-out');
  t.equal(
    loadConfig({ BASE_URL: 'https://id.example.com', ALLOW_UNENCRYPTED_KEYS: 'true' }).keysEncryptionSecret,
    undefined,
    'the explicit opt-out',
  );
  t.ok(loadConfig({ BASE_URL: 'https://id.example.com', ...KEYS }).keysEncryptionSecret, 'with the secret');
  for (const base of ['http://localhost:3000', 'http://127.0.0.1:4000', 'http://[::1]:3000']) {
    t.equal(loadConfig({ BASE_URL: base }).keysEncryptionSecret, undefined, `${base}: a development issuer starts without it`);
  }
});

t.test('without BASE_URL the issuer follows PORT (and a loopback HOST): PORT=4000 alone announces :4000', async (t) => {
  t.equal(loadConfig({ PORT: '4000' }).issuer, 'http://localhost:4000/sso');
  t.equal(loadConfig({ PORT: '4000', HOST: '127.0.0.1' }).issuer, 'http://127.0.0.1:4000/sso');
  t.equal(loadConfig({ PORT: '4000', HOST: '::1' }).issuer, 'http://[::1]:4000/sso');
  t.equal(loadConfig({ PORT: '4000', HOST: '0.0.0.0' }).issuer, 'http://localhost:4000/sso', 'a wildcard HOST is no URL host');
  t.equal(loadConfig({ PORT: '4000', BASE_URL: 'http://localhost:3000' }).issuer, 'http://localhost:3000/sso', 'BASE_URL wins');
  t.equal(loadConfig({}).issuer, 'http://localhost:3000/sso');
});

t.test('BRAND_*: the name defaults to TOTP_ISSUER, the logo is https or a local path, the colour keeps WCAG AA contrast', async (t) => {
  t.same(loadConfig({}).brand, { name: 'localhost', logoUrl: null, color: null });
  t.equal(loadConfig({ TOTP_ISSUER: 'Acme SSO' }).brand.name, 'Acme SSO', 'the authenticator apps and the pages say the same name');
  t.same(loadConfig({ BRAND_NAME: 'Acme', BRAND_LOGO_URL: '/static/logo.svg', BRAND_COLOR: '#0B5FFF' }).brand, {
    name: 'Acme',
    logoUrl: '/static/logo.svg',
    color: '#0b5fff',
  });
  t.equal(loadConfig({ BRAND_LOGO_URL: 'https://cdn.example/acme.png' }).brand.logoUrl, 'https://cdn.example/acme.png');
  t.same(configError(t, { BRAND_LOGO_URL: 'http://cdn.example/acme.png' }).problems, [
    'BRAND_LOGO_URL must be an https URL or a path on this server starting with / (got "http://cdn.example/acme.png")',
  ]);
  t.match(configError(t, { BRAND_LOGO_URL: '//cdn.example/acme.png' }).problems[0], 'BRAND_LOGO_URL must be');
  t.same(configError(t, { BRAND_COLOR: 'blue' }).problems, ['BRAND_COLOR must be a colour as #rrggbb (got "blue")']);
  // WCAG 2.1 1.4.3: #767676 is the lightest grey with 4.5:1 against white; #777777 has 4.48:1.
  t.equal(loadConfig({ BRAND_COLOR: '#767676' }).brand.color, '#767676');
  t.same(configError(t, { BRAND_COLOR: '#777777' }).problems, [
    'BRAND_COLOR #777777 is too light: white text on it has a contrast of 4.48:1, and WCAG 2.1 AA asks for 4.5:1 (pick a darker shade)',
  ]);
  t.match(configError(t, { BRAND_NAME: 'x'.repeat(65) }).problems[0], 'BRAND_NAME must be at most 64 characters');
});

t.test('DEFAULT_LOCALE is en unless set, and one of the languages the pages speak', async (t) => {
  t.equal(loadConfig({}).defaultLocale, 'en');
  t.equal(loadConfig({ DEFAULT_LOCALE: 'de' }).defaultLocale, 'de');
  t.same(configError(t, { DEFAULT_LOCALE: 'ja' }).problems, ['DEFAULT_LOCALE must be one of en, de, fr (got "ja")']);
});
