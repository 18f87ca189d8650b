// Adding, replacing, showing and removing upstream connections by hand, and removing a person's link to one: the
// seed file's entry and rules (seed-connections.ts). The client secret is never shown back, only whether there is one.
import {
  deleteConnectionRow,
  deleteLink,
  findConnectionRow,
  listConnectionRows,
  listLinksOfConnection,
  listLinksOfUser,
  upsertConnectionRow,
} from '../../storage/connections.js';
import { findUserByRef, inAdminTransaction, logAdminAction, NOT_RECORDED, type AdminContext } from '../admin/admin.js';
import { AdminError } from '../admin-error.js';
import { organizationInScope, requireProviderWide } from '../organizations/organization-scope.js';
import { findOrganizationById } from '../../storage/organizations.js';
import { callbackUrl, rowToConnection, type Connection } from './connection.js';
import { connectionColumns, connectionEntryProblems, type SeedConnection } from './seed-connections.js';
import type { OutboundDeps } from '../../outbound/guarded-fetch.js';
import { samlAcsUrl, samlMetadataUrl } from '../saml/sp/sp-urls.js';
import { openUpstreamTokens, type UpstreamTokens } from './upstream-tokens.js';

/** What an admin sees of a connection: everything but the secret, and the redirect URI to register upstream. */
export interface ConnectionView {
  id: string;
  display_name: string;
  kind: string;
  preset: string | null;
  issuer: string | null;
  authorization_endpoint: string | null;
  token_endpoint: string | null;
  userinfo_endpoint: string | null;
  client_id: string;
  has_client_secret: boolean;
  scopes: string[];
  claims: Connection['mapping'];
  provisioning: string;
  email_domains: string[];
  trust_amr: boolean;
  store_tokens: boolean;
  enabled: boolean;
  redirect_uri: string;
  links: number;
  /** The organization it belongs to (its slug), null when provider-wide (issue 40). */
  organization: string | null;
  organization_id: string | null;
  /** Kind saml: the IdP it trusts, and our SP metadata URL to give its admin. */
  saml?: {
    idp_entity_id: string;
    sso_url: string;
    sso_binding: string;
    slo_url: string | null;
    signing_certificates: number;
    metadata_url: string | null;
    metadata_refreshed_at: string | null;
    /** The IdP's metadata as it was read (what a console edit sends back when it came from a file). */
    metadata_xml: string;
    allow_unsolicited: boolean;
    attributes: Record<string, string[]>;
    sp_metadata_url: string;
  };
}

/**
 * Refuses an entry the seed file would refuse; without `config`, for checking a command line before the database
 * opens; with it, its URLs are held to the rule they are fetched under.
 */
export function checkConnectionEntry(entry: SeedConnection, config?: AdminContext['config']): void {
  const problems = connectionEntryProblems(entry, config);
  if (problems.length > 0) throw new AdminError(`connection "${String(entry.id)}" was refused: ${problems.join('; ')}`);
}

/**
 * An organization-scoped actor (organization-scope.ts) creates and changes only connections of its own organization:
 * the entry must name it, and a stored connection with the id must be one of its. A provider-wide actor may do all.
 */
async function connectionInScope(ctx: AdminContext, id: string, organization: string | null): Promise<void> {
  if (ctx.organizationScope === undefined) return;
  if (organization === null) requireProviderWide(ctx, 'manage a provider-wide connection');
  const org = await organizationInScope(ctx, organization!);
  const stored = await findConnectionRow(ctx.db, id);
  if (stored && stored.organization_id !== org.id) throw new AdminError(`no connection "${id}"`, 'not_found');
}

async function view(ctx: AdminContext, id: string): Promise<ConnectionView> {
  const row = await findConnectionRow(ctx.db, id);
  if (!row) throw new AdminError(`no connection "${id}"`, 'not_found');
  const mapped = rowToConnection(row);
  if ('problem' in mapped) throw new AdminError(`connection "${id}" is stored unreadably (${mapped.problem}): add it again`);
  const c = mapped.connection;
  return {
    id: c.id,
    display_name: c.displayName,
    kind: c.kind,
    preset: c.preset,
    issuer: c.issuer,
    authorization_endpoint: c.authorizationEndpoint,
    token_endpoint: c.tokenEndpoint,
    userinfo_endpoint: c.userinfoEndpoint,
    client_id: c.clientId,
    has_client_secret: c.secretSealed !== null,
    scopes: c.scopes,
    claims: c.mapping,
    provisioning: c.provisioning,
    email_domains: c.emailDomains,
    trust_amr: c.trustAmr,
    store_tokens: c.storeTokens,
    enabled: c.enabled,
    redirect_uri: c.kind === 'saml' ? samlAcsUrl(ctx.config.issuer, c.id) : callbackUrl(ctx.config.issuer, c.id),
    links: (await listLinksOfConnection(ctx.db, c.id)).length,
    organization_id: row.organization_id,
    organization: row.organization_id === null ? null : ((await findOrganizationById(ctx.db, row.organization_id))?.slug ?? null),
    ...(c.saml
      ? {
          saml: {
            idp_entity_id: c.saml.idpEntityId,
            sso_url: c.saml.ssoUrl,
            sso_binding: c.saml.ssoBinding,
            slo_url: c.saml.sloUrl,
            signing_certificates: c.saml.signingCertificates.length,
            metadata_url: c.saml.metadataUrl,
            metadata_refreshed_at: c.saml.metadataRefreshedAt,
            metadata_xml: c.saml.metadataXml,
            allow_unsolicited: c.saml.allowUnsolicited,
            attributes: c.saml.attributes,
            sp_metadata_url: samlMetadataUrl(ctx.config.issuer, c.id),
          },
        }
      : {}),
  };
}

