import { generateKeyPairSync, randomBytes, randomUUID, type KeyObject } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Fastify from 'fastify';
import { createJwtVerifier, type JwtVerifierOptions } from '../../src/auth/jwt';
import { ConfigError, loadConfig } from '../../src/config';
import { ensureTenant } from '../../src/db/tenants';
import { AppError } from '../../src/errors';
import { get, post } from '../helpers/api';
import { nowSeconds, signJwt, startRecordingServer, type RecordedAnswer, type RecordingServer, type SigningKey } from '../helpers/jwt';
import { startStack, type Stack } from '../helpers/stack';

const ISSUER = 'https://idp.example.test/';
const AUDIENCE = 'rvs-api';

const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const stranger = generateKeyPairSync('rsa', { modulusLength: 2048 });

const RSA: SigningKey = { alg: 'RS256', key: rsa.privateKey, kid: 'rsa-1' };
const EC: SigningKey = { alg: 'ES256', key: ec.privateKey, kid: 'ec-1' };

function jwk(key: KeyObject, kid: string, alg: string) {
  return { ...key.export({ format: 'jwk' }), kid, alg, use: 'sig' };
}

function expectUnauthorized(response: { status: number; body: any; headers: Record<string, unknown> }) {
  expect(response.status, JSON.stringify(response.body)).toBe(401);
  expect(response.body).toEqual({
    error: { code: 'unauthorized', message: expect.any(String), details: [], request_id: response.headers['x-request-id'] },
  });
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

describe('JWT authentication against a JWKS', () => {
  let jwks: RecordingServer;
  let stack: Stack;
  let tenant: { id: string; name: string; slug: string };
  let claims: (overrides?: Record<string, unknown>) => Record<string, unknown>;

  beforeAll(async () => {
    jwks = await startRecordingServer((path) =>
      path === '/idp/jwks.json?v=1' ? { status: 200, body: { keys: [jwk(rsa.publicKey, 'rsa-1', 'RS256'), jwk(ec.publicKey, 'ec-1', 'ES256')] } } : { status: 404, body: {} },
    );
    stack = await startStack({
      worker: false,
      env: { RVS_JWT_JWKS_URL: `${jwks.url}/idp/jwks.json?v=1`, RVS_JWT_ISSUER: ISSUER, RVS_JWT_AUDIENCE: AUDIENCE },
    });
    const slug = `jwt-${randomUUID()}`;
    tenant = await ensureTenant(stack.sql, slug, 'JWT tenant');
    claims = (overrides = {}) => ({
      iss: ISSUER,
      aud: AUDIENCE,
      sub: 'user-123',
      tenant_id: tenant.id,
      iat: nowSeconds(),
      exp: nowSeconds() + 300,
      scope: 'runs:read chains:read',
      ...overrides,
    });
    // Both key ids are cached before any test makes the verifier refuse unknown ids for a while.
    expect((await get(stack.app, '/v1/users/me', bearer(signJwt(claims(), RSA)))).status).toBe(200);
    expect((await get(stack.app, '/v1/users/me', bearer(signJwt(claims(), EC)))).status).toBe(200);
  });
  afterAll(async () => {
    await stack?.close();
    await jwks?.close();
  });

  it('accepts a valid RS256 token: /users/me shows a user with the token’s known scopes', async () => {
    const token = signJwt(claims({ name: 'Ada Lovelace', email: 'ada@example.test', scope: 'runs:read chains:read admin:everything openid' }), RSA);
    const me = await get(stack.app, '/v1/users/me', bearer(token));
    expect(me.status).toBe(200);
    expect(me.body).toEqual({
      id: 'user-123',
      kind: 'user',
      tenant: { id: tenant.id, name: 'JWT tenant' },
      scopes: ['chains:read', 'runs:read'],
      name: 'Ada Lovelace',
      email: 'ada@example.test',
    });
  });

  it('accepts a valid ES256 token naming the tenant by slug, with scopes from scp and permissions', async () => {
    const token = signJwt(claims({ tenant_id: tenant.slug, scope: undefined, scp: ['suites:read', 'bogus'], permissions: ['keys:admin'] }), EC);
    const me = await get(stack.app, '/v1/users/me', bearer(token));
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ id: 'user-123', kind: 'user', tenant: { id: tenant.id }, scopes: ['suites:read', 'keys:admin'], name: 'user-123', email: null });
  });

  it('enforces the token’s scopes and acts inside the token’s tenant', async () => {
    const reader = bearer(signJwt(claims({ scope: 'chains:read' }), RSA));
    const writer = bearer(signJwt(claims({ scope: 'chains:read chains:write' }), RSA));
    const denied = await post<any>(stack.app, '/v1/chains', reader, { name: 'x', slug: 'x' });
    expect(denied.status).toBe(403);
    expect(denied.body.error.code).toBe('forbidden');
    const created = await post<any>(stack.app, '/v1/chains', writer, { name: 'From a user', slug: 'from-user' });
    expect(created.status).toBe(201);
    const [row] = await stack.sql`select tenant_id from chains where id = ${created.body.id}`;
    expect(row!.tenant_id).toBe(tenant.id);
    expect((await get<any>(stack.app, `/v1/chains/${created.body.id}`, reader)).status).toBe(200);
  });

  it.each<[string, () => string]>([
    ['a wrong issuer', () => signJwt(claims({ iss: 'https://other-idp.example.test/' }), RSA)],
    ['a wrong audience', () => signJwt(claims({ aud: 'someone-else' }), RSA)],
    ['an expired token', () => signJwt(claims({ iat: nowSeconds() - 3600, exp: nowSeconds() - 600 }), RSA)],
    ['a token that is not valid yet', () => signJwt(claims({ nbf: nowSeconds() + 600 }), RSA)],
    ['a token without exp', () => signJwt(claims({ exp: undefined }), RSA)],
    ['a token without sub', () => signJwt(claims({ sub: undefined }), RSA)],
    ['a token signed by the wrong key', () => signJwt(claims(), { alg: 'RS256', key: stranger.privateKey, kid: 'rsa-1' })],
    ['a tampered payload', () => {
      const [header, , signature] = signJwt(claims(), RSA).split('.');
      return `${header}.${Buffer.from(JSON.stringify(claims({ scope: 'keys:admin' }))).toString('base64url')}.${signature}`;
    }],
    ['alg: none', () => signJwt(claims(), { alg: 'none' }, { kid: 'rsa-1' })],
    ['alg: none with a signature', () => signJwt(claims(), RSA, { alg: 'none' })],
    ['HS256 keyed with the JWKS public key (algorithm confusion)', () =>
      signJwt(claims(), { alg: 'HS256', secret: rsa.publicKey.export({ type: 'spki', format: 'pem' }), kid: 'rsa-1' })],
    ['HS256 with any secret', () => signJwt(claims(), { alg: 'HS256', secret: 'x'.repeat(32) })],
    ['an RS384 token', () => signJwt(claims(), RSA, { alg: 'RS384' })],
    ['an RS256 header on the EC key', () => signJwt(claims(), { alg: 'RS256', key: rsa.privateKey, kid: 'ec-1' })],
    ['an unknown tenant id', () => signJwt(claims({ tenant_id: randomUUID() }), RSA)],
    ['an unknown tenant slug', () => signJwt(claims({ tenant_id: 'no-such-tenant' }), RSA)],
    ['no tenant claim', () => signJwt(claims({ tenant_id: undefined }), RSA)],
    ['a tenant claim that is not a string', () => signJwt(claims({ tenant_id: [tenant.id] }), RSA)],
    // Claims reach queries and rate-limit buckets: characters Postgres refuses were a 500, a lone
    // surrogate was silently merged with U+FFFD by Postgres, and any length was taken.
    ['a NUL in sub', () => signJwt(claims({ sub: 'user-123\u0000' }), RSA)],
    ['a NUL in the tenant claim', () => signJwt(claims({ tenant_id: 'a\u0000b' }), RSA)],
    ['a lone surrogate in sub', () => signJwt(claims({ sub: 'user-\ud800' }), RSA)],
    ['a lone surrogate in the tenant claim', () => signJwt(claims({ tenant_id: `${tenant.slug}\udc00` }), RSA)],
    ['a control character in sub', () => signJwt(claims({ sub: 'user\n123' }), RSA)],
    ['a control character in name', () => signJwt(claims({ name: 'Ada\u001b[31m' }), RSA)],
    ['a NUL in email', () => signJwt(claims({ email: 'ada\u0000@example.test' }), RSA)],
    ['an over-long sub', () => signJwt(claims({ sub: 'u'.repeat(300) }), RSA)],
    ['an over-long tenant claim', () => signJwt(claims({ tenant_id: 't'.repeat(300) }), RSA)],
    ['an over-long name', () => signJwt(claims({ name: 'n'.repeat(300) }), RSA)],
    ['an over-long email', () => signJwt(claims({ email: `${'e'.repeat(330)}@example.test` }), RSA)],
    ['a header that is not JSON', () => `bm90LWpzb24.${signJwt(claims(), RSA).split('.').slice(1).join('.')}`],
  ])('answers 401 for %s', async (_case, token) => {
    expectUnauthorized(await get(stack.app, '/v1/users/me', bearer(token())));
  });

  it('tolerates 30 seconds of clock skew on exp and nbf, and not more', async () => {
    const status = async (overrides: Record<string, unknown>) => (await get(stack.app, '/v1/users/me', bearer(signJwt(claims(overrides), RSA)))).status;
    expect(await status({ exp: nowSeconds() - 20 })).toBe(200);
    expect(await status({ nbf: nowSeconds() + 20 })).toBe(200);
    expect(await status({ exp: nowSeconds() - 45 })).toBe(401);
    expect(await status({ nbf: nowSeconds() + 45 })).toBe(401);
  });

  it('says when a token has expired, and nothing more for other failures', async () => {
    const expired = await get<any>(stack.app, '/v1/users/me', bearer(signJwt(claims({ exp: nowSeconds() - 600 }), RSA)));
    expect(expired.body.error.message).toMatch(/expired/);
    const wrongAudience = await get<any>(stack.app, '/v1/users/me', bearer(signJwt(claims({ aud: 'x' }), RSA)));
    expect(wrongAudience.body.error.message).toBe('missing or invalid credentials');
  });

  it('caches keys: known key ids do not refetch, and a flood of unknown ones costs at most one fetch', async () => {
    const before = jwks.requests.length;
    for (let i = 0; i < 5; i++) expect((await get(stack.app, '/v1/users/me', bearer(signJwt(claims(), i % 2 ? RSA : EC)))).status).toBe(200);
    expect(jwks.requests.length).toBe(before);
    for (let i = 0; i < 10; i++) {
      const token = signJwt(claims(), { alg: 'RS256', key: stranger.privateKey, kid: `random-${randomUUID()}` });
      expectUnauthorized(await get(stack.app, '/v1/users/me', bearer(token)));
    }
    expect(jwks.requests.length - before).toBeLessThanOrEqual(1);
    expect((await get(stack.app, '/v1/users/me', bearer(signJwt(claims(), RSA)))).status).toBe(200);
  });

  it('treats a non-JWT bearer token as an API key', async () => {
    const { auth } = await stack.newTenant(['runs:read']);
    const me = await get<any>(stack.app, '/v1/users/me', auth);
    expect(me.status).toBe(200);
    expect(me.body.kind).toBe('api_key');
  });
});

