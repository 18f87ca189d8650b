// A stand-in for GitHub on 127.0.0.1, answering as GitHub documents its OAuth app flow ("Authorizing OAuth apps":
// GET /login/oauth/authorize, POST /login/oauth/access_token with Accept: application/json, errors as 200 with an
// `error` member, PKCE S256) and its REST API ("Get the authenticated user": GET /user; "List email addresses for
// the authenticated user": GET /user/emails; a User-Agent header required). The person signed in at "GitHub" is
// whoever the test says; the authorization is granted at once.
import { createHash, randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Test } from 'tap';

export interface GithubUser {
  login: string;
  id: number;
  name: string | null;
  /** The public email of the profile (may be null, or not the primary one). */
  email: string | null;
  emails: Array<{ email: string; primary: boolean; verified: boolean; visibility: 'public' | 'private' | null }>;
}

export interface GithubStandIn {
  baseUrl: string;
  /** The user signed in at the stand-in; set before each sign-in. */
  signedIn: GithubUser | undefined;
  /** Token requests the stand-in received (their form, secret included, for the test to check). */
  tokenRequests: URLSearchParams[];
  /** The access tokens it issued, in order. */
  issuedTokens: string[];
}

export async function startGithubStandIn(t: Test, app: { clientId: string; clientSecret: string }): Promise<GithubStandIn> {
  const codes = new Map<string, { user: GithubUser; redirectUri: string; challenge: string | null }>();
  const tokens = new Map<string, GithubUser>();
  const standIn: GithubStandIn = { baseUrl: '', signedIn: undefined, tokenRequests: [], issuedTokens: [] };
  const json = (res: http.ServerResponse, status: number, body: unknown) =>
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify(body));

  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', standIn.baseUrl);
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method === 'GET' && url.pathname === '/login/oauth/authorize') {
        const redirectUri = url.searchParams.get('redirect_uri')!;
        if (url.searchParams.get('client_id') !== app.clientId || !standIn.signedIn) return json(res, 404, { message: 'Not Found' });
        const code = randomBytes(10).toString('hex');
        const method = url.searchParams.get('code_challenge_method');
        codes.set(code, {
          user: standIn.signedIn,
          redirectUri,
          challenge: method === 'S256' ? url.searchParams.get('code_challenge') : null,
        });
        const back = new URL(redirectUri);
        back.searchParams.set('code', code);
        back.searchParams.set('state', url.searchParams.get('state') ?? '');
        return res.writeHead(302, { location: back.href }).end();
      }
      if (req.method === 'POST' && url.pathname === '/login/oauth/access_token') {
        const form = new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
        standIn.tokenRequests.push(form);
        const grant = codes.get(form.get('code') ?? '');
        codes.delete(form.get('code') ?? '');
        const verifier = form.get('code_verifier') ?? '';
        const pkceOk = grant?.challenge == null || createHash('sha256').update(verifier).digest('base64url') === grant.challenge;
        if (form.get('client_id') !== app.clientId || form.get('client_secret') !== app.clientSecret) {
          return json(res, 200, {
            error: 'incorrect_client_credentials',
            error_description: 'The client_id and/or client_secret passed are incorrect.',
          });
        }
        if (!grant || grant.redirectUri !== form.get('redirect_uri') || !pkceOk) {
          return json(res, 200, { error: 'bad_verification_code', error_description: 'The code passed is incorrect or expired.' });
        }
        const token = `gho_${randomBytes(18).toString('hex')}`;
        tokens.set(token, grant.user);
        standIn.issuedTokens.push(token);
        return json(res, 200, { access_token: token, token_type: 'bearer', scope: 'read:user,user:email' });
      }
      if (req.method === 'GET' && (url.pathname === '/user' || url.pathname === '/user/emails')) {
        if (!req.headers['user-agent'])
          return json(res, 403, {
            message: 'Request forbidden by administrative rules. Please make sure your request has a User-Agent header.',
          });
        const user = tokens.get((req.headers.authorization ?? '').replace(/^(Bearer|token) /, ''));
        if (!user) return json(res, 401, { message: 'Bad credentials' });
        if (url.pathname === '/user/emails') return json(res, 200, user.emails);
        return json(res, 200, {
          login: user.login,
          id: user.id,
          node_id: `U_${user.id}`,
          type: 'User',
          name: user.name,
          email: user.email,
        });
      }
      json(res, 404, { message: 'Not Found' });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  standIn.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return standIn;
}
