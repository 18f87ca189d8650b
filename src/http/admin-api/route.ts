// How a management API route is declared: its method and path, the access it needs (read or write), its JSON schemas
// (params, query, headers, body, each response) and its handler. AdminApi registers it with Fastify and keeps the
// declaration for the OpenAPI document (openapi.ts), so the document is made from the schemas the routes validate with.
import type { FastifyInstance, FastifyReply, FastifyRequest, HTTPMethods } from 'fastify';
import type { AdminContext } from '../../domain/admin/admin.js';
import { actorOf, organizationScopeOf, type AdminAccess, type AdminPrincipal } from '../../domain/admin/principal.js';
import type { ProviderContext } from '../../domain/context.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Under /admin/api/v1: what the route needs of its caller. */
    adminAccess?: AdminAccess;
    /** Under /admin/api/v1: an organization-scoped caller may call the route (AdminRoute.organizationScoped). */
    adminOrganizationScoped?: boolean;
  }
  interface FastifyRequest {
    /** Under /admin/api/v1: who calls, once authenticated (src/http/admin-api/authenticate.ts); else null. */
    adminPrincipal: AdminPrincipal | null;
  }
}

export type JsonSchema = Record<string, unknown>;

export interface AdminRoute {
  method: Extract<HTTPMethods, 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'>;
  /** Fastify's path syntax, below the prefix: /clients/:client_id. */
  url: string;
  access: AdminAccess;
  /**
   * Delegated administration (issue 40): a caller limited to one organization (an organization-scoped API client) may
   * call the route, whose domain functions keep it to that organization (ctx.organizationScope). Unset: such a caller
   * is refused with 403 before anything else (authenticate.ts): a provider-wide resource is no organization's.
   */
  organizationScoped?: boolean;
  /** The OpenAPI operation's id and summary, and its tag (the resource). */
  operationId: string;
  summary: string;
  tag: string;
  params?: JsonSchema;
  querystring?: JsonSchema;
  headers?: JsonSchema;
  body?: JsonSchema;
  /** Every answer but the problems (which every route shares), by status. */
  response: Record<number, JsonSchema>;
  handler(request: FastifyRequest, reply: FastifyReply, admin: AdminCall): Promise<unknown>;
}

/** What a handler acts with: the admin context of its caller (actor, origin) and the caller. */
export interface AdminCall {
  ctx: AdminContext;
  principal: AdminPrincipal;
}

/** One resource's routes (clients, users...): a function of the API it adds them to. */
export type AdminResource = (api: AdminApi) => void;

export class AdminApi {
  /** The routes declared so far, in order, for the OpenAPI document. */
  readonly routes: AdminRoute[] = [];

  constructor(
    readonly app: FastifyInstance,
    readonly ctx: ProviderContext,
    /** The API's path from the server's root, for the document's server URL. */
    readonly prefix: string,
  ) {}

  route(spec: AdminRoute): void {
    this.routes.push(spec);
    const { ctx } = this;
    this.app.route({
      method: spec.method,
      url: spec.url,
      config: { adminAccess: spec.access, adminOrganizationScoped: spec.organizationScoped === true },
      schema: {
        ...(spec.params ? { params: spec.params } : {}),
        ...(spec.querystring ? { querystring: spec.querystring } : {}),
        ...(spec.headers ? { headers: spec.headers } : {}),
        ...(spec.body ? { body: spec.body } : {}),
        response: spec.response,
      },
      handler: async (request, reply) => {
        const principal = request.adminPrincipal!;
        const call: AdminCall = {
          principal,
          ctx: {
            config: ctx.config,
            db: ctx.db,
            clock: ctx.clock,
            log: request.log,
            passwords: ctx.passwords,
            passwordPolicy: ctx.passwordPolicy,
            actor: actorOf(principal),
            origin: request.ip,
            organizationScope: organizationScopeOf(principal),
          },
        };
        reply.header('cache-control', 'no-store');
        return spec.handler(request, reply, call);
      },
    });
  }
}
