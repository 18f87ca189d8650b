// The one place that decides what a client may learn from any thrown value.
import { InvalidRequest, OAuthError, ServerError, TemporarilyUnavailable } from './oauth-error.js';
import { isDatabaseUnavailable, isUnstorableText } from '../storage/database-errors.js';

export interface ClassifiedError {
  oauth: OAuthError;
  /** True when the cause is ours (a bug or an outage) and must be logged with its stack. */
  unexpected: boolean;
}

export function toOAuthError(err: unknown): ClassifiedError {
  if (err instanceof OAuthError) return { oauth: err, unexpected: false };
  if (isDatabaseUnavailable(err)) return { oauth: new TemporarilyUnavailable(), unexpected: true };
  if (isUnstorableText(err)) return { oauth: new InvalidRequest('the request holds a NUL character'), unexpected: false };
  return { oauth: new ServerError(), unexpected: true };
}
