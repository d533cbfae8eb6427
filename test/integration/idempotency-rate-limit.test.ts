import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateKeyPairSync } from 'node:crypto';
import { generateApiKey, hashApiKeySecret } from '../../src/auth/api-key';
import { SCOPES, type Scope } from '../../src/auth/scopes';
import { insertApiKey } from '../../src/db/api-keys';
import { createSuite } from '../helpers/api';
import { nowSeconds, signJwt } from '../helpers/jwt';
import { startStack, type Stack } from '../helpers/stack';

describe('Idempotency-Key', () => {
  let stack: Stack;
  beforeAll(async () => {
    // No worker: runs stay queued, which is all these tests need.
    stack = await startStack({ worker: false });
  });
  afterAll(async () => {
    await stack.close();
  });

  const trigger = (auth: { authorization: string }, suiteId: string, key: string, body: unknown = {}) =>
    stack.app.inject({ method: 'POST', url: `/v1/suites/${suiteId}/runs`, headers: { ...auth, 'idempotency-key': key }, payload: body as object });

  async function runsOf(suiteId: string): Promise<number> {
    const [row] = await stack.sql<{ n: number }[]>`select count(*)::int as n from runs where test_suite_id = ${suiteId}`;
    return row!.n;
  }

  it('replays the first response for the same key and body, and creates one run', async () => {
    const { auth } = await stack.newTenant();
    const { suiteId } = await createSuite(stack.app, auth, { candidates: ['http://127.0.0.1:9/'] });
    const first = await trigger(auth, suiteId, 'ci-build-17', { metadata: { sha: 'abc' } });
    const second = await trigger(auth, suiteId, 'ci-build-17', { metadata: { sha: 'abc' } });
    expect(first.statusCode).toBe(201);
    expect(second.statusCode).toBe(201);
    expect(second.headers['idempotency-replayed']).toBe('true');
    expect(first.headers['idempotency-replayed']).toBeUndefined();
    expect(second.json().id).toBe(first.json().id);
    expect(second.headers.location).toBe(first.headers.location);
    expect(await runsOf(suiteId)).toBe(1);
  });

  it('answers 409 idempotency_conflict for the same key with a different body, changing nothing', async () => {
    const { auth } = await stack.newTenant();
    const { suiteId } = await createSuite(stack.app, auth, { candidates: ['http://127.0.0.1:9/'] });
    expect((await trigger(auth, suiteId, 'k-1', { metadata: { a: 1 } })).statusCode).toBe(201);
    const clash = await trigger(auth, suiteId, 'k-1', { metadata: { a: 2 } });
    expect(clash.statusCode).toBe(409);
    expect(clash.json().error.code).toBe('idempotency_conflict');
    expect(await runsOf(suiteId)).toBe(1);
  });

  it('creates exactly one run when duplicates arrive at the same time', async () => {
    const { auth } = await stack.newTenant();
    const { suiteId } = await createSuite(stack.app, auth, { candidates: ['http://127.0.0.1:9/'] });
    const responses = await Promise.all(Array.from({ length: 6 }, () => trigger(auth, suiteId, 'burst')));
    expect(responses.map((r) => r.statusCode)).toEqual(Array(6).fill(201));
    expect(new Set(responses.map((r) => r.json().id)).size).toBe(1);
    expect(await runsOf(suiteId)).toBe(1);
  });

  it('keys are per tenant, apply to creates, and must be printable ASCII', async () => {
    const a = await stack.newTenant();
    const b = await stack.newTenant();
    const create = (auth: { authorization: string }, key: string, slug: string) =>
      stack.app.inject({ method: 'POST', url: '/v1/chains', headers: { ...auth, 'idempotency-key': key }, payload: { name: 'c', slug } });
    const first = await create(a.auth, 'same', 'one');
    expect((await create(a.auth, 'same', 'one')).json().id).toBe(first.json().id);
    expect((await create(b.auth, 'same', 'one')).statusCode).toBe(201); // another tenant, another key space
    const bad = await create(a.auth, 'has space', 'two');
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.details[0].field).toBe('Idempotency-Key');
  });

  it('replays carry Cache-Control: no-store', async () => {
    const { auth } = await stack.newTenant();
    const create = () =>
      stack.app.inject({ method: 'POST', url: '/v1/chains', headers: { ...auth, 'idempotency-key': 'cache' }, payload: { name: 'c', slug: 'cache' } });
    expect((await create()).statusCode).toBe(201);
    const replay = await create();
    expect(replay.headers['idempotency-replayed']).toBe('true');
    expect(replay.headers['cache-control']).toBe('no-store');
  });

  /** Another API key of the tenant, with only the given scopes. */
  async function keyWithScopes(tenantId: string, scopes: Scope[]): Promise<{ authorization: string }> {
    const key = generateApiKey();
    await insertApiKey(stack.sql, { tenantId, name: scopes.join(' '), prefix: key.prefix, secretHash: hashApiKeySecret(key.secret), scopes });
    return { authorization: `Bearer ${key.key}` };
  }

  const createKey = (auth: { authorization: string }, idempotencyKey: string) =>
    stack.app.inject({
      method: 'POST',
      url: '/v1/api-keys',
      headers: { ...auth, 'idempotency-key': idempotencyKey },
      payload: { name: 'ci', scopes: ['runs:read', 'runs:write'] },
    });

  it('keys belong to the principal: another key of the tenant replaying the same key and body runs its own request', async () => {
    const admin = await stack.newTenant();
    const keysAdminOnly = await keyWithScopes(admin.tenantId, ['keys:admin']);
    const first = await createKey(admin.auth, 'mint-1');
    expect(first.statusCode).toBe(201);
    const secret = first.json().key as string;
    // Not the admin's new key with scopes this caller lacks: its own request, refused on scopes.
    const stolen = await createKey(keysAdminOnly, 'mint-1');
    expect(stolen.statusCode, stolen.body).toBe(403);
    expect(stolen.headers['idempotency-replayed']).toBeUndefined();
    expect(stolen.body).not.toContain(secret);
    expect(stolen.body).not.toContain(first.json().id);
    // A second key with the scopes creates its own key under the same Idempotency-Key.
    const other = await createKey(await keyWithScopes(admin.tenantId, ['keys:admin', 'runs:read', 'runs:write']), 'mint-1');
    expect(other.statusCode).toBe(201);
    expect(other.json().id).not.toBe(first.json().id);
  });

  it('never stores a created API key\'s secret: a replay answers without it, uncached', async () => {
    const admin = await stack.newTenant();
    const first = await createKey(admin.auth, 'mint-2');
    expect(first.statusCode).toBe(201);
    expect(first.headers['cache-control']).toBe('no-store');
    const secret = first.json().key as string;
    expect(secret).toMatch(/^rvs_/);
    const stored = await stack.sql<{ response_body: string }[]>`select response_body from idempotency_keys where tenant_id = ${admin.tenantId}`;
    expect(stored).toHaveLength(1);
    expect(stored[0]!.response_body).not.toContain(secret.split('_').at(-1));

    const replay = await createKey(admin.auth, 'mint-2');
    expect(replay.statusCode).toBe(201);
    expect(replay.headers['idempotency-replayed']).toBe('true');
    expect(replay.headers['cache-control']).toBe('no-store');
    expect(replay.headers.location).toBe(first.headers.location);
    const withoutSecret = first.json();
    delete withoutSecret.key;
    expect(replay.json()).toEqual(withoutSecret);
    expect(replay.body).not.toContain(secret.split('_').at(-1));
    const [count] = await stack.sql<{ n: number }[]>`select count(*)::int as n from api_keys where tenant_id = ${admin.tenantId} and name = 'ci'`;
    expect(count!.n).toBe(1);
  });
});

