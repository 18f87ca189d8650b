// Every scenario by name, in the order they run.
import type { ScenarioName } from '../options.js';
import { authorize } from './authorize.js';
import { clientCredentials } from './client-credentials.js';
import { discovery, jwks } from './documents.js';
import { fullFlow } from './full-flow.js';
import { password } from './password.js';
import { refresh } from './refresh.js';
import type { Scenario } from './scenario.js';
import { token, tokenJwt } from './token.js';
import { userinfo } from './userinfo.js';
import { webhooks } from './webhooks.js';

export const SCENARIO_IMPLEMENTATIONS: Readonly<Record<ScenarioName, Scenario>> = {
  discovery,
  jwks,
  authorize,
  token,
  'token-jwt': tokenJwt,
  userinfo,
  'full-flow': fullFlow,
  password,
  refresh,
  client_credentials: clientCredentials,
  webhooks,
};
