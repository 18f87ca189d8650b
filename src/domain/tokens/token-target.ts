// Why a grant's statement stored no access token for the resource asked (RFC 8707 2.2): the refusals of the three
// target conditions every grant's table holds (src/storage/access-token-target.ts targetConditions).
import { InvalidTarget } from '../../errors/oauth-error.js';

export const TARGET_REFUSALS = {
  resource_granted: () => new InvalidTarget('the resource was not part of the authorization grant'),
  resource_named: () => new InvalidTarget('the grant is for several resources: name one'),
  audience_known: () => new InvalidTarget('the resource is not known to this server'),
} as const;