describe('where JWKS keys come from', () => {
  it('is @fastify/jwt that verifies: the plugin is registered on the app', async () => {
    const jwks = await startRecordingServer(() => ({ status: 200, body: { keys: [] } }));
    const stack = await startStack({ worker: false, env: { RVS_JWT_JWKS_URL: `${jwks.url}/keys`, RVS_JWT_ISSUER: ISSUER, RVS_JWT_AUDIENCE: AUDIENCE } });
    try {
      expect(stack.app.hasRequestDecorator('jwtVerify')).toBe(true);
      expect(stack.app.hasDecorator('jwt')).toBe(true);
    } finally {
      await stack.close();
      await jwks.close();
    }
  });

  it('refuses a token for another issuer, an unpinned algorithm or without kid before fetching any key', async () => {
    const jwks = await startRecordingServer(() => ({ status: 200, body: { keys: [jwk(rsa.publicKey, 'rsa-1', 'RS256')] } }));
    const stack = await startStack({ worker: false, env: { RVS_JWT_JWKS_URL: `${jwks.url}/keys`, RVS_JWT_ISSUER: ISSUER, RVS_JWT_AUDIENCE: AUDIENCE } });
    try {
      const tenant = await ensureTenant(stack.sql, `iss-${randomUUID()}`, 'iss tenant');
      const claims = { iss: ISSUER, aud: AUDIENCE, sub: 'u', tenant_id: tenant.id, exp: nowSeconds() + 300 };
      for (const token of [
        signJwt({ ...claims, iss: 'https://other-idp.example.test/' }, RSA),
        signJwt({ ...claims, iss: undefined }, RSA),
        signJwt(claims, RSA, { alg: 'RS512' }),
        signJwt(claims, { alg: 'RS256', key: rsa.privateKey }),
      ]) {
        expectUnauthorized(await get(stack.app, '/v1/users/me', bearer(token)));
      }
      expect(jwks.requests).toEqual([]);
      expect((await get(stack.app, '/v1/users/me', bearer(signJwt(claims, RSA)))).status).toBe(200);
      expect(jwks.requests).toEqual(['/keys']);
    } finally {
      await stack.close();
      await jwks.close();
    }
  });

  it('fetches keys only from the configured JWKS URL, never from iss, jku or x5u of the token', async () => {
    const jwks = await startRecordingServer(() => ({ status: 200, body: { keys: [jwk(rsa.publicKey, 'rsa-1', 'RS256')] } }));
    const attacker = await startRecordingServer(() => ({ status: 200, body: { keys: [jwk(stranger.publicKey, 'evil', 'RS256')] } }));
    const stack = await startStack({ worker: false, env: { RVS_JWT_JWKS_URL: `${jwks.url}/keys`, RVS_JWT_ISSUER: `${attacker.url}/`, RVS_JWT_AUDIENCE: AUDIENCE } });
    try {
      const tenant = await ensureTenant(stack.sql, `jku-${randomUUID()}`, 'jku tenant');
      const claims = { iss: `${attacker.url}/`, aud: AUDIENCE, sub: 'mallory', tenant_id: tenant.id, exp: nowSeconds() + 300, scope: 'keys:admin' };
      const evil = { alg: 'RS256', key: stranger.privateKey, kid: 'evil' } as const;
      // The issuer is the attacker's own URL here, so even an issuer-based lookup would reach it.
      const token = signJwt(claims, evil, { jku: `${attacker.url}/jwks.json`, x5u: `${attacker.url}/cert.pem` });
      expect((await get(stack.app, '/v1/users/me', bearer(signJwt(claims, RSA)))).status).toBe(200);
      expect(jwks.requests).toEqual(['/keys']);
      expectUnauthorized(await get(stack.app, '/v1/users/me', bearer(token)));
      expect(attacker.requests).toEqual([]);
      expect(jwks.requests).toEqual(['/keys', '/keys']);
    } finally {
      await stack.close();
      await jwks.close();
      await attacker.close();
    }
  });
});