/**
 * Runs `attempt` again (with its attempt number, so it can use fresh identities) when a minute
 * boundary passed while it ran: the windows are fixed minutes, and a rollover restarts the counts.
 */
async function withinOneWindow<T>(attempt: (n: number) => Promise<T>): Promise<T> {
  const minute = () => Math.floor(Date.now() / 60_000);
  for (let n = 0; ; n++) {
    const start = minute();
    const result = await attempt(n);
    if (minute() === start || n === 2) return result;
  }
}

describe('rate limits', () => {
  const signing = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const JWT_ENV = {
    RVS_JWT_PUBLIC_KEY: signing.publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    RVS_JWT_ISSUER: 'https://idp.rate-limit.test/',
    RVS_JWT_AUDIENCE: 'rvs-rate-limit',
  };
  const LIMIT_ENV = {
    RVS_RATE_LIMIT_PER_MINUTE: '8',
    RVS_TRIGGER_LIMIT_PER_MINUTE: '2',
    RVS_AUTH_FAILURE_LIMIT_PER_MINUTE: '3',
    RVS_TENANT_RATE_LIMIT_PER_MINUTE: '12',
    RVS_TENANT_TRIGGER_LIMIT_PER_MINUTE: '3',
  };
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({ worker: false, env: { ...LIMIT_ENV, ...JWT_ENV } });
  });
  afterAll(async () => {
    await stack.close();
  });

  it('limits each identity per minute, with RateLimit headers and a 429 carrying Retry-After', async () => {
    const { auth } = await stack.newTenant();
    const other = await stack.newTenant();
    const statuses: number[] = [];
    let last;
    for (let i = 0; i < 9; i++) {
      last = await stack.app.inject({ method: 'GET', url: '/v1/users/me', headers: auth });
      statuses.push(last.statusCode);
      if (i === 0) {
        expect(last.headers['ratelimit-limit']).toBe('8');
        expect(last.headers['ratelimit-remaining']).toBe('7');
        expect(Number(last.headers['ratelimit-reset'])).toBeGreaterThan(0);
      }
    }
    // The window may roll over mid-loop; then the count restarts. Either way at most 8 pass per window.
    if (statuses.includes(429)) {
      expect(statuses.filter((s) => s === 200).length).toBeLessThanOrEqual(8);
      expect(last!.statusCode).toBe(429);
      expect(last!.json().error.code).toBe('rate_limited');
      expect(Number(last!.headers['retry-after'])).toBeGreaterThan(0);
    }
    // Another identity has its own quota.
    expect((await stack.app.inject({ method: 'GET', url: '/v1/users/me', headers: other.auth })).statusCode).toBe(200);
  });

  it('holds across API processes: two app instances share one quota through Postgres', async () => {
    const second = await startStack({ worker: false, env: LIMIT_ENV });
    try {
      const { auth } = await stack.newTenant();
      const statuses: number[] = [];
      for (let i = 0; i < 10; i++) {
        const app = i % 2 === 0 ? stack.app : second.app;
        statuses.push((await app.inject({ method: 'GET', url: '/v1/users/me', headers: auth })).statusCode);
      }
      // Barring a minute boundary mid-loop, exactly 8 pass, whichever instance served them.
      expect(statuses.filter((s) => s === 200).length).toBeLessThanOrEqual(8);
      expect(statuses).toContain(429);
    } finally {
      await second.close();
    }
  });

  it('limits run triggers more strictly', async () => {
    const { auth } = await stack.newTenant();
    const { suiteId } = await createSuite(stack.app, auth, { candidates: ['http://127.0.0.1:9/'] });
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) {
      statuses.push((await stack.app.inject({ method: 'POST', url: `/v1/suites/${suiteId}/runs`, headers: auth })).statusCode);
    }
    expect(statuses).toEqual([201, 201, 429]);
  });

  it('holds quotas per tenant too: more API keys do not multiply them', async () => {
    await withinOneWindow(async () => {
      const tenant = await stack.newTenant();
      const keys = [tenant.auth];
      for (let i = 0; i < 2; i++) {
        const key = generateApiKey();
        await insertApiKey(stack.sql, { tenantId: tenant.tenantId, name: `k${i}`, prefix: key.prefix, secretHash: hashApiKeySecret(key.secret), scopes: [...SCOPES] });
        keys.push({ authorization: `Bearer ${key.key}` });
      }
      // 3 keys × 6 requests: each key stays under its own 8, the tenant's 12 is what stops them.
      const responses = [];
      for (let i = 0; i < 6; i++) {
        for (const auth of keys) responses.push(await stack.app.inject({ method: 'GET', url: '/v1/users/me', headers: auth }));
      }
      expect(responses.filter((r) => r.statusCode === 200)).toHaveLength(12);
      const refused = responses.filter((r) => r.statusCode === 429);
      expect(refused).toHaveLength(6);
      expect(refused[0]!.json().error.code).toBe('rate_limited');
      expect(refused[0]!.json().error.message).toMatch(/tenant/);
      expect(refused[0]!.headers['ratelimit-limit']).toBe('12');
      expect(Number(refused[0]!.headers['retry-after'])).toBeGreaterThan(0);
      // Another tenant has its own quota.
      const other = await stack.newTenant();
      expect((await stack.app.inject({ method: 'GET', url: '/v1/users/me', headers: other.auth })).statusCode).toBe(200);
    });
  });

  it('holds run triggers per tenant too', async () => {
    await withinOneWindow(async () => {
      const tenant = await stack.newTenant();
      const { suiteId } = await createSuite(stack.app, tenant.auth, { candidates: ['http://127.0.0.1:9/'] });
      const key = generateApiKey();
      await insertApiKey(stack.sql, { tenantId: tenant.tenantId, name: 'second', prefix: key.prefix, secretHash: hashApiKeySecret(key.secret), scopes: [...SCOPES] });
      const statuses: number[] = [];
      for (const auth of [tenant.auth, { authorization: `Bearer ${key.key}` }]) {
        for (let i = 0; i < 2; i++) {
          statuses.push((await stack.app.inject({ method: 'POST', url: `/v1/suites/${suiteId}/runs`, headers: auth })).statusCode);
        }
      }
      // Each key may trigger 2, the tenant 3.
      expect(statuses).toEqual([201, 201, 201, 429]);
    });
  });

  it('keys JWT buckets by tenant and subject: the same sub in two tenants does not share a quota', async () => {
    await withinOneWindow(async () => {
      const a = await stack.newTenant();
      const b = await stack.newTenant();
      const token = (tenantId: string) => ({
        authorization: `Bearer ${signJwt(
          { iss: JWT_ENV.RVS_JWT_ISSUER, aud: JWT_ENV.RVS_JWT_AUDIENCE, sub: 'same-user', tenant_id: tenantId, exp: nowSeconds() + 300, scope: 'runs:read' },
          { alg: 'RS256', key: signing.privateKey },
        )}`,
      });
      const statuses: number[] = [];
      for (let i = 0; i < 9; i++) statuses.push((await stack.app.inject({ method: 'GET', url: '/v1/users/me', headers: token(a.tenantId) })).statusCode);
      expect(statuses).toEqual([...Array(8).fill(200), 429]);
      const otherTenant = await stack.app.inject({ method: 'GET', url: '/v1/users/me', headers: token(b.tenantId) });
      expect(otherTenant.statusCode).toBe(200);
      expect(otherTenant.headers['ratelimit-remaining']).toBe('7');
    });
  });

  it('counts requests refused for a missing scope: a 403 is not free of quota', async () => {
    await withinOneWindow(async () => {
      const { auth } = await stack.newTenant(['runs:read']);
      const statuses: number[] = [];
      for (let i = 0; i < 9; i++) statuses.push((await stack.app.inject({ method: 'GET', url: '/v1/chains', headers: auth })).statusCode);
      expect(statuses).toEqual([...Array(8).fill(403), 429]);
    });
  });

  it('turns repeated failed authentication from one address into 429', async () => {
    const bad = { authorization: `Bearer ${generateApiKey().key}` };
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) {
      const response = await stack.app.inject({ method: 'GET', url: '/v1/users/me', headers: bad, remoteAddress: '127.0.0.77' });
      statuses.push(response.statusCode);
    }
    expect(statuses.slice(0, 3)).toEqual([401, 401, 401]);
    expect(statuses.at(-1)).toBe(429);
    // Another address is not affected.
    const elsewhere = await stack.app.inject({ method: 'GET', url: '/v1/users/me', headers: bad, remoteAddress: '127.0.0.78' });
    expect(elsewhere.statusCode).toBe(401);
  });
});
