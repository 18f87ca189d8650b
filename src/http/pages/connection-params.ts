// The route parameter every upstream connection route takes: the connection's id, checked by the same pattern the
// seed file and the command line check it by (CONNECTION_ID_PATTERN), so that no route looks up an id no entry can have.
import { CONNECTION_ID_PATTERN } from '../../domain/connections/connection.js';

export const connectionIdParams = {
  type: 'object',
  properties: { id: { type: 'string', pattern: CONNECTION_ID_PATTERN.source } },
  required: ['id'],
} as const;