/** @fastify/jwt registered on a bare Fastify app with the verifier: real plugin, real loopback JWKS. */
async function verifierApp(jwksUrl: string, options: JwtVerifierOptions) {
  const verifier = createJwtVerifier({ jwksUrl, issuer: ISSUER, audience: AUDIENCE, tenantClaim: 'tenant_id', publicKey: undefined, secret: undefined }, options)!;
  const app = Fastify();
  verifier.register(app);
  app.get('/', (request) => verifier.verify(request).then(() => 'ok', (error: AppError) => error.code));
  await app.ready();
  return {
    outcome: async (token: string) => (await app.inject({ method: 'GET', url: '/', headers: bearer(token) })).body,
    close: async () => {
      await app.close();
      await verifier.close();
    },
  };
}

const shortClaims = () => ({ iss: ISSUER, aud: AUDIENCE, sub: 's', tenant_id: 't', exp: nowSeconds() + 60 });
const madeUpKid = () => signJwt(shortClaims(), { alg: 'RS256', key: stranger.privateKey, kid: `random-${randomUUID()}` });
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('JWKS key rotation and kid floods', () => {
  it('picks up a key the provider rotates in at once, as long as no made-up key id closed the gate', async () => {
    const served = [jwk(rsa.publicKey, 'rsa-1', 'RS256')];
    const jwks = await startRecordingServer(() => ({ status: 200, body: { keys: served } }));
    const app = await verifierApp(`${jwks.url}/jwks.json`, { jwksCooldownMs: 60_000 });
    try {
      expect(await app.outcome(signJwt(shortClaims(), RSA))).toBe('ok');
      served.push(jwk(ec.publicKey, 'ec-2', 'ES256'));
      const rotated = signJwt(shortClaims(), { ...EC, kid: 'ec-2' } as SigningKey);
      // Concurrent requests for the new key share one fetch; a fetch that finds its key leaves the gate open.
      expect(await Promise.all(Array.from({ length: 10 }, () => app.outcome(rotated)))).toEqual(Array(10).fill('ok'));
      expect(jwks.requests).toHaveLength(2);
      expect(await app.outcome(signJwt(shortClaims(), RSA))).toBe('ok');
      expect(jwks.requests).toHaveLength(2);
    } finally {
      await app.close();
      await jwks.close();
    }
  });

  it('costs at most one fetch per cooldown however many made-up key ids arrive, and picks up a new key after it', async () => {
    const served = [jwk(rsa.publicKey, 'rsa-1', 'RS256')];
    const jwks = await startRecordingServer(() => ({ status: 200, body: { keys: served } }));
    const app = await verifierApp(`${jwks.url}/jwks.json`, { jwksCooldownMs: 500 });
    try {
      expect(await app.outcome(signJwt(shortClaims(), RSA))).toBe('ok');
      const flood = await Promise.all(Array.from({ length: 20 }, () => app.outcome(madeUpKid())));
      expect(flood).toEqual(Array(20).fill('unauthorized'));
      expect(jwks.requests).toHaveLength(2);
      served.push(jwk(ec.publicKey, 'ec-2', 'ES256'));
      const rotated = signJwt(shortClaims(), { ...EC, kid: 'ec-2' } as SigningKey);
      // The miss closed the gate: within the cooldown a new key id is refused without a fetch.
      expect(await app.outcome(rotated)).toBe('unauthorized');
      expect(jwks.requests).toHaveLength(2);
      await pause(600);
      expect(await Promise.all(Array.from({ length: 5 }, () => app.outcome(rotated)))).toEqual(Array(5).fill('ok'));
      expect(jwks.requests).toHaveLength(3);
      expect(await app.outcome(signJwt(shortClaims(), RSA))).toBe('ok');
      expect(jwks.requests).toHaveLength(3);
    } finally {
      await app.close();
      await jwks.close();
    }
  });

  it('keeps the keys in use working through a flood of made-up key ids: each refreshes on its own', async () => {
    const jwks = await startRecordingServer(() => ({ status: 200, body: { keys: [jwk(rsa.publicKey, 'rsa-1', 'RS256')] } }));
    const app = await verifierApp(`${jwks.url}/jwks.json`, { jwksCooldownMs: 200, jwksCacheTtlMs: 300 });
    try {
      expect(await app.outcome(signJwt(shortClaims(), RSA))).toBe('ok');
      await pause(400);
      expect(await app.outcome(madeUpKid())).toBe('unauthorized');
      expect(jwks.requests).toHaveLength(2);
      // Past get-jwks's TTL, with the gate for unknown ids just closed, the known key still refreshes.
      expect(await app.outcome(signJwt(shortClaims(), RSA))).toBe('ok');
      expect(jwks.requests).toHaveLength(3);
      expect(await app.outcome(madeUpKid())).toBe('unauthorized');
      expect(jwks.requests).toHaveLength(3);
    } finally {
      await app.close();
      await jwks.close();
    }
  });

  it('stops accepting a key the provider drops as soon as it is asked again, and a flood of that key id costs one fetch per cooldown', async () => {
    const served = [jwk(rsa.publicKey, 'rsa-1', 'RS256')];
    const jwks = await startRecordingServer(() => ({ status: 200, body: { keys: served } }));
    const app = await verifierApp(`${jwks.url}/jwks.json`, { jwksCooldownMs: 200, jwksCacheTtlMs: 300 });
    const burst = () => Promise.all(Array.from({ length: 10 }, () => app.outcome(signJwt(shortClaims(), RSA))));
    try {
      expect(await app.outcome(signJwt(shortClaims(), RSA))).toBe('ok');
      served.splice(0, 1, jwk(ec.publicKey, 'ec-1', 'ES256'));
      await pause(400);
      expect(await burst()).toEqual(Array(10).fill('unauthorized'));
      expect(jwks.requests).toHaveLength(2);
      expect(await burst()).toEqual(Array(10).fill('unauthorized'));
      expect(await burst()).toEqual(Array(10).fill('unauthorized'));
      expect(jwks.requests).toHaveLength(3);
    } finally {
      await app.close();
      await jwks.close();
    }
  });
});

