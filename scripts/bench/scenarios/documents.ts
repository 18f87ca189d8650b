// Discovery (OpenID Connect Discovery 1.0 4) and the JWKS: static documents, the cheapest requests there are.
import { steadyRun, type Scenario } from './scenario.js';

export const discovery: Scenario = {
  name: 'discovery',
  unit: 'req/s',
  run: (ctx, c) => steadyRun(ctx, c, (http) => ctx.oidc.document(http, ctx.oidc.discoveryPath, 'discovery')),
};

export const jwks: Scenario = {
  name: 'jwks',
  unit: 'req/s',
  run: (ctx, c) => steadyRun(ctx, c, (http) => ctx.oidc.document(http, ctx.oidc.jwksPath, 'jwks')),
};
