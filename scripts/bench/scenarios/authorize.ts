// The authorization endpoint with a signed-in, consented session: a code per request, no page shown.
import { steadyRun, type Scenario } from './scenario.js';

export const authorize: Scenario = {
  name: 'authorize',
  unit: 'codes/s',
  run: (ctx, c) => steadyRun(ctx, c, (http) => ctx.oidc.authorize(http, ctx.session)),
};