describe('JWKS that cannot be fetched', () => {
  const hangingCases: [string, RecordedAnswer | undefined][] = [
    ['a server that never answers', undefined],
    ['a server that trickles its answer forever', (res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"keys":[');
      const drip = setInterval(() => res.write(' '), 50);
      res.on('close', () => clearInterval(drip));
    }],
    ['an answer over the size cap', (res) => {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [jwk(rsa.publicKey, 'rsa-1', 'RS256')], pad: 'x'.repeat(300 * 1024) }));
    }],
    ['an HTTP error', { status: 500, body: { error: 'down' } }],
    ['a body that is not JSON', (res) => {
      res.writeHead(200, { 'content-type': 'application/json' }).end('<html>');
    }],
  ];

  it.each(hangingCases)('answers 503, not 401, for %s', async (_case, answer) => {
    const server = await startRecordingServer(() => answer);
    const app = await verifierApp(`${server.url}/jwks.json`, { jwksTimeoutMs: 300 });
    try {
      expect(await app.outcome(signJwt(shortClaims(), RSA))).toBe('service_unavailable');
      expect(server.requests).toEqual(['/jwks.json']);
      // The failure closes the gate: the next token waits for the cooldown rather than fetch again.
      expect(await app.outcome(signJwt(shortClaims(), EC))).toBe('service_unavailable');
      expect(server.requests).toEqual(['/jwks.json']);
    } finally {
      await app.close();
      await server.close();
    }
  });

  it('does not follow a redirect away from the configured URL', async () => {
    const elsewhere = await startRecordingServer(() => ({ status: 200, body: { keys: [jwk(stranger.publicKey, 'rsa-1', 'RS256')] } }));
    const server = await startRecordingServer(() => (res) => {
      res.writeHead(302, { location: `${elsewhere.url}/jwks.json` }).end();
    });
    const app = await verifierApp(`${server.url}/jwks.json`, {});
    try {
      expect(await app.outcome(signJwt(shortClaims(), { alg: 'RS256', key: stranger.privateKey, kid: 'rsa-1' }))).toBe('service_unavailable');
      expect(elsewhere.requests).toEqual([]);
    } finally {
      await app.close();
      await server.close();
      await elsewhere.close();
    }
  });

  it('keeps serving a known key past its TTL while the provider is down, for a bounded time', async () => {
    let up = true;
    const jwks = await startRecordingServer(() => (up ? { status: 200, body: { keys: [jwk(rsa.publicKey, 'rsa-1', 'RS256')] } } : { status: 503, body: {} }));
    const app = await verifierApp(`${jwks.url}/jwks.json`, { jwksCacheTtlMs: 200, jwksMaxStaleMs: 600, jwksCooldownMs: 100 });
    try {
      expect(await app.outcome(signJwt(shortClaims(), RSA))).toBe('ok');
      up = false;
      await pause(300);
      // Concurrent requests share the one refresh, and all fall back to the last good key.
      expect(await Promise.all(Array.from({ length: 5 }, () => app.outcome(signJwt(shortClaims(), RSA))))).toEqual(Array(5).fill('ok'));
      expect(jwks.requests).toHaveLength(2);
      // A key id never served before has nothing to fall back on.
      expect(await app.outcome(signJwt(shortClaims(), EC))).toBe('service_unavailable');
      await pause(700);
      expect(await app.outcome(signJwt(shortClaims(), RSA))).toBe('service_unavailable');
    } finally {
      await app.close();
      await jwks.close();
    }
  });
});

