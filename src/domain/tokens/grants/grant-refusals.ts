// What a grant answers when its statement issued nothing: one table per grant from the name of the first condition
// the grant's row failed (its statement's table, src/storage/grant-statement.ts) to the refusal, so that the rule is
// checked in one place and only explained here. 'unknown': no such grant.
import type { OAuthError } from '../../../errors/oauth-error.js';
import type { ProviderContext } from '../../context.js';

/** A refusal for each condition name; `presented` is what the token request brought that the explanation needs. */
export type GrantRefusals<N extends string, P> = {
  readonly [K in N]: (ctx: ProviderContext, presented: P) => OAuthError | Promise<OAuthError>;
};
