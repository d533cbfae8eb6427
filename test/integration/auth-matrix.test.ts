import { generateKeyPairSync, randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateApiKey, hashApiKeySecret } from '../../src/auth/api-key';
import { SCOPES, TENANT_SCOPES, type Scope } from '../../src/auth/scopes';
import { insertApiKey } from '../../src/db/api-keys';
import { DEFAULT_TENANT_SLUG } from '../../src/db/tenants';
import { bootstrapDefaultTenant } from '../../src/services/bootstrap';
import { workflowIdForRun } from '../../src/temporal/constants';
import { createSuite, post } from '../helpers/api';
import { nowSeconds, signJwt } from '../helpers/jwt';
import { startStack, type Stack } from '../helpers/stack';

/**
 * The authorization matrix: every registered route × every kind of credential, from one table.
 * A route added to the app without a row here fails the completeness test below.
 */

interface Fixtures {
  chainId: string;
  endpointId: string;
  suiteId: string;
  runId: string;
  keyId: string;
  webhookId: string;
  /** The owner's tenant, as the platform administrator addresses it. */
  tenantId: string;
}

interface RouteCase {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** Exactly as registered; `:param`s are filled from the owner's fixtures. */
  path: string;
  /** The scope the route needs; null means any authenticated caller. */
  scope: Scope | null;
  body?: (f: Fixtures) => unknown;
  /** Path parameters that are not fixtures of the owner (e.g. a built-in preset's slug). */
  params?: Record<string, string>;
  /** Status for the owner's valid credential (proves authentication and authorization passed). */
  ok: number;
  /** The error code when `ok` is itself an error status (e.g. deleting something still in use). */
  okCode?: string;
  /**
   * Status for a valid key with every scope from another tenant: 403 when the route addresses a
   * resource of the owner's tenant; a list or create acts in the caller's own tenant instead. A
   * create whose body names the owner's resource is a 400 on that field (existence is not revealed).
   */
  foreign: number;
  /**
   * A platform route (tenants:admin): its valid credentials are the platform tenant's (the
   * bootstrap key, a platform user's JWT), "without the scope" is a platform key lacking
   * tenants:admin, and "another tenant" is the owner's tenant, whose credentials never hold it.
   */
  platform?: true;
}

const unique = () => `m-${randomUUID().slice(0, 8)}`;

