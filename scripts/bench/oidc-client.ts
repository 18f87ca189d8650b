// The relying party's side of each operation, as lean as correctness allows (it runs inside the timed loops):
// PKCE S256, state and nonce on every authorization request, client_secret_basic at the token endpoint, and
// every answer checked, so that a broken server counts errors instead of looking fast.
import { createHash, randomBytes } from 'node:crypto';
import type { CookieJar } from './cookie-jar.js';
import { BenchError, httpErrorKind } from './errors.js';
import type { BenchFixtures } from './fixtures.js';
import { pathOn, type HttpClient } from './http-client.js';

export const SIGN_IN_SCOPE = 'openid profile email';
/** Asked once at the first sign-in so that the consent covers the refresh scenario too. */
export const OFFLINE_SCOPE = 'openid profile email offline_access';

export interface AuthRequest {
  path: string;
  state: string;
  nonce: string;
  verifier: string;
}

export interface IssuedCode {
  code: string;
  nonce: string;
  verifier: string;
}

export interface TokenSet {
  access_token: string;
  token_type: string;
  expires_in?: number;
  scope?: string;
  id_token?: string;
  refresh_token?: string;
}

interface TokenExpectations {
  idToken: boolean;
  refreshToken: boolean;
}

/** RFC 6749 2.3.1: each half form-url-encoded, then joined with ':' and base64-encoded. */
function basicAuth(id: string, secret: string): string {
  const encode = (v: string) => encodeURIComponent(v).replace(/%20/g, '+');
  return `Basic ${Buffer.from(`${encode(id)}:${encode(secret)}`).toString('base64')}`;
}

const JSON_ACCEPT = 'application/json';
const FORM = 'application/x-www-form-urlencoded';

export class OidcClient {
  readonly issuer: string;
  readonly discoveryPath: string;
  readonly authorizationPath: string;
  readonly tokenPath: string;
  readonly userinfoPath: string;
  readonly jwksPath: string;
  readonly jwksUri: string;
  private readonly basic: string;
  private readonly redirectParam: string;

  constructor(
    origin: URL,
    discovery: Record<string, unknown>,
    readonly fixtures: BenchFixtures,
  ) {
    const field = (name: string): string => {
      const value = discovery[name];
      if (typeof value !== 'string') throw new Error(`the discovery document has no ${name}`);
      return value;
    };
    this.issuer = field('issuer');
    if (this.issuer !== `${origin.origin}/sso`) throw new Error(`discovery names the issuer ${this.issuer}, expected ${origin.origin}/sso`);
    this.discoveryPath = pathOn(origin, `${this.issuer}/.well-known/openid-configuration`);
    this.authorizationPath = pathOn(origin, field('authorization_endpoint'));
    this.tokenPath = pathOn(origin, field('token_endpoint'));
    this.userinfoPath = pathOn(origin, field('userinfo_endpoint'));
    this.jwksUri = field('jwks_uri');
    this.jwksPath = pathOn(origin, this.jwksUri);
    this.basic = basicAuth(fixtures.clientId, fixtures.clientSecret);
    this.redirectParam = encodeURIComponent(fixtures.redirectUri);
  }

  /** A fresh request: random state and nonce, PKCE S256 (RFC 7636 4.2). */
  newAuthRequest(scope = SIGN_IN_SCOPE): AuthRequest {
    const random = randomBytes(56);
    const state = random.subarray(0, 12).toString('base64url');
    const nonce = random.subarray(12, 24).toString('base64url');
    const verifier = random.subarray(24).toString('base64url');
    const challenge = createHash('sha256').update(verifier).digest('base64url');
    const path =
      `${this.authorizationPath}?response_type=code&client_id=${encodeURIComponent(this.fixtures.clientId)}` +
      `&redirect_uri=${this.redirectParam}&scope=${encodeURIComponent(scope)}&state=${state}&nonce=${nonce}` +
      `&code_challenge=${challenge}&code_challenge_method=S256`;
    return { path, state, nonce, verifier };
  }

  /** Whether a Location sends the browser back to the client. */
  isClientRedirect(location: string | undefined): boolean {
    return location !== undefined && location.startsWith(`${this.fixtures.redirectUri}?`);
  }

  /** Reads the code from the redirect to the client: same state, this issuer (RFC 9207), no error. */
  codeFrom(location: string, request: AuthRequest): IssuedCode {
    const params = new URL(location).searchParams;
    const error = params.get('error');
    if (error) throw new BenchError(`authorize_error_${error}`, params.get('error_description') ?? '');
    const code = params.get('code');
    if (!code) throw new BenchError('authorize_no_code', location);
    if (params.get('state') !== request.state) throw new BenchError('authorize_state_mismatch', location);
    if (params.get('iss') !== this.issuer) throw new BenchError('authorize_iss_mismatch', location);
    return { code, nonce: request.nonce, verifier: request.verifier };
  }

