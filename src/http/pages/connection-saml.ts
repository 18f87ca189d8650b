// A SAML connection's service-provider endpoints (issue 39): GET /connections/:id/saml/metadata, our SP metadata for
// its IdP's admin (SAML Metadata §2.4.4: entityID = that URL, AuthnRequestsSigned, WantAssertionsSigned, the ACS, our
// signing and encryption certificates), and POST /connections/:id/saml/acs, where the IdP posts its Response (SAML
// Bindings §3.5). A refused response is an error page: nothing is sent anywhere, nothing is signed in or stored.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Connection } from '../../domain/connections/connection.js';
import { enabledConnection } from '../../domain/connections/connections.js';
import type { UpstreamDirectory } from '../../domain/connections/upstream-directory.js';
import { UpstreamRefusal } from '../../domain/connections/upstream-errors.js';
import type { ProviderContext } from '../../domain/context.js';
import { finishSamlLogin } from '../../domain/saml/sp/saml-login.js';
import { MAX_ENCODED_MESSAGE_CHARS, MAX_RELAY_STATE_BYTES } from '../../domain/saml/bindings.js';
import { SamlError } from '../../domain/saml/saml-error.js';
import { serviceProviderMetadata } from '../../domain/saml/sp/service-provider.js';
import { samlUpstreamCookie, upstreamCookie } from '../cookies.js';
import { PAGE_HEADERS } from '../views/layout.js';
import { errorPage } from '../views/pages.js';
import { connectionIdParams } from './connection-params.js';
import { upstreamArrival, type OwnRefusal } from './upstream-arrival.js';
import { languageOf, refusalPage } from './upstream-pages.js';

// SAML Bindings §3.5.3: "RelayState data MUST NOT exceed 80 bytes"; the response's base64 is capped before decoding.
const acsSchema = {
  type: 'object',
  properties: {
    SAMLResponse: { type: 'string', maxLength: MAX_ENCODED_MESSAGE_CHARS },
    RelayState: { type: 'string', maxLength: MAX_RELAY_STATE_BYTES },
  },
  required: ['SAMLResponse'],
} as const;

interface AcsBody {
  SAMLResponse: string;
  RelayState?: string;
}

/** The form body's room: the capped SAMLResponse, form-urlencoded (its +, / and = escaped), and the RelayState. */
const ACS_BODY_LIMIT = MAX_ENCODED_MESSAGE_CHARS * 2;

export default async function connectionSamlRoutes(app: FastifyInstance, opts: { ctx: ProviderContext; directory: UpstreamDirectory }) {
  const { ctx, directory } = opts;
  const arriveAfter = upstreamArrival(ctx);

  async function samlConnection(id: string): Promise<Connection> {
    const connection = await enabledConnection(ctx, id);
    if (!connection || connection.kind !== 'saml') throw new UpstreamRefusal('unknown-connection', `no enabled saml connection ${id}`);
    return connection;
  }

  app.get<{ Params: { id: string } }>(
    '/connections/:id/saml/metadata',
    { schema: { params: connectionIdParams }, config: { html: true } },
    async (request, reply) => {
      const t = languageOf(ctx, request, undefined);
      const credentials = directory.samlCredentials;
      try {
        const connection = await samlConnection(request.params.id);
        if (!credentials) throw new UpstreamRefusal('upstream-down', 'no SAML key pair is configured');
        const [signing, published, decryption] = await Promise.all([
          credentials.signing(),
          credentials.published(),
          credentials.decryption(),
        ]);
        const xml = await serviceProviderMetadata(ctx.config.issuer, connection.id, {
          signing,
          published,
          decryption: decryption[0],
        });
        return reply.header('content-type', 'application/samlmetadata+xml; charset=utf-8').header('cache-control', 'no-cache').send(xml);
      } catch (err) {
        if (err instanceof UpstreamRefusal) return refusalPage(request, reply, t, err, request.params.id);
        throw err;
      }
    },
  );

  app.post<{ Params: { id: string }; Body: AcsBody }>(
    '/connections/:id/saml/acs',
    { schema: { params: connectionIdParams, body: acsSchema }, bodyLimit: ACS_BODY_LIMIT, config: { html: true } },
    async (request: FastifyRequest<{ Params: { id: string }; Body: AcsBody }>, reply: FastifyReply) => {
      const connectionId = request.params.id;
      const badResponse: OwnRefusal = (err, t) => {
        if (!(err instanceof SamlError)) return undefined;
        request.log.warn({ connection: connectionId, refusal: err.code, detail: err.description }, 'saml response refused');
        return reply
          .code(400)
          .headers(PAGE_HEADERS)
          .send(errorPage(t, t('connections.badResponse')));
      };
      return arriveAfter(
        request,
        reply,
        connectionId,
        async () => {
          const connection = await samlConnection(connectionId);
          if (!directory.samlCredentials) throw new UpstreamRefusal('upstream-down', 'no SAML key pair is configured');
          const browserSecret = request.cookies[samlUpstreamCookie(ctx.config).name] ?? request.cookies[upstreamCookie(ctx.config).name];
          const { identity, purpose } = await finishSamlLogin(ctx, directory.samlCredentials, {
            connection,
            samlResponse: request.body.SAMLResponse,
            relayState: request.body.RelayState,
            browserSecret,
          });
          return { connection, identity, purpose, tokens: undefined, browserSecret };
        },
        badResponse,
      );
    },
  );
}
