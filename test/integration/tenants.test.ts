import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateApiKey } from '../../src/auth/api-key';
import { TENANT_SCOPES } from '../../src/auth/scopes';
import { bootstrapDefaultTenant } from '../../src/services/bootstrap';
import { signDashboardToken } from '../../src/services/dashboard-token';
import { workflowIdForRun } from '../../src/temporal/constants';
import { createSuite, get, post } from '../helpers/api';
import { startStack, type Stack } from '../helpers/stack';

type Auth = { authorization: string };

const TENANT_FIELDS = ['created_at', 'disabled', 'disabled_at', 'id', 'name', 'platform', 'slug', 'updated_at'];
const slug = () => `team-${randomUUID().slice(0, 8)}`;

/**
 * Tenant administration through the API: the platform tenant's bootstrap key (it holds
 * tenants:admin) creates, lists, reads, renames, disables and re-enables tenants and issues their
 * first keys. Cross-tenant access of the keys it issues is in auth-matrix.test.ts.
 */
describe('tenants API', () => {
  let stack: Stack;
  let platform: Auth;
  const runIds: string[] = [];

  async function patch<T = Record<string, any>>(url: string, auth: Auth, payload: unknown) {
    const response = await stack.app.inject({ method: 'PATCH', url, headers: auth, payload: payload as object });
    return { status: response.statusCode, body: response.json<T>(), headers: response.headers };
  }

  async function newTenant(name = 'Team') {
    const created = await post<any>(stack.app, '/v1/tenants', platform, { name, slug: slug() });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const key = await post<any>(stack.app, `/v1/tenants/${created.body.id}/api-keys`, platform, { name: 'admin', scopes: [...TENANT_SCOPES] });
    expect(key.status, JSON.stringify(key.body)).toBe(201);
    return { tenant: created.body, auth: { authorization: `Bearer ${key.body.key}` } };
  }

  beforeAll(async () => {
    stack = await startStack({ worker: false });
    // Exactly what `npm start` does with RVS_BOOTSTRAP_API_KEY set.
    const bootstrap = generateApiKey().key;
    await bootstrapDefaultTenant(stack.sql, bootstrap);
    platform = { authorization: `Bearer ${bootstrap}` };
  });
  afterAll(async () => {
    await Promise.all(runIds.map((id) => stack.client.workflow.getHandle(workflowIdForRun(id)).terminate('test finished').catch(() => undefined)));
    await stack?.close();
  });

  it('the bootstrap key holds tenants:admin', async () => {
    const me = await get<any>(stack.app, '/v1/users/me', platform);
    expect(me.body.scopes).toContain('tenants:admin');
  });

  it('POST /v1/tenants creates a tenant (201, Location); the same slug again is 409 conflict', async () => {
    const s = slug();
    const created = await post<any>(stack.app, '/v1/tenants', platform, { name: '  Acme  ', slug: s });
    expect(created.status).toBe(201);
    expect(created.headers.location).toBe(`/v1/tenants/${created.body.id}`);
    expect(Object.keys(created.body).sort()).toEqual(TENANT_FIELDS);
    expect(created.body).toMatchObject({ name: 'Acme', slug: s, platform: false, disabled: false, disabled_at: null });
    const again = await post<any>(stack.app, '/v1/tenants', platform, { name: 'Other', slug: s });
    expect(again.status).toBe(409);
    expect(again.body.error).toMatchObject({ code: 'conflict', message: `a tenant with slug "${s}" already exists` });
  });

  it.each([
    [{}, ['name', 'slug']],
    [{ name: '', slug: 'ok' }, ['name']],
    [{ name: 'x', slug: 'Upper' }, ['slug']],
    [{ name: 'x', slug: '-dash-first' }, ['slug']],
    [{ name: 'x', slug: 'a'.repeat(64) }, ['slug']],
    [{ name: 'x', slug: randomUUID() }, ['slug']],
    [{ name: 'x', slug: 'default' }, ['slug']],
    [{ name: 'x', slug: slug(), disabled: true }, ['disabled']],
  ])('POST /v1/tenants %j → 400 naming %j', async (body, fields) => {
    const response = await post<any>(stack.app, '/v1/tenants', platform, body);
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe('validation_error');
    expect(response.body.error.details.map((d: { field: string }) => d.field).sort()).toEqual(fields);
  });

  it('GET /v1/tenants pages every tenant newest first, the platform tenant among them', async () => {
    const a = await post<any>(stack.app, '/v1/tenants', platform, { name: 'A', slug: slug() });
    const b = await post<any>(stack.app, '/v1/tenants', platform, { name: 'B', slug: slug() });
    const first = await get<any>(stack.app, '/v1/tenants?limit=2', platform);
    expect(first.status).toBe(200);
    expect(first.body.data.map((t: { id: string }) => t.id)).toEqual([b.body.id, a.body.id]);
    expect(first.body.pagination).toMatchObject({ limit: 2, offset: 0, has_more: true });
    const all = await get<any>(stack.app, `/v1/tenants?limit=200`, platform);
    expect(all.body.pagination.total).toBeGreaterThanOrEqual(3);
    expect(all.body.data.filter((t: { platform: boolean }) => t.platform)).toEqual([expect.objectContaining({ slug: 'default', disabled: false })]);
    expect((await get<any>(stack.app, '/v1/tenants?limit=0', platform)).status).toBe(400);
  });

  it('GET /v1/tenants/:id reads one; unknown 404, malformed 400 naming tenantId', async () => {
    const { tenant } = await newTenant('Readable');
    const read = await get<any>(stack.app, `/v1/tenants/${tenant.id}`, platform);
    expect(read).toMatchObject({ status: 200, body: tenant });
    expect((await get<any>(stack.app, `/v1/tenants/${randomUUID()}`, platform)).body.error.code).toBe('not_found');
    const malformed = await get<any>(stack.app, '/v1/tenants/nope', platform);
    expect(malformed.status).toBe(400);
    expect(malformed.body.error.details).toEqual([{ field: 'tenantId', message: expect.any(String) }]);
  });

  it('PATCH renames; a disabled tenant’s key is 401 at once and works again when re-enabled; other tenants are unaffected', async () => {
    const b = await newTenant('Bee');
    const other = await newTenant('Other');
    const renamed = await patch(`/v1/tenants/${b.tenant.id}`, platform, { name: 'Bee Team' });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ name: 'Bee Team', disabled: false });
    expect(new Date(renamed.body.updated_at).getTime()).toBeGreaterThanOrEqual(new Date(b.tenant.updated_at).getTime());
    expect((await get<any>(stack.app, '/v1/users/me', b.auth)).body.tenant.name).toBe('Bee Team');

    const disabled = await patch(`/v1/tenants/${b.tenant.id}`, platform, { disabled: true });
    expect(disabled.status).toBe(200);
    expect(disabled.body).toMatchObject({ disabled: true, disabled_at: expect.any(String) });
    const refused = await get<any>(stack.app, '/v1/users/me', b.auth);
    expect(refused.status).toBe(401);
    expect(refused.body.error).toMatchObject({ code: 'unauthorized', details: [] });
    expect((await get(stack.app, '/v1/users/me', other.auth)).status).toBe(200);
    // Disabling again keeps the first time.
    expect((await patch(`/v1/tenants/${b.tenant.id}`, platform, { disabled: true })).body.disabled_at).toBe(disabled.body.disabled_at);

    const enabled = await patch(`/v1/tenants/${b.tenant.id}`, platform, { disabled: false });
    expect(enabled.body).toMatchObject({ disabled: false, disabled_at: null });
    expect((await get(stack.app, '/v1/users/me', b.auth)).status).toBe(200);
  });

  it('PATCH errors: empty or bad body 400, unknown 404, disabling the platform tenant 409', async () => {
    const { tenant } = await newTenant();
    expect((await patch(`/v1/tenants/${tenant.id}`, platform, {})).status).toBe(400);
    const bad = await patch(`/v1/tenants/${tenant.id}`, platform, { disabled: 'yes', slug: 'x' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.map((d: { field: string }) => d.field).sort()).toEqual(['disabled', 'slug']);
    expect((await patch(`/v1/tenants/${randomUUID()}`, platform, { disabled: true })).status).toBe(404);
    const all = await get<any>(stack.app, '/v1/tenants?limit=200', platform);
    const platformTenant = all.body.data.find((t: { platform: boolean }) => t.platform);
    const refused = await patch(`/v1/tenants/${platformTenant.id}`, platform, { disabled: true });
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('conflict');
    expect((await get(stack.app, '/v1/users/me', platform)).status).toBe(200);
  });

  it('POST /v1/tenants/:id/api-keys issues a key in that tenant, shown once (an Idempotency-Key replay has no secret)', async () => {
    const { tenant } = await post<any>(stack.app, '/v1/tenants', platform, { name: 'Keyed', slug: slug() }).then((r) => ({ tenant: r.body }));
    const headers = { ...platform, 'idempotency-key': `k-${randomUUID()}` };
    const body = { name: 'first admin', scopes: ['runs:read', 'keys:admin'] };
    const created = await stack.app.inject({ method: 'POST', url: `/v1/tenants/${tenant.id}/api-keys`, headers, payload: body });
    expect(created.statusCode, created.body).toBe(201);
    expect(created.headers['cache-control']).toBe('no-store');
    expect(created.headers.location).toBe(`/v1/api-keys/${created.json().id}`);
    const key = created.json();
    expect(key).toMatchObject({ name: 'first admin', scopes: ['runs:read', 'keys:admin'], key: expect.stringMatching(/^rvs_/) });
    const me = await get<any>(stack.app, '/v1/users/me', { authorization: `Bearer ${key.key}` });
    expect(me.body).toMatchObject({ tenant: { id: tenant.id, name: 'Keyed' }, scopes: ['runs:read', 'keys:admin'] });

    const replay = await stack.app.inject({ method: 'POST', url: `/v1/tenants/${tenant.id}/api-keys`, headers, payload: body });
    expect(replay.statusCode).toBe(201);
    expect(replay.json().id).toBe(key.id);
    expect(replay.json()).not.toHaveProperty('key');
    expect(replay.body).not.toContain(key.key.split('_')[2]);
  });

  it('POST /v1/tenants/:id/api-keys errors: tenants:admin for another tenant 400, unknown tenant 404, bad body 400', async () => {
    const { tenant } = await newTenant();
    const platformOnly = await post<any>(stack.app, `/v1/tenants/${tenant.id}/api-keys`, platform, { name: 'x', scopes: ['tenants:admin'] });
    expect(platformOnly.status).toBe(400);
    expect(platformOnly.body.error.details).toEqual([{ field: 'scopes', message: expect.stringContaining('platform tenant') }]);
    expect((await post(stack.app, `/v1/tenants/${randomUUID()}/api-keys`, platform, { name: 'x', scopes: ['runs:read'] })).status).toBe(404);
    const bad = await post<any>(stack.app, `/v1/tenants/${tenant.id}/api-keys`, platform, { name: '', scopes: ['root'] });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.map((d: { field: string }) => d.field).sort()).toEqual(['name', 'scopes.0']);
  });

  it('a platform key can grant tenants:admin to another platform key; a tenant key can never hold it', async () => {
    const granted = await post<any>(stack.app, '/v1/api-keys', platform, { name: 'second operator', scopes: ['tenants:admin'] });
    expect(granted.status).toBe(201);
    const operator = { authorization: `Bearer ${granted.body.key}` };
    expect((await get(stack.app, '/v1/tenants', operator)).status).toBe(200);

    const { auth } = await newTenant();
    const escalate = await post<any>(stack.app, '/v1/api-keys', auth, { name: 'x', scopes: ['tenants:admin'] });
    expect(escalate.status).toBe(403);
    expect(escalate.body.error.message).toContain('tenants:admin');
  });

  it('every tenant route needs tenants:admin: a platform key without it, and a tenant admin key, get 403', async () => {
    const narrow = await post<any>(stack.app, '/v1/api-keys', platform, { name: 'narrow', scopes: TENANT_SCOPES });
    const { tenant, auth: tenantAdmin } = await newTenant();
    for (const auth of [{ authorization: `Bearer ${narrow.body.key}` }, tenantAdmin]) {
      const responses = await Promise.all([
        stack.app.inject({ method: 'POST', url: '/v1/tenants', headers: auth, payload: { name: 'x', slug: slug() } }),
        stack.app.inject({ method: 'GET', url: '/v1/tenants', headers: auth }),
        stack.app.inject({ method: 'GET', url: `/v1/tenants/${tenant.id}`, headers: auth }),
        stack.app.inject({ method: 'PATCH', url: `/v1/tenants/${tenant.id}`, headers: auth, payload: { disabled: true } }),
        stack.app.inject({ method: 'POST', url: `/v1/tenants/${tenant.id}/api-keys`, headers: auth, payload: { name: 'x', scopes: ['runs:read'] } }),
      ]);
      for (const response of responses) {
        expect(response.statusCode, response.body).toBe(403);
        expect(response.json().error.message).toBe('this operation needs the scope tenants:admin');
      }
    }
    expect((await get<any>(stack.app, `/v1/tenants/${tenant.id}`, platform)).body.disabled).toBe(false);
  });

  it('a dashboard link of a disabled tenant’s run is 401 until the tenant is enabled again', async () => {
    const { tenant, auth } = await newTenant('Dashboards');
    const setup = await createSuite(stack.app, auth, { candidates: ['http://127.0.0.1:9/'] });
    const run = await post<{ id: string }>(stack.app, `/v1/suites/${setup.suiteId}/runs`, auth);
    expect(run.status).toBe(201);
    runIds.push(run.body.id);
    const token = signDashboardToken(stack.box, run.body.id, new Date(Date.now() + 60_000));
    const urls = [
      `/dashboard/runs/${run.body.id}?token=${token}`,
      `/dashboard/runs/${run.body.id}/suite?token=${token}`,
      `/dashboard/api/runs/${run.body.id}?token=${token}`,
      `/dashboard/api/runs/${run.body.id}/suite?token=${token}`,
    ];
    for (const url of urls) {
      const shown = await stack.app.inject({ method: 'GET', url });
      expect(shown.statusCode, shown.body).toBe(200);
    }
    await patch(`/v1/tenants/${tenant.id}`, platform, { disabled: true });
    for (const url of urls) {
      const refused = await stack.app.inject({ method: 'GET', url });
      expect(refused.statusCode, url).toBe(401);
      if (url.startsWith('/dashboard/api/')) expect(refused.json().error.code).toBe('unauthorized');
      else expect(refused.headers['content-type']).toMatch(/^text\/html/);
    }
    // An invalid token stays a 403 whatever the tenant's state: the link is checked first.
    expect((await stack.app.inject({ method: 'GET', url: `/dashboard/runs/${run.body.id}?token=x.y` })).statusCode).toBe(403);
    const doc = (await stack.app.inject({ method: 'GET', url: '/v1/openapi.json' })).json();
    for (const path of ['/dashboard/api/runs/{runId}', '/dashboard/api/runs/{runId}/suite']) expect(doc.paths[path].get.responses).toHaveProperty('401');
    await patch(`/v1/tenants/${tenant.id}`, platform, { disabled: false });
    for (const url of urls) {
      const shown = await stack.app.inject({ method: 'GET', url });
      expect(shown.statusCode, shown.body).toBe(200);
    }
  });
});