export async function listConnections(ctx: AdminContext): Promise<ConnectionView[]> {
  const rows = await listConnectionRows(ctx.db);
  return Promise.all(rows.map((r) => view(ctx, r.id)));
}

export const showConnection = view;

/** Creates the connection, or replaces every field of the one with its id (its links stay). */
export async function setConnection(ctx: AdminContext, entry: SeedConnection): Promise<{ connection: ConnectionView; created: boolean }> {
  checkConnectionEntry(entry, ctx.config);
  await connectionInScope(ctx, entry.id, entry.organization ?? null);
  return inAdminTransaction(ctx, async (trx, tctx) => {
    const fetching = { config: ctx.config, outbound: (ctx as { outbound?: OutboundDeps }).outbound };
    const created = await upsertConnectionRow(trx, await connectionColumns(tctx, entry, fetching), ctx.clock());
    const { client_secret: secret, saml_metadata: metadata, ...fields } = entry;
    await logAdminAction(ctx, trx, {
      event: created ? 'admin.connection.created' : 'admin.connection.replaced',
      target: { type: 'connection', id: entry.id },
      changes: {
        ...fields,
        ...(secret !== undefined ? { client_secret: NOT_RECORDED } : {}),
        ...(metadata !== undefined ? { saml_metadata: `${metadata.length} characters` } : {}),
      },
      log: { connection: entry.id },
    });
    return { connection: await view(tctx, entry.id), created };
  });
}

/** Removes the connection and every link to it; its people keep their accounts. */
export async function removeConnection(ctx: AdminContext, id: string): Promise<void> {
  if (ctx.organizationScope !== undefined) await connectionInScope(ctx, id, ctx.organizationScope);
  await inAdminTransaction(ctx, async (trx) => {
    if (!(await deleteConnectionRow(trx, id))) throw new AdminError(`no connection "${id}"`, 'not_found');
    await logAdminAction(ctx, trx, { event: 'admin.connection.removed', target: { type: 'connection', id }, log: { connection: id } });
  });
}

export interface LinkView {
  connection: string;
  subject: string;
  user_id: string;
  created_at: Date;
  last_used_at: Date;
  /** When the kept upstream tokens arrived; null when none are kept. */
  tokens_stored_at: Date | null;
}

/** The links of a user (by username, email or id). */
export async function linksOfUser(ctx: AdminContext, userRef: string): Promise<LinkView[]> {
  const user = await findUserByRef(ctx.db, userRef);
  return (await listLinksOfUser(ctx.db, user.id)).map((l) => ({
    connection: l.connection_id,
    subject: l.subject,
    user_id: l.user_id,
    created_at: l.created_at,
    last_used_at: l.last_used_at,
    tokens_stored_at: l.tokens_stored_at,
  }));
}

export interface KeptTokensView {
  connection: string;
  subject: string;
  stored_at: Date;
  tokens: UpstreamTokens;
}

/**
 * The upstream tokens kept for a user's links to a connection (store_tokens), opened: for an admin who calls the
 * upstream's API for the person, as Auth0's read:user_idp_tokens allows. Each read is an admin action on record.
 */
export async function keptTokensOf(ctx: AdminContext, userRef: string, connectionId: string): Promise<KeptTokensView[]> {
  const user = await findUserByRef(ctx.db, userRef);
  const links = (await listLinksOfUser(ctx.db, user.id)).filter((l) => l.connection_id === connectionId);
  if (links.length === 0) throw new AdminError(`user "${userRef}" has no link to connection "${connectionId}"`);
  const kept: KeptTokensView[] = [];
  for (const l of links) {
    if (l.tokens_sealed === null || l.tokens_stored_at === null) continue;
    const tokens = await openUpstreamTokens(ctx, l.connection_id, l.subject, l.tokens_sealed);
    if (tokens) kept.push({ connection: l.connection_id, subject: l.subject, stored_at: l.tokens_stored_at, tokens });
  }
  // A read, recorded all the same: the tokens act for the person at the upstream.
  await inAdminTransaction(ctx, (trx) =>
    logAdminAction(ctx, trx, {
      event: 'admin.connection.tokens_read',
      target: { type: 'user', id: user.id },
      changes: { connection: connectionId, links: kept.length },
      log: { connection: connectionId, user: user.id, links: kept.length },
    }),
  );
  return kept;
}

/** Removes one link of a user's: that upstream account no longer signs them in (a next sign-in follows provisioning). */
export async function unlinkUser(ctx: AdminContext, userRef: string, connectionId: string, subject?: string): Promise<number> {
  const user = await findUserByRef(ctx.db, userRef);
  const links = (await listLinksOfUser(ctx.db, user.id)).filter(
    (l) => l.connection_id === connectionId && (subject === undefined || l.subject === subject),
  );
  if (links.length === 0) throw new AdminError(`user "${userRef}" has no link to connection "${connectionId}"`, 'not_found');
  await inAdminTransaction(ctx, async (trx) => {
    for (const l of links) await deleteLink(trx, user.id, l.connection_id, l.subject);
    await logAdminAction(ctx, trx, {
      event: 'admin.connection.unlinked',
      target: { type: 'user', id: user.id },
      changes: { connection: connectionId, links_removed: links.length },
      log: { connection: connectionId, user: user.id, links: links.length },
    });
  });
  return links.length;
}
