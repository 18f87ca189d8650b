// The client_credentials grant (RFC 6749 4.4) for the client's registered scope.
import { steadyRun, type Scenario } from './scenario.js';

export const clientCredentials: Scenario = {
  name: 'client_credentials',
  unit: 'tokens/s',
  run: (ctx, c) => steadyRun(ctx, c, (http) => ctx.oidc.clientCredentials(http)),
};
