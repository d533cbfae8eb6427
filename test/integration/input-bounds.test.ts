import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSuite, get, post } from '../helpers/api';
import { startStack, type Stack } from '../helpers/stack';

/*
 * Bounds on what a tenant sends (issue 9, items 3, 5 and 6): nesting depth of free-form JSON, the
 * size of a suite config and of run metadata, NUL characters anywhere, header values the probe
 * client could not send. Each is a 400 validation_error naming the field, never a 500.
 */

type Auth = { authorization: string };

/** `levels` nested arrays around `inner`, built without recursion. */
function nestedArrays(levels: number, inner: unknown = 1): unknown {
  let value = inner;
  for (let i = 0; i < levels; i++) value = [value];
  return value;
}

function fieldsOf(body: any): string[] {
  return body.error.details.map((d: { field: string }) => d.field);
}

function expectValidationError(response: { status: number; body: any; headers: Record<string, unknown> }, field: string) {
  expect(response.status, JSON.stringify(response.body).slice(0, 500)).toBe(400);
  expect(response.body.error.code).toBe('validation_error');
  expect(fieldsOf(response.body)).toContain(field);
  expect(response.body.error.request_id).toBe(response.headers['x-request-id']);
}

describe('input bounds', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({ worker: false });
  });
  afterAll(async () => {
    await stack.close();
  });

  const send = async (method: 'POST' | 'PATCH' | 'GET', url: string, auth: Auth, payload?: unknown) => {
    const response = await stack.app.inject({
      method,
      url,
      headers: { ...auth, ...(typeof payload === 'string' ? { 'content-type': 'application/json' } : {}) },
      ...(payload === undefined ? {} : { payload: payload as object }),
    });
    return { status: response.statusCode, body: response.json(), headers: response.headers };
  };

  /** A tenant with a chain and one endpoint, and a suite on them. */
  async function tenantWithSuite() {
    const tenant = await stack.newTenant();
    const setup = await createSuite(stack.app, tenant.auth, { candidates: ['http://127.0.0.1:9/'] });
    return { ...tenant, ...setup };
  }

  describe('JSON nesting depth', () => {
    it('refuses run metadata nested deeper than 32 levels with 400 on metadata, and accepts 32', async () => {
      const { auth, suiteId } = await tenantWithSuite();
      const deep = await post<any>(stack.app, `/v1/suites/${suiteId}/runs`, auth, { metadata: { build: nestedArrays(32) } });
      expectValidationError(deep, 'metadata');
      const atCap = await post<any>(stack.app, `/v1/suites/${suiteId}/runs`, auth, { metadata: { build: nestedArrays(31) } });
      expect(atCap.status, JSON.stringify(atCap.body)).toBe(201);
    });

    it('refuses workload params nested deeper than 32 levels in a suite config, on create and patch', async () => {
      const { auth, chainId, endpointIds, suiteId } = await tenantWithSuite();
      const config = (params: unknown[]) => ({
        targets: [{ endpoint_id: endpointIds[0] }],
        workload: { methods: [{ method: 'eth_call', params }] },
      });
      const created = await post<any>(stack.app, '/v1/suites', auth, { chain_id: chainId, name: 'deep', config: config([nestedArrays(32)]) });
      expectValidationError(created, 'config.workload.methods.0.params');
      const patched = await send('PATCH', `/v1/suites/${suiteId}`, auth, { config: config([nestedArrays(32)]) });
      expectValidationError(patched, 'config.workload.methods.0.params');
      const atCap = await send('PATCH', `/v1/suites/${suiteId}`, auth, { config: config([nestedArrays(31)]) });
      expect(atCap.status, JSON.stringify(atCap.body)).toBe(200);
    });

    it('refuses a catalog workload preset whose params nest deeper than 32 levels', async () => {
      const { auth } = await stack.newTenant();
      const response = await post<any>(stack.app, '/v1/catalog/workloads', auth, {
        slug: 'deep-preset',
        name: 'deep',
        workload: { methods: [{ method: 'eth_call', params: [nestedArrays(40)] }] },
      });
      expectValidationError(response, 'workload.methods.0.params');
    });

    it.each([
      ['metadata', (suiteId: string) => `/v1/suites/${suiteId}/runs`, (deep: string) => `{"metadata":{"k":${deep}}}`],
      ['a suite config', () => '/v1/suites', (deep: string) => `{"name":"x","chain_id":"7d3f2f8e-1c1a-4d55-9a7e-3c2b1a0f9e8d","config":{"workload":${deep}}}`],
      ['a catalog preset', () => '/v1/catalog/workloads', (deep: string) => `{"slug":"p","name":"p","workload":{"methods":${deep}}}`],
      ['an unknown field', () => '/v1/chains', (deep: string) => `{"name":"x","slug":"x","extra":${deep}}`],
    ])('answers a 100,000-deep body (%s) with 400 in the envelope, not a 500 or a crash', async (_name, url, body) => {
      const { auth, suiteId } = await tenantWithSuite();
      const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
      const response = await send('POST', url(suiteId), auth, body(deep));
      expect(response.status).toBe(400);
      expect(['validation_error', 'invalid_json']).toContain(response.body.error.code);
      expect(response.body.error.request_id).toBe(response.headers['x-request-id']);
      const objects = await send('POST', url(suiteId), auth, body(`${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}`));
      expect(objects.status).toBe(400);
      // And the API still answers.
      expect((await get(stack.app, '/v1/users/me', auth)).status).toBe(200);
    });

    it('answers a 100,000-deep body with an Idempotency-Key with 400, not a 500', async () => {
      const { auth, suiteId } = await tenantWithSuite();
      const response = await stack.app.inject({
        method: 'POST',
        url: `/v1/suites/${suiteId}/runs`,
        headers: { ...auth, 'content-type': 'application/json', 'idempotency-key': 'deep-1' },
        payload: `{"metadata":{"k":${'['.repeat(100_000)}${']'.repeat(100_000)}}}`,
      });
      expect(response.statusCode).toBe(400);
      expect(response.json().error.code).toBe('validation_error');
    });
  });

  describe('value count', () => {
    // 480,000 numbers fit in the 1 MiB body limit; walking, validating and hashing them held the
    // event loop for a second or more, for every tenant. The guard stops at MAX_BODY_VALUES.
    it('refuses a body of more than 100,000 values with 400 on the body, with or without an Idempotency-Key', async () => {
      const { auth, suiteId } = await tenantWithSuite();
      const many = `{"metadata":{"k":[${Array(150_000).fill('0').join(',')}]}}`;
      for (const extra of [{}, { 'idempotency-key': 'many-values-1' }]) {
        const response = await stack.app.inject({
          method: 'POST',
          url: `/v1/suites/${suiteId}/runs`,
          headers: { ...auth, ...extra, 'content-type': 'application/json' },
          payload: many,
        });
        expect(response.statusCode).toBe(400);
        expect(response.json().error).toMatchObject({ code: 'validation_error', details: [{ field: '(body)', message: expect.stringMatching(/more than 100000 values/) }] });
      }
      expect((await stack.sql`select count(*)::int as n from runs where test_suite_id = ${suiteId}`)[0]!.n).toBe(0);
    });
  });

  describe('names', () => {
    // A line break inside a name would start a line of a CI job's log that a GitHub runner reads
    // as a workflow command: rvs prints suite, endpoint and chain names in its text output.
    const injected = 'pr-gate\n::add-mask::x';
    it('refuses a control character in a chain, endpoint or suite name with 400 naming the field, and stores nothing', async () => {
      const { auth, chainId, suiteId } = await tenantWithSuite();
      expectValidationError(await send('POST', '/v1/chains', auth, { name: injected, slug: 'other', family: 'evm' }), 'name');
      expectValidationError(await send('POST', '/v1/endpoints', auth, { chain_id: chainId, name: injected, url: 'http://127.0.0.1:9/', timeout_ms: 2_000 }), 'name');
      expectValidationError(await send('PATCH', `/v1/suites/${suiteId}`, auth, { name: 'tab\there' }), 'name');
      const suite = await send('GET', `/v1/suites/${suiteId}`, auth);
      expect(suite.body.name).not.toContain('\t');
    });
  });

  describe('sizes', () => {
    const bigParams = (bytes: number) => [{ blob: 'x'.repeat(bytes) }];

    it('refuses a suite config over 64 KiB (workload params included) with 400 on config, on create and patch', async () => {
      const { auth, chainId, endpointIds, suiteId } = await tenantWithSuite();
      const config = (bytes: number) => ({
        targets: [{ endpoint_id: endpointIds[0] }],
        workload: { methods: [{ method: 'eth_call', params: bigParams(bytes) }] },
      });
      const created = await post<any>(stack.app, '/v1/suites', auth, { chain_id: chainId, name: 'big', config: config(65 * 1024) });
      expectValidationError(created, 'config');
      const patched = await send('PATCH', `/v1/suites/${suiteId}`, auth, { config: config(65 * 1024) });
      expectValidationError(patched, 'config');
      // Split over many methods, the params still count.
      const spread = await post<any>(stack.app, '/v1/suites', auth, {
        chain_id: chainId,
        name: 'spread',
        config: {
          targets: [{ endpoint_id: endpointIds[0] }],
          workload: { methods: Array.from({ length: 20 }, () => ({ method: 'eth_call', params: bigParams(4 * 1024) })) },
        },
      });
      expectValidationError(spread, 'config');
      const fits = await post<any>(stack.app, '/v1/suites', auth, { chain_id: chainId, name: 'fits', config: config(60 * 1024) });
      expect(fits.status, JSON.stringify(fits.body).slice(0, 300)).toBe(201);
    });

    it('refuses run metadata over 16 KiB as JSON and accepts 16 KiB', async () => {
      const { auth, suiteId } = await tenantWithSuite();
      // {"k":"…"} is 8 bytes around the string.
      const over = await post<any>(stack.app, `/v1/suites/${suiteId}/runs`, auth, { metadata: { k: 'x'.repeat(16 * 1024 - 7) } });
      expectValidationError(over, 'metadata');
      const exact = await post<any>(stack.app, `/v1/suites/${suiteId}/runs`, auth, { metadata: { k: 'x'.repeat(16 * 1024 - 8) } });
      expect(exact.status, JSON.stringify(exact.body).slice(0, 300)).toBe(201);
    });

    it('leaves config_snapshot and the suite config out of GET /v1/runs; GET /v1/runs/:id keeps them', async () => {
      const { auth, suiteId } = await tenantWithSuite();
      const created = await post<any>(stack.app, `/v1/suites/${suiteId}/runs`, auth, { metadata: { ci: 'yes' } });
      expect(created.status).toBe(201);
      const list = await get<any>(stack.app, '/v1/runs', auth);
      expect(list.status).toBe(200);
      const [item] = list.body.data;
      expect(item.id).toBe(created.body.id);
      expect(item).not.toHaveProperty('config_snapshot');
      expect(item.suite).toEqual({ id: suiteId, name: 'suite under test' });
      expect(item.metadata).toEqual({ ci: 'yes' });
      const one = await get<any>(stack.app, `/v1/runs/${created.body.id}`, auth);
      expect(one.body.config_snapshot.workload.requests_per_target).toBe(50);
      expect(one.body.suite.config).toEqual(one.body.config_snapshot);
      // The list item is the run resource without those fields and its signed dashboard link, nothing else.
      const { suite, ...rest } = one.body;
      delete rest.config_snapshot;
      expect(item).not.toHaveProperty('dashboard_url');
      delete rest.dashboard_url;
      const { suite: listedSuite, ...listedRest } = item;
      expect(listedRest).toEqual(rest);
      expect(listedSuite).toEqual({ id: suite.id, name: suite.name });
    });
  });

  describe('NUL characters', () => {
    it.each([
      ['a chain name', '/v1/chains', { name: 'a\u0000b', slug: 'nul-chain' }, 'name'],
      ['an unknown body field', '/v1/chains', { name: 'a', slug: 'nul-2', 'x\u0000': 1 }, 'x\\u0000'],
    ])('refuses a NUL in %s with 400 naming the field', async (_name, url, body, field) => {
      const { auth } = await stack.newTenant();
      expectValidationError(await post<any>(stack.app, url, auth, body), field);
    });

    it('refuses a NUL in run metadata values and keys, at any depth', async () => {
      const { auth, suiteId } = await tenantWithSuite();
      const url = `/v1/suites/${suiteId}/runs`;
      expectValidationError(await post<any>(stack.app, url, auth, { metadata: { branch: 'main\u0000' } }), 'metadata.branch');
      expectValidationError(await post<any>(stack.app, url, auth, { metadata: { 'k\u0000': 1 } }), 'metadata.k\\u0000');
      expectValidationError(await post<any>(stack.app, url, auth, { metadata: { a: [{ b: ['ok', '\u0000'] }] } }), 'metadata.a.0.b.1');
    });

    it('refuses a NUL in a suite description, in workload params and in a catalog preset', async () => {
      const { auth, chainId, endpointIds, suiteId } = await tenantWithSuite();
      const config = { targets: [{ endpoint_id: endpointIds[0] }] };
      expectValidationError(
        await post<any>(stack.app, '/v1/suites', auth, { chain_id: chainId, name: 'n', description: 'd\u0000', config }),
        'description',
      );
      expectValidationError(
        await send('PATCH', `/v1/suites/${suiteId}`, auth, {
          config: { ...config, workload: { methods: [{ method: 'eth_call', params: [{ data: '0x\u0000' }] }] } },
        }),
        'config.workload.methods.0.params.0.data',
      );
      expectValidationError(
        await post<any>(stack.app, '/v1/catalog/workloads', auth, { slug: 'nul-preset', name: 'p\u0000', workload: {} }),
        'name',
      );
    });

    it('refuses a NUL in a query parameter with 400 naming it', async () => {
      const { auth, suiteId } = await tenantWithSuite();
      const run = await post<any>(stack.app, `/v1/suites/${suiteId}/runs`, auth, {});
      expectValidationError(await get<any>(stack.app, `/v1/runs/${run.body.id}/samples?method=eth%00call`, auth), 'method');
      expectValidationError(await get<any>(stack.app, '/v1/chains?limit=1&x%00=1', auth), 'x\\u0000');
    });

    it('names the field without echoing the value', async () => {
      const { auth } = await stack.newTenant();
      const response = await post<any>(stack.app, '/v1/chains', auth, { name: 'S3cretValue\u0000', slug: 'nul-3' });
      expect(response.status).toBe(400);
      expect(JSON.stringify(response.body)).not.toContain('S3cretValue');
    });
  });

  describe('lone surrogates (not Unicode; Postgres refuses them in jsonb)', () => {
    it('refuses a lone surrogate in run metadata, workload params and text fields with 400 naming the field', async () => {
      const { auth, suiteId, endpointIds } = await tenantWithSuite();
      const url = `/v1/suites/${suiteId}/runs`;
      expectValidationError(await send('POST', url, auth, '{"metadata":{"k":"\\ud800"}}'), 'metadata.k');
      expectValidationError(await send('POST', url, auth, '{"metadata":{"\\udc00x":1}}'), 'metadata.\\udc00x');
      const config = { targets: [{ endpoint_id: endpointIds[0] }], workload: { methods: [{ method: 'eth_call', params: ['\ud800'] }] } };
      expectValidationError(await send('PATCH', `/v1/suites/${suiteId}`, auth, JSON.stringify({ config })), 'config.workload.methods.0.params.0');
      // A text column would silently store U+FFFD instead.
      expectValidationError(await send('POST', '/v1/chains', auth, '{"name":"a\\udbffb","slug":"lone"}'), 'name');
      // A well-formed pair is fine.
      const emoji = await post<any>(stack.app, url, auth, { metadata: { note: 'ok \u{1F600}' } });
      expect(emoji.status, JSON.stringify(emoji.body)).toBe(201);
      expect(emoji.body.metadata.note).toBe('ok \u{1F600}');
    });
  });

  it('lists at most 50 problems, whatever the body holds, and says how many there were', async () => {
    const { auth } = await stack.newTenant();
    const body = Object.fromEntries(Array.from({ length: 50_000 }, (_, i) => [`k${i}`, 1]));
    const response = await post<any>(stack.app, '/v1/chains', auth, body);
    expect(response.status).toBe(400);
    expect(response.body.error.details).toHaveLength(50);
    expect(response.body.error.message).toMatch(/50,000 problems/);
  });

  describe('endpoint header values follow the probe client\u2019s rule', () => {
    const BAD_VALUES: [string, string][] = [
      ['NUL', 'S3cret\u0000tail'],
      ['VT', 'S3cret\u000btail'],
      ['FF', 'S3cret\u000ctail'],
      ['DEL', 'S3cret\u007ftail'],
      ['CR LF', 'S3cret\r\nX-Injected: 1'],
      ['a leading space', ' S3cret'],
      ['a trailing tab', 'S3cret\t'],
    ];

    it.each(BAD_VALUES)('refuses a value with %s at create and patch, naming the header, never echoing the value', async (_name, value) => {
      const { auth } = await stack.newTenant();
      const chain = await post<any>(stack.app, '/v1/chains', auth, { name: 'c', slug: 'c' });
      const created = await post<any>(stack.app, '/v1/endpoints', auth, {
        chain_id: chain.body.id,
        name: 'e',
        url: 'http://127.0.0.1:9/',
        headers: { 'x-api-key': value },
      });
      expectValidationError(created, 'headers.x-api-key');
      expect(JSON.stringify(created.body)).not.toContain('S3cret');
      const endpoint = await post<any>(stack.app, '/v1/endpoints', auth, { chain_id: chain.body.id, name: 'e', url: 'http://127.0.0.1:9/' });
      const patched = await send('PATCH', `/v1/endpoints/${endpoint.body.id}`, auth, { headers: { 'x-api-key': value } });
      expectValidationError(patched, 'headers.x-api-key');
      expect(JSON.stringify(patched.body)).not.toContain('S3cret');
    });

    it('accepts visible ASCII, inner spaces and tabs, and obs-text', async () => {
      const { auth } = await stack.newTenant();
      const chain = await post<any>(stack.app, '/v1/chains', auth, { name: 'c', slug: 'c' });
      const created = await post<any>(stack.app, '/v1/endpoints', auth, {
        chain_id: chain.body.id,
        name: 'e',
        url: 'http://127.0.0.1:9/',
        headers: { authorization: 'Bearer a.b-c_d~e+f/g=', 'x-note': 'one two\tthree', 'x-latin': 'caf\u00e9' },
      });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
    });

    it('refuses header names the client sets itself', async () => {
      const { auth } = await stack.newTenant();
      const chain = await post<any>(stack.app, '/v1/chains', auth, { name: 'c', slug: 'c' });
      for (const name of ['Host', 'content-length', 'Transfer-Encoding', 'connection', 'content-type']) {
        const response = await post<any>(stack.app, '/v1/endpoints', auth, {
          chain_id: chain.body.id,
          name: 'e',
          url: 'http://127.0.0.1:9/',
          headers: { [name]: 'x' },
        });
        expectValidationError(response, `headers.${name}`);
      }
    });
  });
});
