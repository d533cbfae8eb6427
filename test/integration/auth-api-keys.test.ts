import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCOPES } from '../../src/auth/scopes';
import { get, post } from '../helpers/api';
import { startStack, type Stack } from '../helpers/stack';

type Auth = { authorization: string };

async function del<T = Record<string, any>>(stack: Stack, url: string, auth: Auth) {
  const response = await stack.app.inject({ method: 'DELETE', url, headers: auth });
  return { status: response.statusCode, body: response.json<T>(), headers: response.headers };
}

const KEY_FIELDS = ['created_at', 'id', 'last_used_at', 'name', 'prefix', 'revoked_at', 'scopes'];

describe('API keys: issue, list, read, revoke', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({ worker: false });
  });
  afterAll(async () => {
    await stack.close();
  });

  it('issues a key that works at once, shows the secret only in the creation response and stores only a hash', async () => {
    const admin = await stack.newTenant();
    const created = await post<any>(stack.app, '/v1/api-keys', admin.auth, { name: 'ci', scopes: ['runs:write', 'runs:read', 'runs:read'] });
    expect(created.status).toBe(201);
    expect(created.headers.location).toBe(`/v1/api-keys/${created.body.id}`);
    expect(created.headers['cache-control']).toBe('no-store');
    expect(created.body).toEqual({
      id: expect.any(String),
      name: 'ci',
      prefix: expect.stringMatching(/^rvs_[A-Za-z0-9]{12}$/),
      scopes: ['runs:read', 'runs:write'],
      created_at: expect.any(String),
      last_used_at: null,
      revoked_at: null,
      key: expect.stringMatching(/^rvs_[A-Za-z0-9]{12}_[A-Za-z0-9]{40}$/),
    });
    const { key, prefix } = created.body;
    expect(key.startsWith(`${prefix}_`)).toBe(true);

    const me = await get<any>(stack.app, '/v1/users/me', { authorization: `Bearer ${key}` });
    expect(me.body).toEqual({ id: created.body.id, kind: 'api_key', tenant: { id: admin.tenantId, name: expect.any(String) }, scopes: ['runs:read', 'runs:write'], name: 'ci', email: null });

    const fetched = await get<any>(stack.app, `/v1/api-keys/${created.body.id}`, admin.auth);
    expect(Object.keys(fetched.body).sort()).toEqual(KEY_FIELDS);
    expect(fetched.body.last_used_at).toEqual(expect.any(String));
    const listed = await get<any>(stack.app, '/v1/api-keys', admin.auth);
    const secret = key.split('_')[2];
    for (const body of [fetched.body, listed.body]) expect(JSON.stringify(body)).not.toContain(secret);
    const [row] = await stack.sql`select * from api_keys where id = ${created.body.id}`;
    expect(JSON.stringify(row)).not.toContain(secret);
  });

  it('lists the tenant’s keys newest first, paged, without secrets or other tenants’ keys', async () => {
    const admin = await stack.newTenant();
    await stack.newTenant();
    for (const name of ['one', 'two', 'three']) expect((await post(stack.app, '/v1/api-keys', admin.auth, { name, scopes: ['chains:read'] })).status).toBe(201);
    const first = await get<any>(stack.app, '/v1/api-keys?limit=2', admin.auth);
    expect(first.status).toBe(200);
    expect(first.body.pagination).toEqual({ total: 4, limit: 2, offset: 0, has_more: true });
    expect(first.body.data.map((k: { name: string }) => k.name)).toEqual(['three', 'two']);
    for (const item of first.body.data) expect(Object.keys(item).sort()).toEqual(KEY_FIELDS);
    const rest = await get<any>(stack.app, '/v1/api-keys?limit=2&offset=2', admin.auth);
    expect(rest.body.data.map((k: { name: string }) => k.name)).toEqual(['one', 'test']);
    expect(rest.body.pagination.has_more).toBe(false);
    expect((await get<any>(stack.app, '/v1/api-keys?limit=0', admin.auth)).status).toBe(400);
  });

  it('revokes a key: 200 with revoked_at set, 401 for the key at once, idempotent, still listed', async () => {
    const admin = await stack.newTenant();
    const created = await post<any>(stack.app, '/v1/api-keys', admin.auth, { name: 'doomed', scopes: ['runs:read'] });
    const doomed = { authorization: `Bearer ${created.body.key}` };
    expect((await get(stack.app, '/v1/users/me', doomed)).status).toBe(200);

    const revoked = await del(stack, `/v1/api-keys/${created.body.id}`, admin.auth);
    expect(revoked.status).toBe(200);
    expect(revoked.body).toMatchObject({ id: created.body.id, name: 'doomed', revoked_at: expect.any(String) });
    expect(revoked.body.key).toBeUndefined();

    const refused = await get<any>(stack.app, '/v1/users/me', doomed);
    expect(refused.status).toBe(401);
    expect(refused.body.error).toEqual({ code: 'unauthorized', message: expect.any(String), details: [], request_id: refused.headers['x-request-id'] });

    const again = await del(stack, `/v1/api-keys/${created.body.id}`, admin.auth);
    expect(again.status).toBe(200);
    expect(again.body.revoked_at).toBe(revoked.body.revoked_at);
    expect((await get<any>(stack.app, `/v1/api-keys/${created.body.id}`, admin.auth)).body.revoked_at).toBe(revoked.body.revoked_at);
  });

  it('lets a key revoke itself', async () => {
    const admin = await stack.newTenant();
    const me = await get<any>(stack.app, '/v1/users/me', admin.auth);
    expect((await del(stack, `/v1/api-keys/${me.body.id}`, admin.auth)).status).toBe(200);
    expect((await get(stack.app, '/v1/users/me', admin.auth)).status).toBe(401);
  });

  it('refuses to grant scopes the caller does not hold (403) and needs keys:admin for everything', async () => {
    const limited = await stack.newTenant(['keys:admin', 'runs:read']);
    const escalate = await post<any>(stack.app, '/v1/api-keys', limited.auth, { name: 'x', scopes: ['runs:read', 'runs:write', 'keys:admin'] });
    expect(escalate.status).toBe(403);
    expect(escalate.body.error.code).toBe('forbidden');
    expect(escalate.body.error.message).toContain('runs:write');
    expect((await post(stack.app, '/v1/api-keys', limited.auth, { name: 'x', scopes: ['runs:read'] })).status).toBe(201);

    const noAdmin = await stack.newTenant(SCOPES.filter((s) => s !== 'keys:admin'));
    for (const response of [
      await post<any>(stack.app, '/v1/api-keys', noAdmin.auth, { name: 'x', scopes: ['runs:read'] }),
      await get<any>(stack.app, '/v1/api-keys', noAdmin.auth),
    ]) {
      expect(response.status).toBe(403);
    }
  });

  it('answers 404 for an unknown key, 403 for another tenant’s, 400 for a malformed id', async () => {
    const owner = await stack.newTenant();
    const other = await stack.newTenant();
    const created = await post<any>(stack.app, '/v1/api-keys', owner.auth, { name: 'mine', scopes: ['runs:read'] });
    expect((await get(stack.app, `/v1/api-keys/${randomUUID()}`, owner.auth)).status).toBe(404);
    expect((await del(stack, `/v1/api-keys/${randomUUID()}`, owner.auth)).status).toBe(404);
    expect((await get(stack.app, `/v1/api-keys/${created.body.id}`, other.auth)).status).toBe(403);
    expect((await del(stack, `/v1/api-keys/${created.body.id}`, other.auth)).status).toBe(403);
    expect((await get(stack.app, '/v1/users/me', { authorization: `Bearer ${created.body.key}` })).status).toBe(200);
    const malformed = await get<any>(stack.app, '/v1/api-keys/nope', owner.auth);
    expect(malformed.status).toBe(400);
    expect(malformed.body.error.details).toEqual([{ field: 'keyId', message: expect.any(String) }]);
  });

  it.each([
    [{}, ['name', 'scopes']],
    [{ name: '', scopes: [] }, ['name', 'scopes']],
    [{ name: 'x', scopes: ['runs:read', 'root'] }, ['scopes.1']],
    [{ name: 'x', scopes: 'runs:read' }, ['scopes']],
    [{ name: 'x', scopes: ['runs:read'], tenant_id: randomUUID() }, ['tenant_id']],
  ])('answers 400 validation_error for %j', async (body, fields) => {
    const admin = await stack.newTenant();
    const response = await post<any>(stack.app, '/v1/api-keys', admin.auth, body);
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe('validation_error');
    expect(response.body.error.details.map((d: { field: string }) => d.field).sort()).toEqual(fields);
  });
});
