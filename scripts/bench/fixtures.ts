// The bench client and user, written to a seed file and applied with the project's own `scripts/seed.ts`
// (which also brings the schema up to date), before the server starts.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PROJECT_DIR } from './project.js';

export interface BenchFixtures {
  clientId: string;
  clientSecret: string;
  /** Nothing listens there: redirects are read, never followed. */
  redirectUri: string;
  /** Registered for the client_credentials grant. */
  clientScope: string;
  username: string;
  password: string;
  /** A resource server wanting RFC 9068 JWT access tokens, which the client may ask for (the token-jwt scenario). */
  resource: string;
}

export function newFixtures(): BenchFixtures {
  return {
    clientId: 'bench-client',
    clientSecret: randomBytes(24).toString('base64url'),
    redirectUri: 'http://127.0.0.1:9/bench/callback',
    clientScope: 'bench.read bench.write',
    username: 'bench-user',
    password: randomBytes(18).toString('base64url'),
    resource: 'https://bench-api.example/',
  };
}

function seedFile(f: BenchFixtures) {
  return {
    clients: [
      {
        client_id: f.clientId,
        client_secret: f.clientSecret,
        client_name: 'Load benchmark client',
        token_endpoint_auth_method: 'client_secret_basic',
        redirect_uris: [f.redirectUri],
        grant_types: ['authorization_code', 'refresh_token', 'client_credentials'],
        scope: f.clientScope,
        allowed_resources: [f.resource],
      },
    ],
    resource_servers: [{ identifier: f.resource, scopes: { 'bench.api': 'Use the bench API' }, access_token_format: 'jwt' }],
    users: [
      {
        username: f.username,
        password: f.password,
        email: 'bench-user@example.test',
        email_verified: true,
        name: 'Bench User',
        given_name: 'Bench',
        family_name: 'User',
      },
    ],
  };
}

/** Runs `scripts/seed.ts` on the target database; its output goes to `log`. */
export async function seedFixtures(fixtures: BenchFixtures, env: NodeJS.ProcessEnv, log: fs.FileHandle): Promise<void> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'sso-bench-seed-'));
  try {
    const file = path.join(dir, 'seed.json');
    await fs.writeFile(file, JSON.stringify(seedFile(fixtures)), { mode: 0o600 });
    const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/seed.ts', file], {
      cwd: PROJECT_DIR,
      env,
      stdio: ['ignore', log.fd, log.fd],
    });
    const code = await new Promise<number | null>((resolve, reject) => {
      child.on('error', reject);
      child.on('exit', (c) => resolve(c));
    });
    if (code !== 0) throw new Error(`scripts/seed.ts exited with code ${code} (see the server log)`);
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}
