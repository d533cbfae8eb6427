import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { paginationQuery } from '../../../services/pagination';
import { createApiKeyInput } from '../../../services/api-keys';
import * as tenants from '../../../services/tenants';
import { ctxOf } from '../../auth';
import { exact } from '../shared/exact';
import { operation } from '../shared/operation';
import { Tenant, TenantApiKey, TenantPage, TenantUpdated, tenantParams } from './schemas';

/**
 * Tenant administration: platform-level, so every route needs tenants:admin, which only the
 * platform tenant's credentials hold (services/authenticate.ts drops it elsewhere).
 */
export const tenantRoutes: FastifyPluginAsyncZod = async (app) => {
  app.post(
    '/v1/tenants',
    operation({
      method: 'POST',
      scope: 'tenants:admin',
      operationId: 'createTenant',
      summary: 'Create a tenant (a team)',
      description: 'The new tenant has no key yet: issue its first admin key with `POST /v1/tenants/{tenantId}/api-keys`.',
      tag: 'tenants',
      body: tenants.createTenantInput,
      success: { status: 201, description: 'the tenant', schema: Tenant },
      errors: { 409: ['`conflict`: a tenant with this slug exists'] },
    }),
    async (request, reply) => {
      const tenant = await tenants.createTenant({ ctx: ctxOf(request), input: request.body });
      return reply.code(201).header('location', `/v1/tenants/${tenant.id}`).send(exact(Tenant, tenant));
    },
  );

  app.get(
    '/v1/tenants',
    operation({
      method: 'GET',
      scope: 'tenants:admin',
      operationId: 'listTenants',
      summary: 'List every tenant, newest first',
      tag: 'tenants',
      querystring: paginationQuery,
      success: { status: 200, description: 'a page of tenants', schema: TenantPage },
    }),
    async (request) => exact(TenantPage, await tenants.listTenants({ ctx: ctxOf(request), input: request.query })),
  );

  app.get(
    '/v1/tenants/:tenantId',
    operation({
      method: 'GET',
      scope: 'tenants:admin',
      operationId: 'getTenant',
      summary: 'Get a tenant',
      tag: 'tenants',
      params: tenantParams,
      success: { status: 200, description: 'the tenant', schema: Tenant },
    }),
    async (request) => exact(Tenant, await tenants.getTenant({ ctx: ctxOf(request), input: request.params })),
  );

  app.patch(
    '/v1/tenants/:tenantId',
    operation({
      method: 'PATCH',
      scope: 'tenants:admin',
      operationId: 'updateTenant',
      summary: 'Rename, disable or re-enable a tenant',
      description:
        '`disabled: true` refuses every credential of the tenant (API keys, JWTs naming it, dashboard links of its runs) with 401 from the next request on, until `disabled: false`; nothing is deleted. It also cancels every queued or running run of the tenant (`cancelled_runs` counts them) and its schedules fire no runs while it is disabled.',
      tag: 'tenants',
      params: tenantParams,
      body: tenants.patchTenantInput,
      success: { status: 200, description: 'the changed tenant, with the number of its runs cancelled', schema: TenantUpdated },
      errors: {
        409: ['`conflict`: the platform tenant cannot be disabled'],
        503: ['`service_unavailable`: the tenant was disabled but Temporal could not be reached to cancel its runs; disabling it again retries'],
      },
    }),
    async (request) => exact(TenantUpdated, await tenants.patchTenant({ ctx: ctxOf(request), input: { ...request.params, patch: request.body } })),
  );

  // The new key's secret is shown once: an Idempotency-Key replay answers without it.
  app.post(
    '/v1/tenants/:tenantId/api-keys',
    operation({
      method: 'POST',
      scope: 'tenants:admin',
      operationId: 'createTenantApiKey',
      summary: "Issue a key in a tenant (e.g. its first admin key)",
      description:
        'Like `POST /v1/api-keys`, in the named tenant: the caller grants only scopes it holds (403 otherwise). `tenants:admin` exists only in the platform tenant: asked for in another tenant it is a 400 on `scopes`.',
      tag: 'tenants',
      params: tenantParams,
      body: createApiKeyInput,
      success: { status: 201, description: 'the key, with its secret (`key`) this once', schema: TenantApiKey },
      errors: { 400: ['`scopes` names tenants:admin for a tenant other than the platform tenant'], 403: ['`scopes` names a scope the caller does not hold'] },
      config: { secretResponseFields: ['key'] },
    }),
    async (request, reply) => {
      const key = await tenants.createTenantApiKey({ ctx: ctxOf(request), input: { tenantId: request.params.tenantId, key: request.body } });
      return reply.code(201).header('location', `/v1/api-keys/${key.id}`).header('cache-control', 'no-store').send(exact(TenantApiKey, key));
    },
  );
};
