import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertEndpoint } from '../../src/db/endpoints';
import { redactUrl } from '../../src/domain/redact-url';
import { get, post, waitForRun } from '../helpers/api';
import { freePort } from '../helpers/free-port';
import { startStack, type Stack } from '../helpers/stack';

type Auth = { authorization: string };

/**
 * A deployment as shipped: RVS_ALLOW_PRIVATE_TARGETS and RVS_ALLOW_PRIVATE_WEBHOOKS off. Nothing
 * here connects anywhere but to the API: loopback and private URLs are refused by classification,
 * and the one loopback endpoint a run meets is refused before a connection is opened.
 */
describe('outbound URLs are refused at creation when every probe or delivery would refuse them', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({ env: { RVS_ALLOW_PRIVATE_TARGETS: 'false', RVS_ALLOW_PRIVATE_WEBHOOKS: 'false' } });
  });
  afterAll(async () => {
    await stack.close();
  });

  async function newChain(auth: Auth): Promise<string> {
    const chain = await post<{ id: string }>(stack.app, '/v1/chains', auth, { name: 'Local', slug: `c-${Date.now()}-${Math.random().toString(36).slice(2)}`, chain_id: 1337 });
    expect(chain.status).toBe(201);
    return chain.body.id;
  }

  const count = async (auth: Auth, path: string) => (await get<any>(stack.app, path, auth)).body.pagination.total as number;

  const PRIVATE_URLS = [
    ['a loopback IPv4 literal', 'http://127.0.0.1:8545/', 'loopback'],
    ['a loopback literal in hex', 'http://0x7f.0.0.1:8545/', 'loopback'],
    ['the IPv6 loopback', 'http://[::1]:8545/', 'loopback'],
    ['localhost', 'http://localhost:8545/', 'loopback'],
    ['a private literal with a key in the URL', 'https://rpcuser:s3cr3tpw@10.0.0.5/k3y-path?apikey=s3cr3t', 'private'],
    ['an RFC 1918 literal', 'http://192.168.1.20:8545/', 'private'],
    ['a unique-local IPv6 literal', 'http://[fd00:1::5]/', 'private'],
  ] as const;

  it.each(PRIVATE_URLS)('refuses an endpoint at %s with 400 naming RVS_ALLOW_PRIVATE_TARGETS, creating nothing', async (_name, url, kind) => {
    const { auth } = await stack.newTenant();
    const chainId = await newChain(auth);
    const created = await post<any>(stack.app, '/v1/endpoints', auth, { chain_id: chainId, name: 'n', url });
    expect(created.status).toBe(400);
    expect(created.body.error.code).toBe('validation_error');
    expect(created.body.error.details).toEqual([{ field: 'url', message: expect.stringContaining(`is a ${kind} address, refused while RVS_ALLOW_PRIVATE_TARGETS is off`) }]);
    for (const secret of ['s3cr3t', 'rpcuser', 'k3y-path']) expect(JSON.stringify(created.body)).not.toContain(secret);
    expect(await count(auth, '/v1/endpoints')).toBe(0);

    // Same on PATCH: the endpoint keeps its URL.
    const ok = await post<any>(stack.app, '/v1/endpoints', auth, { chain_id: chainId, name: 'n', url: 'https://rpc.example.com/' });
    expect(ok.status).toBe(201);
    const patched = await stack.app.inject({ method: 'PATCH', url: `/v1/endpoints/${ok.body.id}`, headers: auth, payload: { url } });
    expect(patched.statusCode).toBe(400);
    expect(patched.json().error.details[0].message).toContain('RVS_ALLOW_PRIVATE_TARGETS');
    expect((await get<any>(stack.app, `/v1/endpoints/${ok.body.id}`, auth)).body.url).toBe('https://rpc.example.com/');
  });

  it('refuses a run\'s own targets[].url at a loopback or private literal with 400, like a stored endpoint, creating no run', async () => {
    const { auth, tenantId } = await stack.newTenant();
    const chainId = await newChain(auth);
    // Never probed: every trigger below is refused before a run exists.
    const endpoint = await post<{ id: string }>(stack.app, '/v1/endpoints', auth, { chain_id: chainId, name: 'n', url: 'https://node.rvs-test.invalid/' });
    const suite = await post<{ id: string }>(stack.app, '/v1/suites', auth, { chain_id: chainId, name: 's', config: { targets: [{ endpoint_id: endpoint.body.id }] } });
    expect(suite.status, JSON.stringify(suite.body)).toBe(201);
    for (const [, url, kind] of PRIVATE_URLS) {
      const response = await post<any>(stack.app, `/v1/suites/${suite.body.id}/runs`, auth, { targets: [{ url: 'https://preview.rvs-test.invalid/' }, { url }] });
      expect(response.status, url).toBe(400);
      expect(response.body.error.code).toBe('validation_error');
      expect(response.body.error.details).toEqual([{ field: 'targets.1.url', message: expect.stringContaining(`is a ${kind} address, refused while RVS_ALLOW_PRIVATE_TARGETS is off`) }]);
      for (const secret of ['s3cr3t', 'rpcuser', 'k3y-path']) expect(JSON.stringify(response.body)).not.toContain(secret);
    }
    const [row] = await stack.sql<{ runs: number; endpoints: number }[]>`
      select (select count(*)::int from runs where tenant_id = ${tenantId}) as runs,
             (select count(*)::int from endpoints where tenant_id = ${tenantId}) as endpoints`;
    expect(row).toEqual({ runs: 0, endpoints: 1 });
  });

  it.each(PRIVATE_URLS)('refuses a webhook at %s with 400 naming RVS_ALLOW_PRIVATE_WEBHOOKS, creating nothing', async (_name, url, kind) => {
    const { auth } = await stack.newTenant();
    const created = await post<any>(stack.app, '/v1/webhooks', auth, { url, events: ['run.finished'] });
    expect(created.status).toBe(400);
    expect(created.body.error.details).toEqual([{ field: 'url', message: expect.stringContaining(`is a ${kind} address, refused while RVS_ALLOW_PRIVATE_WEBHOOKS is off`) }]);
    for (const secret of ['s3cr3t', 'rpcuser', 'k3y-path']) expect(JSON.stringify(created.body)).not.toContain(secret);
    expect(await count(auth, '/v1/webhooks')).toBe(0);

    const ok = await post<any>(stack.app, '/v1/webhooks', auth, { url: 'https://hooks.example.com/x', events: ['run.finished'] });
    expect(ok.status).toBe(201);
    const patched = await stack.app.inject({ method: 'PATCH', url: `/v1/webhooks/${ok.body.id}`, headers: auth, payload: { url } });
    expect(patched.statusCode).toBe(400);
    expect(patched.json().error.details[0].message).toContain('RVS_ALLOW_PRIVATE_WEBHOOKS');
  });

  it('allows private webhooks and private probe targets separately: RVS_ALLOW_PRIVATE_TARGETS does not open webhooks', async () => {
    const probesOnly = await startStack({ worker: false, env: { RVS_ALLOW_PRIVATE_TARGETS: 'true', RVS_ALLOW_PRIVATE_WEBHOOKS: 'false' } });
    try {
      const { auth } = await probesOnly.newTenant();
      const chain = await post<{ id: string }>(probesOnly.app, '/v1/chains', auth, { name: 'L', slug: `p-${Date.now()}`, chain_id: 1 });
      expect((await post(probesOnly.app, '/v1/endpoints', auth, { chain_id: chain.body.id, name: 'n', url: 'http://127.0.0.1:8545/' })).status).toBe(201);
      const hook = await post<any>(probesOnly.app, '/v1/webhooks', auth, { url: 'http://127.0.0.1:9/hook', events: ['run.finished'] });
      expect(hook.status).toBe(400);
      expect(hook.body.error.details[0].message).toContain('RVS_ALLOW_PRIVATE_WEBHOOKS');
    } finally {
      await probesOnly.close();
    }
  });

  it('accepts a host name without resolving it: the guarded lookup judges it at every connection', async () => {
    const { auth } = await stack.newTenant();
    const chainId = await newChain(auth);
    // .invalid never resolves (RFC 6761): accepted, since creation does no DNS.
    expect((await post(stack.app, '/v1/endpoints', auth, { chain_id: chainId, name: 'n', url: 'https://node.rvs-test.invalid/' })).status).toBe(201);
    expect((await post(stack.app, '/v1/webhooks', auth, { url: 'https://hooks.rvs-test.invalid/x', events: ['run.finished'] })).status).toBe(201);
  });

  it.each([
    ['http://us%zzer:p%ss@rpc.example.com/'],
    ['https://user:p%ss@rpc.example.com/'],
    ['https://a%:b@rpc.example.com/'],
  ])('refuses %s (userinfo that cannot be percent-decoded) for endpoints and webhooks, never echoing it', async (url) => {
    const { auth } = await stack.newTenant();
    const chainId = await newChain(auth);
    const endpoint = await post<any>(stack.app, '/v1/endpoints', auth, { chain_id: chainId, name: 'n', url });
    const webhook = await post<any>(stack.app, '/v1/webhooks', auth, { url, events: ['run.finished'] });
    for (const response of [endpoint, webhook]) {
      expect(response.status).toBe(400);
      expect(response.body.error.code).toBe('validation_error');
      expect(response.body.error.details).toEqual([{ field: 'url', message: expect.stringContaining('malformed percent-encoding') }]);
      expect(JSON.stringify(response.body)).not.toMatch(/p%ss|us%zzer|a%:b/);
    }
    expect(await count(auth, '/v1/endpoints')).toBe(0);
    expect(await count(auth, '/v1/webhooks')).toBe(0);
    // An encoded % is a % in the password: fine.
    expect((await post(stack.app, '/v1/endpoints', auth, { chain_id: chainId, name: 'n', url: 'https://user:p%25ss@rpc.example.com/' })).status).toBe(201);
  });

  it('fails a run on a loopback endpoint stored before the check with a reason that says it was refused, not that retries ran out', async () => {
    const { auth, tenantId } = await stack.newTenant();
    const chainId = await newChain(auth);
    // A row from before creation refused such URLs (the API refuses it now). The port is closed
    // and never connected to: the address is refused before any connection is opened.
    const url = `http://127.0.0.1:${await freePort()}/`;
    const endpoint = await insertEndpoint(stack.sql, {
      tenantId,
      chainId,
      name: 'legacy',
      protocol: 'json-rpc-http',
      addresses: [{ transport: 'http', url_redacted: redactUrl(url), url_encrypted: stack.box.encrypt(url) }],
      headerNames: [],
      headersEncrypted: null,
      timeoutMs: 1_000,
    });
    const suite = await post<{ id: string }>(stack.app, '/v1/suites', auth, {
      chain_id: chainId,
      name: 'legacy suite',
      config: {
        targets: [{ endpoint_id: endpoint.id }],
        workload: { requests_per_target: 10, concurrency: 1, warmup_requests: 0, timeout_ms: 1_000 },
        retry: { max_attempts: 5, initial_interval_ms: 200 },
      },
    });
    expect(suite.status, JSON.stringify(suite.body)).toBe(201);
    const created = await post<{ id: string }>(stack.app, `/v1/suites/${suite.body.id}/runs`, auth);
    expect(created.status).toBe(201);
    const run = await waitForRun(stack.app, auth, created.body.id, 45_000);
    expect(run.status).toBe('failed');
    expect(run.failure_reason).toBe(
      'a probe failed and cannot be retried: endpoint legacy: refused to connect to a loopback address (RVS_ALLOW_PRIVATE_TARGETS is off)',
    );
    // One attempt, not five: the refusal is final at once.
    expect((run.retry_history as unknown[]).length).toBe(1);
  });

  it('fails a run over the WebSocket transport with a reference when the address is refused, instead of recording connection errors and succeeding', async () => {
    const { auth, tenantId } = await stack.newTenant();
    const chainId = await newChain(auth);
    // localhost resolves to loopback: the guarded lookup refuses it before a socket is opened (the ports are closed anyway).
    const endpoint = async (name: string) => {
      const port = await freePort();
      const url = `http://localhost:${port}/`;
      const wsUrl = `ws://localhost:${port}/`;
      return insertEndpoint(stack.sql, {
        tenantId,
        chainId,
        name,
        protocol: 'json-rpc-http',
        addresses: [
          { transport: 'http', url_redacted: redactUrl(url), url_encrypted: stack.box.encrypt(url) },
          { transport: 'ws', url_redacted: redactUrl(wsUrl), url_encrypted: stack.box.encrypt(wsUrl) },
        ],
        headerNames: [],
        headersEncrypted: null,
        timeoutMs: 1_000,
      });
    };
    const candidate = await endpoint('ws-candidate');
    const reference = await endpoint('ws-reference');
    const suite = await post<{ id: string }>(stack.app, '/v1/suites', auth, {
      chain_id: chainId,
      name: 'ws suite',
      config: {
        targets: [{ endpoint_id: candidate.id }],
        reference_endpoint_id: reference.id,
        workload: { transport: 'ws', requests_per_target: 10, concurrency: 1, warmup_requests: 0, timeout_ms: 1_000 },
        retry: { max_attempts: 5, initial_interval_ms: 200 },
      },
    });
    expect(suite.status, JSON.stringify(suite.body)).toBe(201);
    const created = await post<{ id: string }>(stack.app, `/v1/suites/${suite.body.id}/runs`, auth);
    expect(created.status).toBe(201);
    const run = await waitForRun(stack.app, auth, created.body.id, 45_000);
    expect(run.status).toBe('failed');
    expect(run.failure_reason).toMatch(/^a probe failed and cannot be retried: endpoint ws-(candidate|reference): refused to connect to a loopback address \(RVS_ALLOW_PRIVATE_TARGETS is off\)$/);
    const [samples] = await stack.sql<{ n: number }[]>`select count(*)::int as n from run_samples where run_id = ${created.body.id} and outcome = 'connection_error'`;
    expect(samples!.n).toBe(0);
  });
});