  /** With a signed-in, consented session: straight back to the client with a code, no page. */
  async authorize(http: HttpClient, jar: CookieJar, scope = SIGN_IN_SCOPE): Promise<IssuedCode> {
    const request = this.newAuthRequest(scope);
    const cookie = jar.header(request.path);
    const res = await http.request('GET', request.path, cookie ? { cookie } : {});
    if (res.status !== 303 && res.status !== 302) throw new BenchError(`authorize_http_${res.status}`, res.body.slice(0, 200));
    const location = res.headers.location;
    if (!this.isClientRedirect(location)) throw new BenchError('authorize_not_to_client', String(location));
    return this.codeFrom(location!, request);
  }

  /** The code exchange; with `resource` (RFC 8707), for that resource server's access token. */
  async exchange(http: HttpClient, issued: IssuedCode, resource?: string): Promise<TokenSet> {
    const body =
      `grant_type=authorization_code&code=${encodeURIComponent(issued.code)}&redirect_uri=${this.redirectParam}` +
      `&code_verifier=${issued.verifier}${resource === undefined ? '' : `&resource=${encodeURIComponent(resource)}`}`;
    return this.token(http, 'token', body, { idToken: true, refreshToken: false });
  }

  /** RFC 6749 6, rotated: a new refresh token every time. */
  async refresh(http: HttpClient, refreshToken: string): Promise<TokenSet> {
    const body = `grant_type=refresh_token&refresh_token=${encodeURIComponent(refreshToken)}`;
    const tokens = await this.token(http, 'refresh', body, { idToken: true, refreshToken: true });
    if (tokens.refresh_token === refreshToken) throw new BenchError('refresh_not_rotated', 'the same refresh token came back');
    return tokens;
  }

  async clientCredentials(http: HttpClient): Promise<TokenSet> {
    const body = `grant_type=client_credentials&scope=${encodeURIComponent(this.fixtures.clientScope)}`;
    const tokens = await this.token(http, 'client_credentials', body, { idToken: false, refreshToken: false });
    // RFC 6749 4.4.3: "A refresh token SHOULD NOT be included."; no user, so no ID token.
    if (tokens.refresh_token !== undefined || tokens.id_token !== undefined)
      throw new BenchError('client_credentials_extra_tokens', Object.keys(tokens).join(','));
    if (tokens.scope !== this.fixtures.clientScope) throw new BenchError('client_credentials_scope', String(tokens.scope));
    return tokens;
  }

  private async token(http: HttpClient, step: string, body: string, expect: TokenExpectations): Promise<TokenSet> {
    const res = await http.request('POST', this.tokenPath, { authorization: this.basic, 'content-type': FORM, accept: JSON_ACCEPT }, body);
    if (res.status !== 200) throw new BenchError(httpErrorKind(step, res.status, res.body), res.body.slice(0, 200));
    let tokens: TokenSet;
    try {
      tokens = JSON.parse(res.body) as TokenSet;
    } catch {
      throw new BenchError(`${step}_not_json`, res.body.slice(0, 200));
    }
    if (typeof tokens.access_token !== 'string' || !tokens.access_token)
      throw new BenchError(`${step}_no_access_token`, res.body.slice(0, 200));
    if (!/^bearer$/i.test(tokens.token_type)) throw new BenchError(`${step}_not_bearer`, String(tokens.token_type));
    if (expect.idToken && typeof tokens.id_token !== 'string') throw new BenchError(`${step}_no_id_token`, Object.keys(tokens).join(','));
    if (expect.refreshToken && typeof tokens.refresh_token !== 'string')
      throw new BenchError(`${step}_no_refresh_token`, Object.keys(tokens).join(','));
    return tokens;
  }

  /** OIDC Core 5.3 with an RFC 6750 2.1 Authorization header. */
  async userinfo(http: HttpClient, accessToken: string): Promise<{ sub: string }> {
    const res = await http.request('GET', this.userinfoPath, { authorization: `Bearer ${accessToken}`, accept: JSON_ACCEPT });
    if (res.status !== 200) throw new BenchError(httpErrorKind('userinfo', res.status, res.body), res.body.slice(0, 200));
    let claims: { sub?: unknown };
    try {
      claims = JSON.parse(res.body) as { sub?: unknown };
    } catch {
      throw new BenchError('userinfo_not_json', res.body.slice(0, 200));
    }
    if (typeof claims.sub !== 'string') throw new BenchError('userinfo_no_sub', res.body.slice(0, 200));
    return { sub: claims.sub };
  }

  /** A static JSON document (discovery, JWKS): 200 and a JSON object. */
  async document(http: HttpClient, path: string, step: string): Promise<void> {
    const res = await http.request('GET', path, { accept: JSON_ACCEPT });
    if (res.status !== 200) throw new BenchError(`${step}_http_${res.status}`, res.body.slice(0, 200));
    if (!res.body.startsWith('{') || !res.body.endsWith('}')) throw new BenchError(`${step}_not_json`, res.body.slice(0, 200));
  }
}
