-- Organizations (issue 40): one provider for a B2B product's many customers. An organization has a slug (unique, the
-- form a URL or `organization` parameter names it by), a display name, branding shown on its sign-in pages, and its
-- policies, one versioned JSON value each (src/domain/organizations/organization-settings.ts). Its members, domains,
-- invitations and connections hang off it and go with it.
CREATE TABLE organizations (
  id            uuid PRIMARY KEY,
  slug          text NOT NULL CHECK (slug ~ '^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$'),
  display_name  text NOT NULL CHECK (length(display_name) BETWEEN 1 AND 200),
  branding      jsonb NOT NULL DEFAULT '{}',
  policies      jsonb NOT NULL DEFAULT '{}',
  created_at    timestamptz NOT NULL,
  updated_at    timestamptz NOT NULL
);
CREATE UNIQUE INDEX organizations_slug_key ON organizations (slug);

-- The roles an organization defines beside the two every organization has (admin, member).
CREATE TABLE organization_roles (
  organization_id  uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  name             text NOT NULL CHECK (name ~ '^[a-z0-9][a-z0-9_:.-]{0,62}$'),
  description      text,
  created_at       timestamptz NOT NULL,
  PRIMARY KEY (organization_id, name)
);

-- A user's membership: roles by name (admin, member, or the organization's own), and how it came (source).
CREATE TABLE organization_members (
  organization_id  uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  user_id          uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  roles            text[] NOT NULL DEFAULT '{member}',
  source           text NOT NULL CHECK (source IN ('admin', 'invitation', 'domain', 'scim', 'connection')),
  joined_at        timestamptz NOT NULL,
  PRIMARY KEY (organization_id, user_id)
);
-- Which organizations a user belongs to: the picker after sign-in, the claims, the account page.
CREATE INDEX organization_members_user_idx ON organization_members (user_id);

-- A domain an organization claims. Proven by a TXT record at _sso-verify.{domain} holding the claim's token; then
-- verified_at is set and re-checked periodically (checked_at, failures). Several organizations may claim a domain,
-- only one may hold it verified (the partial unique index): home-realm discovery reads that one.
CREATE TABLE organization_domains (
  organization_id     uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  domain              text NOT NULL CHECK (domain = lower(domain) AND length(domain) BETWEEN 1 AND 253),
  verification_token  text NOT NULL,
  verified_at         timestamptz,
  checked_at          timestamptz,
  check_failures      integer NOT NULL DEFAULT 0,
  created_at          timestamptz NOT NULL,
  PRIMARY KEY (organization_id, domain)
);
CREATE UNIQUE INDEX organization_domains_verified_key ON organization_domains (domain) WHERE verified_at IS NOT NULL;
CREATE INDEX organization_domains_checked_idx ON organization_domains (checked_at) WHERE verified_at IS NOT NULL;

-- An invitation by email: a link whose token only its hash is kept of, single use, to that address only.
CREATE TABLE organization_invitations (
  id               uuid PRIMARY KEY,
  organization_id  uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  email            text NOT NULL,
  roles            text[] NOT NULL DEFAULT '{member}',
  token_hash       text NOT NULL UNIQUE,
  invited_by       text NOT NULL,
  created_at       timestamptz NOT NULL,
  expires_at       timestamptz NOT NULL,
  accepted_at      timestamptz,
  accepted_by      uuid REFERENCES users (id) ON DELETE SET NULL,
  revoked_at       timestamptz
);
CREATE INDEX organization_invitations_org_idx ON organization_invitations (organization_id, created_at);
CREATE INDEX organization_invitations_expires_at_idx ON organization_invitations (expires_at);

-- A connection may belong to one organization: then it is offered only to sign-ins for it or its domains.
ALTER TABLE connections ADD COLUMN organization_id uuid REFERENCES organizations (id) ON DELETE CASCADE;
CREATE INDEX connections_organization_idx ON connections (organization_id) WHERE organization_id IS NOT NULL;

-- Whether a client's sign-ins name an organization: none (never), allow, require.
ALTER TABLE clients ADD COLUMN organization_usage text NOT NULL DEFAULT 'none'
  CHECK (organization_usage IN ('none', 'allow', 'require'));

-- The organization a grant is for, from the interaction to the code, the refresh token and the access token. Removing
-- the organization ends its grants; the partial indexes keep that delete cheap and cost nothing to a grant without one.
ALTER TABLE interactions ADD COLUMN organization_id uuid REFERENCES organizations (id) ON DELETE CASCADE;
ALTER TABLE authorization_codes ADD COLUMN organization_id uuid REFERENCES organizations (id) ON DELETE CASCADE;
ALTER TABLE refresh_tokens ADD COLUMN organization_id uuid REFERENCES organizations (id) ON DELETE CASCADE;
ALTER TABLE access_tokens ADD COLUMN organization_id uuid REFERENCES organizations (id) ON DELETE CASCADE;
CREATE INDEX interactions_organization_idx ON interactions (organization_id) WHERE organization_id IS NOT NULL;
CREATE INDEX authorization_codes_organization_idx ON authorization_codes (organization_id) WHERE organization_id IS NOT NULL;
CREATE INDEX refresh_tokens_organization_idx ON refresh_tokens (organization_id) WHERE organization_id IS NOT NULL;
CREATE INDEX access_tokens_organization_idx ON access_tokens (organization_id) WHERE organization_id IS NOT NULL;

-- Delegated administration: a SCIM token or a management-API client limited to one organization.
ALTER TABLE scim_tokens ADD COLUMN organization_id uuid REFERENCES organizations (id) ON DELETE CASCADE;
ALTER TABLE clients ADD COLUMN admin_organization_id uuid REFERENCES organizations (id) ON DELETE CASCADE;

-- Audit records and webhooks carry the organization; a subscription may be limited to one.
ALTER TABLE admin_audit_records ADD COLUMN organization_id uuid;
CREATE INDEX admin_audit_records_organization_idx ON admin_audit_records (organization_id, id) WHERE organization_id IS NOT NULL;
ALTER TABLE security_events ADD COLUMN organization_id uuid;
ALTER TABLE webhook_subscriptions ADD COLUMN organization_id uuid REFERENCES organizations (id) ON DELETE CASCADE;