describe('JWTs verified with a static public key or an HS256 secret', () => {
  const secret = randomBytes(32).toString('hex');
  let pkStack: Stack;
  let hsStack: Stack;
  let tenantId: string;
  const claims = (overrides: Record<string, unknown> = {}) => ({
    iss: ISSUER,
    aud: AUDIENCE,
    sub: 'dev-user',
    tenant_id: tenantId,
    exp: nowSeconds() + 300,
    scope: 'runs:read',
    ...overrides,
  });

  beforeAll(async () => {
    pkStack = await startStack({
      worker: false,
      env: { RVS_JWT_PUBLIC_KEY: ec.publicKey.export({ type: 'spki', format: 'pem' }).toString(), RVS_JWT_ISSUER: ISSUER, RVS_JWT_AUDIENCE: AUDIENCE },
    });
    hsStack = await startStack({ worker: false, env: { RVS_JWT_SECRET: secret, RVS_JWT_ISSUER: ISSUER, RVS_JWT_AUDIENCE: AUDIENCE } });
    tenantId = (await ensureTenant(pkStack.sql, `dev-${randomUUID()}`, 'Dev tenant')).id;
  });
  afterAll(async () => {
    await pkStack?.close();
    await hsStack?.close();
  });

  it('accepts ES256 signed by the configured key, and nothing else', async () => {
    const ok = await get<any>(pkStack.app, '/v1/users/me', bearer(signJwt(claims(), { alg: 'ES256', key: ec.privateKey })));
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ kind: 'user', id: 'dev-user', tenant: { id: tenantId }, scopes: ['runs:read'] });
    const pem = ec.publicKey.export({ type: 'spki', format: 'pem' });
    for (const token of [
      signJwt(claims(), { alg: 'RS256', key: rsa.privateKey }),
      signJwt(claims(), { alg: 'HS256', secret: pem }),
      signJwt(claims(), { alg: 'HS256', secret }),
      signJwt(claims(), { alg: 'none' }),
      signJwt(claims({ exp: nowSeconds() - 600 }), { alg: 'ES256', key: ec.privateKey }),
    ]) {
      expectUnauthorized(await get(pkStack.app, '/v1/users/me', bearer(token)));
    }
  });

  it('accepts HS256 signed with the configured secret, and refuses every other algorithm', async () => {
    expect((await get(hsStack.app, '/v1/users/me', bearer(signJwt(claims(), { alg: 'HS256', secret })))).status).toBe(200);
    for (const token of [
      signJwt(claims(), { alg: 'HS256', secret: `${secret}x` }),
      signJwt(claims(), { alg: 'RS256', key: rsa.privateKey }),
      signJwt(claims(), { alg: 'none' }),
      signJwt(claims({ aud: 'x' }), { alg: 'HS256', secret }),
    ]) {
      expectUnauthorized(await get(hsStack.app, '/v1/users/me', bearer(token)));
    }
  });

  it('refuses JWTs outright when no identity provider is configured', async () => {
    const plain = await startStack({ worker: false });
    try {
      expectUnauthorized(await get(plain.app, '/v1/users/me', bearer(signJwt(claims(), { alg: 'HS256', secret }))));
    } finally {
      await plain.close();
    }
  });
});