const ROUTES: RouteCase[] = [
  { method: 'GET', path: '/v1/users/me', scope: null, ok: 200, foreign: 200 },
  { method: 'POST', path: '/v1/chains', scope: 'chains:write', body: () => ({ name: 'c', slug: unique() }), ok: 201, foreign: 201 },
  { method: 'GET', path: '/v1/chains', scope: 'chains:read', ok: 200, foreign: 200 },
  { method: 'GET', path: '/v1/chains/:chainId', scope: 'chains:read', ok: 200, foreign: 403 },
  { method: 'PATCH', path: '/v1/chains/:chainId', scope: 'chains:write', body: () => ({ name: 'renamed' }), ok: 200, foreign: 403 },
  // The owner's chain still has an endpoint and a suite: deleting it is refused after authorization.
  { method: 'DELETE', path: '/v1/chains/:chainId', scope: 'chains:write', ok: 409, okCode: 'conflict', foreign: 403 },
  {
    method: 'POST',
    path: '/v1/endpoints',
    scope: 'endpoints:write',
    body: (f) => ({ chain_id: f.chainId, name: 'e', url: 'http://127.0.0.1:9/' }),
    ok: 201,
    foreign: 400,
  },
  { method: 'GET', path: '/v1/endpoints', scope: 'endpoints:read', ok: 200, foreign: 200 },
  { method: 'GET', path: '/v1/endpoints/:endpointId', scope: 'endpoints:read', ok: 200, foreign: 403 },
  { method: 'PATCH', path: '/v1/endpoints/:endpointId', scope: 'endpoints:write', body: () => ({ name: 'renamed' }), ok: 200, foreign: 403 },
  { method: 'DELETE', path: '/v1/endpoints/:endpointId', scope: 'endpoints:write', ok: 409, okCode: 'conflict', foreign: 403 },
  {
    method: 'POST',
    path: '/v1/suites',
    scope: 'suites:write',
    body: (f) => ({ chain_id: f.chainId, name: 's', config: { targets: [{ endpoint_id: f.endpointId }] } }),
    ok: 201,
    foreign: 400,
  },
  { method: 'GET', path: '/v1/suites', scope: 'suites:read', ok: 200, foreign: 200 },
  { method: 'GET', path: '/v1/suites/:suiteId', scope: 'suites:read', ok: 200, foreign: 403 },
  { method: 'PATCH', path: '/v1/suites/:suiteId', scope: 'suites:write', body: () => ({ description: 'changed' }), ok: 200, foreign: 403 },
  { method: 'DELETE', path: '/v1/suites/:suiteId', scope: 'suites:write', ok: 409, okCode: 'conflict', foreign: 403 },
  { method: 'POST', path: '/v1/suites/:suiteId/runs', scope: 'runs:write', ok: 201, foreign: 403 },
  // The fixture suite has no schedule: past authorization, pause/resume/trigger are 409 conflict.
  { method: 'POST', path: '/v1/suites/:suiteId/schedule/pause', scope: 'suites:write', ok: 409, okCode: 'conflict', foreign: 403 },
  { method: 'POST', path: '/v1/suites/:suiteId/schedule/resume', scope: 'suites:write', ok: 409, okCode: 'conflict', foreign: 403 },
  { method: 'POST', path: '/v1/suites/:suiteId/schedule/trigger', scope: 'suites:write', ok: 409, okCode: 'conflict', foreign: 403 },
  { method: 'GET', path: '/v1/runs', scope: 'runs:read', ok: 200, foreign: 200 },
  { method: 'GET', path: '/v1/runs/:runId', scope: 'runs:read', ok: 200, foreign: 403 },
  // The fixture run never finishes (no worker), so getting past auth means 409 run_not_finished,
  // and a cancel is only requested (202) without ever making the run terminal.
  { method: 'GET', path: '/v1/runs/:runId/verdict', scope: 'runs:read', ok: 409, foreign: 403 },
  { method: 'POST', path: '/v1/runs/:runId/cancel', scope: 'runs:write', ok: 202, foreign: 403 },
  { method: 'GET', path: '/v1/runs/:runId/metrics', scope: 'runs:read', ok: 200, foreign: 403 },
  { method: 'GET', path: '/v1/runs/:runId/samples', scope: 'runs:read', ok: 200, foreign: 403 },
  { method: 'GET', path: '/v1/runs/:runId/heads', scope: 'runs:read', ok: 200, foreign: 403 },
  // The trend reads runs (runs:read, not suites:read); another tenant's suite is 403 like the suite routes.
  { method: 'GET', path: '/v1/suites/:suiteId/trend', scope: 'runs:read', ok: 200, foreign: 403 },
  { method: 'POST', path: '/v1/webhooks', scope: 'webhooks:write', body: () => ({ url: 'http://127.0.0.1:9/hook', events: ['run.finished'] }), ok: 201, foreign: 201 },
  { method: 'GET', path: '/v1/webhooks', scope: 'webhooks:read', ok: 200, foreign: 200 },
  { method: 'GET', path: '/v1/webhooks/:webhookId', scope: 'webhooks:read', ok: 200, foreign: 403 },
  { method: 'PATCH', path: '/v1/webhooks/:webhookId', scope: 'webhooks:write', body: () => ({ events: ['run.failed'] }), ok: 200, foreign: 403 },
  // Each request gets a webhook of its own (see the test): a successful delete consumes it.
  { method: 'DELETE', path: '/v1/webhooks/:webhookId', scope: 'webhooks:write', ok: 204, foreign: 403 },
  { method: 'GET', path: '/v1/webhooks/:webhookId/deliveries', scope: 'webhooks:read', ok: 200, foreign: 403 },
  // The fixture run never finishes: past auth, acknowledging it is 409 run_not_finished.
  { method: 'POST', path: '/v1/runs/:runId/acknowledgements', scope: 'runs:write', body: () => ({ note: 'seen' }), ok: 409, foreign: 403 },
  { method: 'GET', path: '/v1/runs/:runId/acknowledgements', scope: 'runs:read', ok: 200, foreign: 403 },
  // The run exists (so another tenant's key is 403); past auth, there is no such acknowledgement.
  {
    method: 'GET',
    path: '/v1/runs/:runId/acknowledgements/:acknowledgementId',
    params: { acknowledgementId: '00000000-0000-4000-8000-000000000000' },
    scope: 'runs:read',
    ok: 404,
    okCode: 'not_found',
    foreign: 403,
  },
  { method: 'POST', path: '/v1/api-keys', scope: 'keys:admin', body: () => ({ name: 'k', scopes: ['runs:read'] }), ok: 201, foreign: 201 },
  { method: 'GET', path: '/v1/api-keys', scope: 'keys:admin', ok: 200, foreign: 200 },
  { method: 'GET', path: '/v1/api-keys/:keyId', scope: 'keys:admin', ok: 200, foreign: 403 },
  { method: 'DELETE', path: '/v1/api-keys/:keyId', scope: 'keys:admin', ok: 200, foreign: 403 },
  // Built-in presets are readable by every tenant and modifiable by none.
  { method: 'GET', path: '/v1/catalog/chains', scope: 'catalog:read', ok: 200, foreign: 200 },
  { method: 'GET', path: '/v1/catalog/chains/:presetId', params: { presetId: 'ethereum' }, scope: 'catalog:read', ok: 200, foreign: 200 },
  { method: 'POST', path: '/v1/catalog/chains', scope: 'catalog:write', body: () => ({ slug: unique(), name: 'Preset' }), ok: 201, foreign: 201 },
  { method: 'DELETE', path: '/v1/catalog/chains/:presetId', params: { presetId: 'ethereum' }, scope: 'catalog:write', ok: 403, okCode: 'forbidden', foreign: 403 },
  { method: 'GET', path: '/v1/catalog/workloads', scope: 'catalog:read', ok: 200, foreign: 200 },
  { method: 'GET', path: '/v1/catalog/workloads/:presetId', params: { presetId: 'evm-standard' }, scope: 'catalog:read', ok: 200, foreign: 200 },
  {
    method: 'POST',
    path: '/v1/catalog/workloads',
    scope: 'catalog:write',
    body: () => ({ slug: unique(), name: 'Preset', workload: { requests_per_target: 10 } }),
    ok: 201,
    foreign: 201,
  },
  { method: 'DELETE', path: '/v1/catalog/workloads/:presetId', params: { presetId: 'evm-standard' }, scope: 'catalog:write', ok: 403, okCode: 'forbidden', foreign: 403 },
  // Platform routes: every tenant's own keys (all tenant scopes) get 403; the owner's tenant is the one administered.
  { method: 'POST', path: '/v1/tenants', scope: 'tenants:admin', platform: true, body: () => ({ name: 'T', slug: unique() }), ok: 201, foreign: 403 },
  { method: 'GET', path: '/v1/tenants', scope: 'tenants:admin', platform: true, ok: 200, foreign: 403 },
  { method: 'GET', path: '/v1/tenants/:tenantId', scope: 'tenants:admin', platform: true, ok: 200, foreign: 403 },
  { method: 'PATCH', path: '/v1/tenants/:tenantId', scope: 'tenants:admin', platform: true, body: () => ({ name: 'Owner' }), ok: 200, foreign: 403 },
  {
    method: 'POST',
    path: '/v1/tenants/:tenantId/api-keys',
    scope: 'tenants:admin',
    platform: true,
    body: () => ({ name: 'k', scopes: ['runs:read'] }),
    ok: 201,
    foreign: 403,
  },
];

