// Reading single-valued protocol parameters out of a parsed query or form body.
import { InvalidRequest } from '../errors/oauth-error.js';

export type RawParams = Record<string, string | string[] | undefined>;

/** The longest value we accept for any one parameter; longer values are refused, not truncated. */
export const MAX_PARAM_LENGTH = 4096;

/**
 * RFC 6749 3.1: "Request and response parameters MUST NOT be included more than once."
 * An empty value counts as absent ("Parameters sent without a value MUST be treated as if they
 * were omitted from the request").
 */
export function single(params: RawParams, name: string): string | undefined {
  const value = params[name];
  if (Array.isArray(value)) throw new InvalidRequest(`parameter ${name} must not be repeated`);
  if (value === undefined || value === '') return undefined;
  if (value.length > MAX_PARAM_LENGTH) throw new InvalidRequest(`parameter ${name} is too long`);
  return value;
}

export function required(params: RawParams, name: string): string {
  const value = single(params, name);
  if (value === undefined) throw new InvalidRequest(`parameter ${name} is required`);
  return value;
}
