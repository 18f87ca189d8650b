// The connections the sign-in pages offer, and which one a request's idp_hint or login_hint sends the person to.
import { findConnectionRow, listConnectionRows } from '../../storage/connections.js';
import type { ConnectionRow } from '../../storage/schema.js';
import type { ProviderContext } from '../context.js';
import { rowToConnection, type Connection } from './connection.js';

function mapped(ctx: Pick<ProviderContext, 'log'>, row: ConnectionRow): Connection | undefined {
  const result = rowToConnection(row);
  if ('problem' in result) {
    ctx.log.warn({ connection: row.id, column: result.problem }, 'stored connection unreadable; left out');
    return undefined;
  }
  return result.connection;
}

/** The enabled connection with this id. */
export async function enabledConnection(ctx: ProviderContext, id: string): Promise<Connection | undefined> {
  const row = await findConnectionRow(ctx.db, id);
  const connection = row && mapped(ctx, row);
  return connection?.enabled ? connection : undefined;
}

export async function enabledConnections(ctx: ProviderContext): Promise<Connection[]> {
  return (await listConnectionRows(ctx.db)).map((row) => mapped(ctx, row)).filter((c): c is Connection => c?.enabled === true);
}

/**
 * Whether a sign-in for `organizationId` (null: for none) may go through the connection (issue 40): a provider-wide
 * connection serves every sign-in, an organization's serves the sign-ins for that organization only. The one rule
 * for the sign-in page's buttons, the hints that skip it, and the start of an upstream sign-in.
 */
export const servesSignIn = (connection: Pick<Connection, 'organizationId'>, organizationId: string | null): boolean =>
  connection.organizationId === null || connection.organizationId === organizationId;

/** The enabled connections a sign-in for `organizationId` (null: for none) may go through. */
export async function connectionsForSignIn(ctx: ProviderContext, organizationId: string | null): Promise<Connection[]> {
  return (await enabledConnections(ctx)).filter((c) => servesSignIn(c, organizationId));
}

/**
 * The connection the authorization request points at: its idp_hint by id, else the one whose email domains hold
 * the domain of a login_hint that is an address (OIDC Core 3.1.2.1 login_hint "MAY ... be an email address").
 */
export function hintedConnection(
  connections: readonly Connection[],
  hints: { idpHint?: string | undefined; loginHint: string | null },
): Connection | undefined {
  if (hints.idpHint !== undefined) return connections.find((c) => c.id === hints.idpHint);
  const at = hints.loginHint?.lastIndexOf('@') ?? -1;
  if (at < 1) return undefined;
  const domain = hints.loginHint!.slice(at + 1).toLowerCase();
  return connections.find((c) => c.emailDomains.some((d) => d.toLowerCase() === domain));
}
