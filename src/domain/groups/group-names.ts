// What a group's name and description may be (issue 20): shared by the seed file, the command line and the API.

/** The longest group name: it travels in every token of the `groups` scope. */
export const MAX_GROUP_NAME_LENGTH = 100;
export const MAX_GROUP_DESCRIPTION_LENGTH = 500;
/** The most groups a client may be limited to. */
export const MAX_ALLOWED_GROUPS = 50;

// C0 and C1 controls, and the line and paragraph separators: a name is one line in a token and on a page.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;

/** What is wrong with a group name, or undefined: 1 to 100 characters, no controls, no space at either end. */
export function groupNameProblem(name: unknown): string | undefined {
  if (typeof name !== 'string' || name.length === 0) return 'name must be a non-empty string';
  if (name.length > MAX_GROUP_NAME_LENGTH) return `name must be at most ${MAX_GROUP_NAME_LENGTH} characters`;
  if (CONTROL.test(name)) return 'name must not contain control characters';
  if (name.trim() !== name) return 'name must not start or end with white space';
  return undefined;
}

/** What is wrong with a description, or undefined: absent, null, or a string of at most 500 characters. */
export function groupDescriptionProblem(description: unknown): string | undefined {
  if (description === undefined || description === null) return undefined;
  if (typeof description !== 'string') return 'description must be a string';
  if (description.length > MAX_GROUP_DESCRIPTION_LENGTH) return `description must be at most ${MAX_GROUP_DESCRIPTION_LENGTH} characters`;
  return undefined;
}

/**
 * What is wrong with a client's `allowed_groups`, or undefined: a list of group names, each once (in any case). An
 * empty list is a client that admits nobody; a client without the field is not limited.
 */
export function allowedGroupsProblem(value: unknown): string | undefined {
  if (!Array.isArray(value)) return 'allowed_groups must be a list of group names';
  if (value.length > MAX_ALLOWED_GROUPS) return `allowed_groups must name at most ${MAX_ALLOWED_GROUPS} groups`;
  for (const name of value) if (groupNameProblem(name) !== undefined) return 'allowed_groups must be a list of group names';
  const lower = value.map((n: string) => n.toLowerCase());
  if (new Set(lower).size !== lower.length) return 'allowed_groups names a group more than once';
  return undefined;
}