const CREDENTIALS = [
  'no token',
  'malformed header',
  'unknown key',
  'revoked key',
  'expired JWT',
  'key without the scope',
  'key of another tenant',
  'valid key',
  'valid JWT',
] as const;
type Credential = (typeof CREDENTIALS)[number];

function expectedStatus(route: RouteCase, credential: Credential): number {
  switch (credential) {
    case 'no token':
    case 'malformed header':
    case 'unknown key':
    case 'revoked key':
    case 'expired JWT':
      return 401;
    case 'key without the scope':
      return route.scope === null ? route.ok : 403;
    case 'key of another tenant':
      return route.foreign;
    case 'valid key':
    case 'valid JWT':
      return route.ok;
  }
}

const ERROR_CODES: Record<number, string> = { 400: 'validation_error', 401: 'unauthorized', 403: 'forbidden', 409: 'run_not_finished' };

/**
 * Public on purpose, so outside the matrix: the OpenAPI document and its browsable reference, the
 * rvs file's JSON Schema (for editors), the dashboard, whose capability is the signed token in its
 * link (tested in dashboard.test.ts), and the orchestrators' probes (health.test.ts).
 */
const isPublic = (route: string) =>
  / \/(docs|dashboard)(\/|$)/.test(route) ||
  ['GET /v1/openapi.json', 'GET /v1/schemas/rvs-file.json', 'GET /healthz', 'GET /readyz'].includes(route);