describe('JWT configuration', () => {
  function problemsOf(env: Record<string, string>): string[] {
    try {
      loadConfig(env);
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      return (error as ConfigError).problems;
    }
    throw new Error('expected a ConfigError');
  }

  it('defaults the tenant claim and leaves JWTs off when no source is set', () => {
    expect(loadConfig({}).jwt).toEqual({ jwksUrl: undefined, issuer: undefined, audience: undefined, tenantClaim: 'tenant_id', publicKey: undefined, secret: undefined });
    expect(createJwtVerifier(loadConfig({}).jwt)).toBeNull();
  });

  it('requires issuer and audience with any verification source', () => {
    expect(problemsOf({ RVS_JWT_JWKS_URL: 'https://idp.example.test/jwks.json' })).toEqual([
      expect.stringMatching(/^RVS_JWT_ISSUER: is required/),
      expect.stringMatching(/^RVS_JWT_AUDIENCE: is required/),
    ]);
    expect(problemsOf({ RVS_JWT_SECRET: 'x'.repeat(32), RVS_JWT_ISSUER: ISSUER })).toEqual([expect.stringMatching(/^RVS_JWT_AUDIENCE: is required/)]);
  });

  it('refuses more than one source, short secrets, keys it cannot pin and non-http JWKS URLs', () => {
    const base = { RVS_JWT_ISSUER: ISSUER, RVS_JWT_AUDIENCE: AUDIENCE };
    expect(problemsOf({ ...base, RVS_JWT_JWKS_URL: 'https://idp.example.test/jwks.json', RVS_JWT_SECRET: 'x'.repeat(32) })).toEqual([
      expect.stringMatching(/^RVS_JWT_SECRET: set only one of/),
    ]);
    expect(problemsOf({ ...base, RVS_JWT_SECRET: 'short' })).toEqual([expect.stringMatching(/^RVS_JWT_SECRET:/)]);
    const ed = generateKeyPairSync('ed25519').publicKey.export({ type: 'spki', format: 'pem' }).toString();
    expect(problemsOf({ ...base, RVS_JWT_PUBLIC_KEY: ed })).toEqual([expect.stringMatching(/^RVS_JWT_PUBLIC_KEY:/)]);
    expect(problemsOf({ ...base, RVS_JWT_PUBLIC_KEY: 'not a pem' })).toEqual([expect.stringMatching(/^RVS_JWT_PUBLIC_KEY:/)]);
    expect(problemsOf({ ...base, RVS_JWT_JWKS_URL: 'file:///etc/passwd' })).toEqual([expect.stringMatching(/^RVS_JWT_JWKS_URL:/)]);
  });

  it('accepts a PEM written on one line with \\n escapes', () => {
    const pem = rsa.publicKey.export({ type: 'spki', format: 'pem' }).toString();
    const config = loadConfig({ RVS_JWT_PUBLIC_KEY: pem.replace(/\n/g, '\\n'), RVS_JWT_ISSUER: ISSUER, RVS_JWT_AUDIENCE: AUDIENCE });
    expect(config.jwt.publicKey).toBe(pem);
  });
});
