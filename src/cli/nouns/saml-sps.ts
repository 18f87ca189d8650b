// sso-admin saml-sps list|show|add|update|remove, over src/domain/saml/idp/service-provider-admin.ts: the SAML service
// providers the provider signs people in to (issue 39), registered from their metadata.
import { readFileSync } from 'node:fs';
import {
  checkSpEntry,
  describeSamlKeys,
  listServiceProviders,
  rotateSamlKey,
  removeServiceProvider,
  setServiceProvider,
  showServiceProvider,
  updateServiceProvider,
  type SamlSpView,
} from '../../domain/saml/idp/service-provider-admin.js';
import { iso } from '../output.js';
import { UsageError, verb, type Invocation, type Noun, type OptionSpec, type Session } from '../command.js';

const ENTITY_ID = { name: 'entity-id', description: "the service provider's entityID, as its metadata names it" } as const;

const text = (input: Invocation, name: string) => input.options[name] as string | undefined;

function readMetadata(path: string | undefined): string | undefined {
  if (path === undefined) return undefined;
  try {
    return readFileSync(path, 'utf8');
  } catch {
    throw new UsageError(`--metadata-file: cannot read ${path}`);
  }
}

/** The settings the options give; only those given (update changes these, add takes defaults for the rest). */
function settingsFrom(input: Invocation): Record<string, unknown> {
  const entry: Record<string, unknown> = {};
  const xml = readMetadata(text(input, 'metadata-file'));
  if (xml !== undefined) entry.metadata_xml = xml;
  if (text(input, 'metadata-url') !== undefined) entry.metadata_url = text(input, 'metadata-url');
  if (text(input, 'name-id-format') !== undefined) entry.name_id_format = text(input, 'name-id-format');
  const attributes = input.options.attribute as string[] | undefined;
  if (attributes !== undefined) {
    entry.attributes = attributes.map((item) => {
      const eq = item.lastIndexOf('=');
      if (eq <= 0) throw new UsageError('--attribute takes NAME=FIELD, e.g. https://aws.amazon.com/SAML/Attributes/RoleSessionName=email');
      return { name: item.slice(0, eq), from: item.slice(eq + 1) };
    });
  }
  for (const [flag, field] of [
    ['sign-assertion', 'sign_assertion'],
    ['sign-response', 'sign_response'],
    ['encrypt-assertion', 'encrypt_assertion'],
    ['idp-initiated', 'idp_initiated'],
  ] as const) {
    const value = text(input, flag);
    if (value === undefined) continue;
    if (value !== 'yes' && value !== 'no') throw new UsageError(`--${flag} takes yes or no`);
    entry[field] = value === 'yes';
  }
  if (text(input, 'encryption-algorithm') !== undefined) entry.encryption_algorithm = text(input, 'encryption-algorithm');
  const groups = input.options['allowed-group'] as string[] | undefined;
  if (input.options['any-group'] === true) entry.allowed_groups = null;
  else if (groups !== undefined) entry.allowed_groups = groups;
  return entry;
}

const SETTINGS: Record<string, OptionSpec> = {
  'metadata-url': {
    type: 'string',
    value: 'URL',
    description:
      'where the SP publishes its metadata (https): read from there when no --metadata-file is given, and refreshed every 6 hours',
  },
  'name-id-format': {
    type: 'string',
    value: 'FORMAT',
    description: 'email, persistent (a pairwise id), transient or unspecified (default)',
  },
  attribute: {
    type: 'string',
    value: 'NAME=FIELD',
    multiple: true,
    description:
      'an attribute released, from email, username, user_id, name, given_name, family_name or groups (default: email, givenName, sn, displayName, groups)',
  },
  'sign-assertion': { type: 'string', value: 'yes|no', description: 'sign the assertion (default yes)' },
  'sign-response': { type: 'string', value: 'yes|no', description: 'sign the response (default yes)' },
  'encrypt-assertion': {
    type: 'string',
    value: 'yes|no',
    description: "encrypt the assertion for the encryption certificate of the SP's metadata (default no)",
  },
  'encryption-algorithm': {
    type: 'string',
    value: 'CIPHER',
    description:
      "the block cipher when the SP's metadata names none we support: aes256-gcm (default), aes128-gcm, aes256-cbc or aes128-cbc",
  },
  'idp-initiated': {
    type: 'string',
    value: 'yes|no',
    description: 'allow sign-ins started at {issuer}/saml/init?sp=ENTITY_ID (default no)',
  },
  'allowed-group': { type: 'string', value: 'GROUP', multiple: true, description: 'admit only members of these groups' },
};

function printSp(session: Session, sp: SamlSpView): void {
  session.out.fields([
    ['entity_id', sp.entity_id],
    ['metadata_url', sp.metadata_url],
    ['name_id_format', sp.name_id_format],
    ['attributes', sp.attributes.map((a) => `${a.name}=${a.from}`).join(' ')],
    ['sign_assertion', sp.sign_assertion],
    ['sign_response', sp.sign_response],
    ['encrypt_assertion', sp.encrypt_assertion],
    ['encryption_algorithm', sp.encryption_algorithm],
    ['encryption_method', sp.encryption_method],
    ['idp_initiated', sp.idp_initiated],
    ['allowed_groups', sp.allowed_groups?.join(' ') ?? null],
    ['acs', sp.acs.map((a) => `${a.location} (${a.binding}, ${a.index})`).join(' ')],
    ['authn_requests_signed', sp.authn_requests_signed],
    ['signing_certificates', sp.signing_certificates],
  ]);
}