/** "METHOD /path" for every route the app registered (HEAD is Fastify's automatic twin of GET). */
function registeredRoutes(app: FastifyInstance): string[] {
  const routes: string[] = [];
  const parents: string[] = [];
  for (const line of app.printRoutes({ commonPrefix: false }).split('\n')) {
    const match = /^((?:│ {3}| {4})*)[├└]── (\S+)(?: \(([^)]*)\))?$/.exec(line);
    if (!match) continue;
    const depth = match[1]!.length / 4;
    const path = (parents[depth - 1] ?? '') + match[2]!;
    parents[depth] = path;
    parents.length = depth + 1;
    for (const method of match[3]?.split(', ') ?? []) if (method !== 'HEAD') routes.push(`${method} ${path}`);
  }
  return routes.filter((route) => !isPublic(route)).sort();
}

describe('authorization matrix', () => {
  const signing = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const ISSUER = 'https://idp.matrix.test/';
  const AUDIENCE = 'rvs-matrix';
  let stack: Stack;
  let fixtures: Fixtures;
  let headers: (credential: Credential, route: RouteCase) => Record<string, string>;
  let platformKey: string;
  let newWebhook: () => Promise<string>;
  const runIds: string[] = [];

  beforeAll(async () => {
    stack = await startStack({
      worker: false,
      env: {
        RVS_JWT_PUBLIC_KEY: signing.publicKey.export({ type: 'spki', format: 'pem' }).toString(),
        RVS_JWT_ISSUER: ISSUER,
        RVS_JWT_AUDIENCE: AUDIENCE,
        RVS_ALLOW_PRIVATE_WEBHOOKS: 'true',
      },
    });
    const owner = await stack.newTenant();
    const foreign = await stack.newTenant();
    const setup = await createSuite(stack.app, owner.auth, { candidates: ['http://127.0.0.1:9/'] });
    const run = await post<{ id: string }>(stack.app, `/v1/suites/${setup.suiteId}/runs`, owner.auth);
    expect(run.status).toBe(201);
    runIds.push(run.body.id);
    const target = await post<{ id: string }>(stack.app, '/v1/api-keys', owner.auth, { name: 'target', scopes: ['runs:read'] });
    const revoked = await post<{ id: string; key: string }>(stack.app, '/v1/api-keys', owner.auth, { name: 'revoked', scopes: [...TENANT_SCOPES] });
    expect((await stack.app.inject({ method: 'DELETE', url: `/v1/api-keys/${revoked.body.id}`, headers: owner.auth })).statusCode).toBe(200);
    fixtures = {
      chainId: setup.chainId,
      endpointId: setup.endpointIds[0]!,
      suiteId: setup.suiteId,
      runId: run.body.id,
      keyId: target.body.id,
      webhookId: '',
      tenantId: owner.tenantId,
    };
    newWebhook = async () => {
      const hook = await post<{ id: string }>(stack.app, '/v1/webhooks', owner.auth, { url: 'http://127.0.0.1:9/hook', events: ['run.finished'] });
      expect(hook.status).toBe(201);
      return hook.body.id;
    };
    fixtures.webhookId = await newWebhook();

    // One key per route scope, in the owner's tenant, holding every scope but that one.
    const withoutScope = new Map<Scope | null, string>();
    for (const scope of new Set(ROUTES.map((r) => r.scope))) {
      const key = generateApiKey();
      const scopes = scope === null ? [] : SCOPES.filter((s) => s !== scope);
      await insertApiKey(stack.sql, { tenantId: owner.tenantId, name: `without ${scope}`, prefix: key.prefix, secretHash: hashApiKeySecret(key.secret), scopes });
      withoutScope.set(scope, key.key);
    }
    const jwt = (exp: number, tenant = owner.tenantId) =>
      signJwt({ iss: ISSUER, aud: AUDIENCE, sub: 'matrix-user', tenant_id: tenant, exp, scope: SCOPES.join(' ') }, { alg: 'RS256', key: signing.privateKey });
    const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

    // The platform tenant as `npm start` leaves it (RVS_BOOTSTRAP_API_KEY), and one of its keys without tenants:admin.
    const bootstrap = generateApiKey().key;
    await bootstrapDefaultTenant(stack.sql, bootstrap);
    platformKey = bootstrap;
    const narrow = await post<{ key: string }>(stack.app, '/v1/api-keys', bearer(bootstrap), { name: 'no tenants:admin', scopes: [...TENANT_SCOPES] });
    expect(narrow.status).toBe(201);

    headers = (credential, route) => {
      switch (credential) {
        case 'no token':
          return {};
        case 'malformed header':
          return { authorization: `Token ${owner.key}` };
        case 'unknown key':
          return bearer(generateApiKey().key);
        case 'revoked key':
          return bearer(revoked.body.key);
        case 'expired JWT':
          return bearer(jwt(nowSeconds() - 600));
        case 'key without the scope':
          return bearer(route.platform ? narrow.body.key : withoutScope.get(route.scope)!);
        case 'key of another tenant':
          return route.platform ? owner.auth : foreign.auth;
        case 'valid key':
          return route.platform ? bearer(bootstrap) : owner.auth;
        case 'valid JWT':
          return bearer(jwt(nowSeconds() + 300, route.platform ? DEFAULT_TENANT_SLUG : owner.tenantId));
      }
    };
  });

  afterAll(async () => {
    // No worker runs here: the queued run workflows would otherwise linger on the dev server.
    await Promise.all(runIds.map((id) => stack.client.workflow.getHandle(workflowIdForRun(id)).terminate('test finished').catch(() => undefined)));
    await stack?.close();
  });

  it('has a row for every registered route, and a route for every row', () => {
    expect(registeredRoutes(stack.app)).toEqual(ROUTES.map((r) => `${r.method} ${r.path}`).sort());
  });

  const cases = ROUTES.flatMap((route) => CREDENTIALS.map((credential) => ({ route, credential, status: expectedStatus(route, credential) })));

  it.each(cases.map((c) => [`${c.route.method} ${c.route.path}`, c.credential, c.status, c] as const))(
    '%s with %s → %i',
    async (_route, _credential, status, { route, credential }) => {
      const own: Record<string, string> = route.method === 'DELETE' && route.path === '/v1/webhooks/:webhookId' ? { webhookId: await newWebhook() } : {};
      const url = route.path.replace(/:(\w+)/g, (_, name: string) => own[name] ?? route.params?.[name] ?? fixtures[name as keyof Fixtures]);
      const body = route.body?.(fixtures);
      const response = await stack.app.inject({
        method: route.method,
        url,
        headers: headers(credential, route),
        ...(body === undefined ? {} : { payload: body as object }),
      });
      expect(response.statusCode, response.body).toBe(status);
      const requestId = response.headers['x-request-id'];
      expect(requestId).toEqual(expect.any(String));
      if (status === 201 && response.headers.location) expect(response.headers.location).toMatch(/^\/v1\//);
      if (route.path === '/v1/suites/:suiteId/runs' && status === 201) runIds.push(response.json().id);
      if (status < 400) return;
      expect(response.json()).toEqual({
        error: {
          code: status === route.ok && route.okCode ? route.okCode : ERROR_CODES[status],
          message: expect.any(String),
          details: status === 401 || status === 403 ? [] : expect.any(Array),
          request_id: requestId,
        },
      });
    },
  );

  /**
   * Two tenants onboarded through the API alone (no SQL): the platform's bootstrap key creates A
   * and B with POST /v1/tenants and issues each its first admin key; each builds its own chain,
   * endpoint, suite, run and key through the API. Every route that addresses a resource by id
   * answers the other tenant's key as the matrix says, lists hold only the caller's own, neither
   * can administer tenants; disabling B refuses B's key and JWT (401) and leaves A alone; enabling
   * B restores it.
   */
  describe('two tenants onboarded through /v1/tenants', () => {
    interface Team {
      tenantId: string;
      auth: { authorization: string };
      jwt: () => { authorization: string };
      fixtures: Fixtures;
    }
    let a: Team;
    let b: Team;
    const platform = () => ({ authorization: `Bearer ${platformKey}` });

    async function onboard(name: string): Promise<Team> {
      const tenant = await post<{ id: string }>(stack.app, '/v1/tenants', platform(), { name, slug: unique() });
      expect(tenant.status).toBe(201);
      const issued = await post<{ key: string }>(stack.app, `/v1/tenants/${tenant.body.id}/api-keys`, platform(), { name: 'admin', scopes: [...TENANT_SCOPES] });
      expect(issued.status).toBe(201);
      const auth = { authorization: `Bearer ${issued.body.key}` };
      const setup = await createSuite(stack.app, auth, { candidates: ['http://127.0.0.1:9/'] });
      const run = await post<{ id: string }>(stack.app, `/v1/suites/${setup.suiteId}/runs`, auth);
      expect(run.status).toBe(201);
      runIds.push(run.body.id);
      const key = await post<{ id: string }>(stack.app, '/v1/api-keys', auth, { name: 'target', scopes: ['runs:read'] });
      const hook = await post<{ id: string }>(stack.app, '/v1/webhooks', auth, { url: 'http://127.0.0.1:9/hook', events: ['run.finished'] });
      expect(hook.status).toBe(201);
      const jwt = () => ({
        authorization: `Bearer ${signJwt(
          { iss: ISSUER, aud: AUDIENCE, sub: 'team-user', tenant_id: tenant.body.id, exp: nowSeconds() + 300, scope: SCOPES.join(' ') },
          { alg: 'RS256', key: signing.privateKey },
        )}`,
      });
      return {
        tenantId: tenant.body.id,
        auth,
        jwt,
        fixtures: { chainId: setup.chainId, endpointId: setup.endpointIds[0]!, suiteId: setup.suiteId, runId: run.body.id, keyId: key.body.id, webhookId: hook.body.id, tenantId: tenant.body.id },
      };
    }

    beforeAll(async () => {
      a = await onboard('Team A');
      b = await onboard('Team B');
    });

    const addressed = ROUTES.filter((route) => !route.platform && !route.params && route.path.includes(':'));
    const inject = (route: RouteCase, owner: Team, auth: { authorization: string }) => {
      const body = route.body?.(owner.fixtures);
      return stack.app.inject({
        method: route.method,
        url: route.path.replace(/:(\w+)/g, (_, name: string) => owner.fixtures[name as keyof Fixtures]),
        headers: auth,
        ...(body === undefined ? {} : { payload: body as object }),
      });
    };

    it.each(addressed.map((route) => [`${route.method} ${route.path}`, route] as const))(
      '%s: the other tenant\'s key and JWT get the matrix\'s answer for another tenant, both ways',
      async (_name, route) => {
        for (const [owner, other] of [
          [a, b],
          [b, a],
        ] as const) {
          for (const credential of [other.auth, other.jwt()]) {
            const response = await inject(route, owner, credential);
            expect(response.statusCode, response.body).toBe(route.foreign);
          }
          if (route.method === 'GET') expect((await inject(route, owner, owner.auth)).statusCode).toBe(route.ok);
        }
      },
    );

    it('lists hold only the caller\'s own resources, and neither tenant can administer tenants', async () => {
      for (const [self, other] of [
        [a, b],
        [b, a],
      ] as const) {
        for (const [list, own, foreign] of [
          ['/v1/chains', self.fixtures.chainId, other.fixtures.chainId],
          ['/v1/endpoints', self.fixtures.endpointId, other.fixtures.endpointId],
          ['/v1/suites', self.fixtures.suiteId, other.fixtures.suiteId],
          ['/v1/runs', self.fixtures.runId, other.fixtures.runId],
          ['/v1/api-keys', self.fixtures.keyId, other.fixtures.keyId],
          ['/v1/webhooks', self.fixtures.webhookId, other.fixtures.webhookId],
        ] as const) {
          const ids = (await stack.app.inject({ method: 'GET', url: `${list}?limit=200`, headers: self.auth })).json<{ data: { id: string }[] }>().data.map((item) => item.id);
          expect(ids, list).toContain(own);
          expect(ids, list).not.toContain(foreign);
        }
        expect((await stack.app.inject({ method: 'GET', url: '/v1/tenants', headers: self.auth })).statusCode).toBe(403);
        expect((await stack.app.inject({ method: 'GET', url: '/v1/tenants', headers: self.jwt() })).statusCode).toBe(403);
        const disableOther = await stack.app.inject({ method: 'PATCH', url: `/v1/tenants/${other.tenantId}`, headers: self.auth, payload: { disabled: true } });
        expect(disableOther.statusCode).toBe(403);
        const me = (await stack.app.inject({ method: 'GET', url: '/v1/users/me', headers: self.auth })).json<{ scopes: string[] }>();
        expect(me.scopes).toEqual([...TENANT_SCOPES]);
      }
    });

    it('disabling B refuses B\'s key and JWT (401) and leaves A alone; enabling B restores it', async () => {
      const reads = (team: Team) => [`/v1/users/me`, `/v1/runs/${team.fixtures.runId}`, `/v1/suites`];
      const statuses = async (team: Team) => {
        const out: number[] = [];
        for (const url of reads(team)) {
          for (const auth of [team.auth, team.jwt()]) out.push((await stack.app.inject({ method: 'GET', url, headers: auth })).statusCode);
        }
        return out;
      };
      const disabled = await stack.app.inject({ method: 'PATCH', url: `/v1/tenants/${b.tenantId}`, headers: platform(), payload: { disabled: true } });
      expect(disabled.statusCode, disabled.body).toBe(200);
      expect(await statuses(b)).toEqual(Array(6).fill(401));
      expect(await statuses(a)).toEqual(Array(6).fill(200));
      // The platform still sees B, and B's data is intact.
      expect((await stack.app.inject({ method: 'GET', url: `/v1/tenants/${b.tenantId}`, headers: platform() })).json()).toMatchObject({ disabled: true });

      const enabled = await stack.app.inject({ method: 'PATCH', url: `/v1/tenants/${b.tenantId}`, headers: platform(), payload: { disabled: false } });
      expect(enabled.statusCode).toBe(200);
      expect(await statuses(b)).toEqual(Array(6).fill(200));
    });
  });

  /**
   * A suite's baseline names a run by id in its body, so the route-level matrix above cannot see
   * it: a second tenant, with its own chain and endpoint, names the owner's run. Its API key and
   * its users' JWTs (with the same `sub` as the owner's user) get a 400 on the field; the owner's
   * own credentials pass.
   */
  describe('a suite baseline naming a run of another tenant', () => {
    let second: { auth: { authorization: string }; jwt: string; chainId: string; endpointId: string; suiteId: string };
    let owner: { chainId: string; endpointId: string; suiteId: string; jwt: string };
    beforeAll(async () => {
      const tenant = await stack.newTenant();
      const setup = await createSuite(stack.app, tenant.auth, { candidates: ['http://127.0.0.1:9/'] });
      const sign = (tenantId: string) =>
        signJwt(
          { iss: ISSUER, aud: AUDIENCE, sub: 'matrix-user', tenant_id: tenantId, exp: nowSeconds() + 300, scope: SCOPES.join(' ') },
          { alg: 'RS256', key: signing.privateKey },
        );
      second = { auth: tenant.auth, jwt: sign(tenant.tenantId), chainId: setup.chainId, endpointId: setup.endpointIds[0]!, suiteId: setup.suiteId };
      const [ownerTenant] = await stack.sql<{ tenant_id: string }[]>`select tenant_id from runs where id = ${fixtures.runId}`;
      owner = { chainId: fixtures.chainId, endpointId: fixtures.endpointId, suiteId: fixtures.suiteId, jwt: sign(ownerTenant!.tenant_id) };
    });

    const BASELINE_CASES = [
      { who: 'owner', credential: 'API key', create: 201, patch: 200 },
      { who: 'owner', credential: 'JWT', create: 201, patch: 200 },
      { who: 'second tenant', credential: 'API key', create: 400, patch: 400 },
      { who: 'second tenant', credential: 'JWT', create: 400, patch: 400 },
    ] as const;

    it.each(BASELINE_CASES)('$who with its $credential: create $create, patch $patch', async ({ who, credential, create, patch }) => {
      const self = who === 'owner' ? owner : second;
      const auth =
        who === 'owner'
          ? credential === 'API key'
            ? (headers('valid key', ROUTES[0]!) as { authorization: string })
            : { authorization: `Bearer ${owner.jwt}` }
          : credential === 'API key'
            ? second.auth
            : { authorization: `Bearer ${second.jwt}` };
      const config = { targets: [{ endpoint_id: self.endpointId }], baseline: { mode: 'run', run_id: fixtures.runId } };
      const created = await stack.app.inject({ method: 'POST', url: '/v1/suites', headers: auth, payload: { chain_id: self.chainId, name: 'b', config } });
      const patched = await stack.app.inject({ method: 'PATCH', url: `/v1/suites/${self.suiteId}`, headers: auth, payload: { config } });
      expect(created.statusCode, created.body).toBe(create);
      expect(patched.statusCode, patched.body).toBe(patch);
      for (const response of [created, patched]) {
        if (response.statusCode !== 400) continue;
        expect(response.json().error).toMatchObject({ code: 'validation_error', details: [{ field: 'config.baseline.run_id', message: expect.any(String) }] });
      }
    });
  });
});
