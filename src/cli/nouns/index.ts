// Every noun of sso-admin, in the order its help lists them. A new noun is a module beside these and one more
// entry here.
import type { Noun } from '../command.js';
import { clients } from './clients.js';
import { connections } from './connections.js';
import { devices } from './devices.js';
import { directories } from './directories.js';
import { groups } from './groups.js';
import { keys } from './keys.js';
import { orgs } from './orgs.js';
import { resources } from './resources.js';
import { rules } from './rules.js';
import { samlSps } from './saml-sps.js';
import { scimTokens } from './scim-tokens.js';
import { sessions } from './sessions.js';
import { users } from './users.js';
import { webhooks } from './webhooks.js';

export const NOUNS: readonly Noun[] = [
  clients,
  resources,
  users,
  keys,
  sessions,
  devices,
  rules,
  connections,
  directories,
  groups,
  webhooks,
  scimTokens,
  samlSps,
  orgs,
];