export const samlSps: Noun = {
  name: 'saml-sps',
  summary: 'SAML 2.0 service providers people sign in to through the provider, registered from their metadata',
  verbs: [
    verb({
      name: 'list',
      summary: 'List every SAML service provider.',
      async run(session, input) {
        const all = await listServiceProviders(session.ctx);
        if (input.json) return session.out.json(all);
        session.out.table(
          ['entity id', 'name id', 'idp-initiated', 'acs'],
          all.map((sp) => [sp.entity_id, sp.name_id_format, sp.idp_initiated ? 'yes' : 'no', String(sp.acs.length)]),
          'no SAML service providers',
        );
      },
    }),
    verb({
      name: 'show',
      summary: 'Show one SAML service provider.',
      args: [ENTITY_ID],
      async run(session, input) {
        const sp = await showServiceProvider(session.ctx, input.args['entity-id']!);
        if (input.json) session.out.json(sp);
        else printSp(session, sp);
      },
    }),
    verb({
      name: 'add',
      summary: 'Register the service provider its metadata describes, or replace every setting of a registered one.',
      options: {
        'metadata-file': {
          type: 'string',
          value: 'FILE',
          description: "the SP's SAML metadata (its entityID, ACS, certificates); or --metadata-url",
        },
        ...SETTINGS,
      },
      notes: `Give the SP the provider's metadata: {issuer}/saml/metadata. Every option not given goes back to its
default: add replaces the whole entry, as a seed file entry does.`,
      prepare(input) {
        const entry = settingsFrom(input);
        if (entry.metadata_xml === undefined && entry.metadata_url === undefined)
          throw new UsageError('add needs --metadata-file or --metadata-url');
        // Metadata from a URL is read in run(), through the guarded fetch.
        if (entry.metadata_xml !== undefined) checkSpEntry(entry);
        return entry;
      },
      async run(session, input, entry: Record<string, unknown>) {
        const result = await setServiceProvider(session.ctx, entry);
        if (input.json) return session.out.json({ ...result.sp, created: result.created });
        session.out.line(`service provider "${result.sp.entity_id}" ${result.created ? 'added' : 'replaced'}`);
      },
    }),
    verb({
      name: 'update',
      summary: 'Change some settings of a SAML service provider (new metadata must name the same entityID).',
      args: [ENTITY_ID],
      options: {
        'metadata-file': { type: 'string', value: 'FILE', description: 'new metadata (a new certificate or ACS)' },
        ...SETTINGS,
        'any-group': { type: 'boolean', description: 'lift the limit to groups' },
      },
      prepare(input) {
        return settingsFrom(input);
      },
      async run(session, input, changes: Record<string, unknown>) {
        const sp = await updateServiceProvider(session.ctx, input.args['entity-id']!, changes);
        if (input.json) return session.out.json(sp);
        session.out.line(`service provider "${sp.entity_id}" updated`);
      },
    }),
    verb({
      name: 'keys',
      summary: "List the identity provider's SAML signing keys with their state (pending, active, retired, expired).",
      async run(session, input) {
        const all = await describeSamlKeys(session.ctx);
        if (input.json) return session.out.json(all);
        session.out.table(
          ['id', 'state', 'activates', 'retires', 'encrypted'],
          all.map((k) => [
            k.id.slice(0, 16),
            k.state,
            iso(k.activatesAt),
            k.retiresAt ? iso(k.retiresAt) : '-',
            k.encrypted ? 'yes' : 'no',
          ]),
          'no SAML keys yet (the first SAML request makes one)',
        );
      },
    }),
    verb({
      name: 'rotate-key',
      summary: 'Add a new SAML signing key: in the metadata at once, signing after the delay.',
      options: {
        delay: { type: 'string', value: 'SECONDS', description: 'seconds before the new key signs (default KEY_ACTIVATION_DELAY_SECONDS)' },
      },
      destructive: true,
      notes: `Service providers that pin the certificate must read the metadata again before the new key signs.`,
      prepare(input) {
        const delay = input.options.delay as string | undefined;
        if (delay !== undefined && !/^\d{1,9}$/.test(delay)) throw new UsageError('--delay must be a whole number of seconds');
        return { delay: delay === undefined ? undefined : Number(delay) };
      },
      async run(session, input, { delay }: { delay: number | undefined }) {
        await session.confirm(`Add a new SAML signing key, signing in ${delay ?? session.config.keyActivationDelaySeconds} s?`);
        const rotated = await rotateSamlKey(session.ctx, delay);
        if (input.json) return session.out.json({ id: rotated.id, activates_at: iso(rotated.activatesAt) });
        session.out.line(`SAML key ${rotated.id.slice(0, 16)} added; it signs from ${iso(rotated.activatesAt)}`);
      },
    }),
    verb({
      name: 'remove',
      summary: 'Remove a SAML service provider; its people can no longer sign in to it through the provider.',
      args: [ENTITY_ID],
      destructive: true,
      async run(session, input) {
        const entityId = input.args['entity-id']!;
        await showServiceProvider(session.ctx, entityId);
        await session.confirm(`Remove SAML service provider "${entityId}"?`);
        await removeServiceProvider(session.ctx, entityId);
        if (input.json) return session.out.json({ entity_id: entityId, removed: true });
        session.out.line(`service provider "${entityId}" removed`);
      },
    }),
  ],
};
