import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Scope } from '../../src/auth/scopes';
import { BUILTIN_CHAIN_PRESETS, BUILTIN_WORKLOAD_PRESETS, CHAINS } from '../../src/chains/registry';
import { storedChainId } from '../../src/domain/chain-id';
import { templateParams } from '../../src/domain/workload';
import { get, post } from '../helpers/api';
import { startGanache } from '../helpers/ganache';
import { startStack, type Stack } from '../helpers/stack';

type Auth = { authorization: string };
const MISSING = '7d3f2f8e-1c1a-4d55-9a7e-3c2b1a0f9e8d';
const EVM_STANDARD = BUILTIN_WORKLOAD_PRESETS.find((p) => p.slug === 'evm-standard')!;

describe('resources: PATCH, DELETE, catalog and presets', () => {
  let stack: Stack;
  beforeAll(async () => {
    // No worker: a triggered run stays queued and nothing is ever probed.
    stack = await startStack({ worker: false });
  });
  afterAll(async () => {
    await stack.close();
  });

  async function patch<T = any>(url: string, auth: Auth, payload?: unknown) {
    const response = await stack.app.inject({ method: 'PATCH', url, headers: auth, ...(payload === undefined ? {} : { payload: payload as object }) });
    return { status: response.statusCode, body: response.json<T>() };
  }
  async function del(url: string, auth: Auth) {
    const response = await stack.app.inject({ method: 'DELETE', url, headers: auth });
    return { status: response.statusCode, body: response.body === '' ? null : response.json<any>() };
  }
  const fields = (body: any) => body.error.details.map((d: { field: string }) => d.field).sort();

  async function tenant(scopes?: readonly Scope[]) {
    return stack.newTenant(scopes);
  }
  async function chainOf(auth: Auth, body: Record<string, unknown> = {}) {
    const slug = `c-${randomUUID().slice(0, 8)}`;
    const chain = await post<any>(stack.app, '/v1/chains', auth, { name: 'Chain', slug, chain_id: 1337, ...body });
    expect(chain.status, JSON.stringify(chain.body)).toBe(201);
    return chain.body;
  }
  async function endpointOf(auth: Auth, chainId: string, body: Record<string, unknown> = {}) {
    const endpoint = await post<any>(stack.app, '/v1/endpoints', auth, {
      chain_id: chainId,
      name: 'node',
      url: 'http://127.0.0.1:1/rpc',
      ...body,
    });
    expect(endpoint.status, JSON.stringify(endpoint.body)).toBe(201);
    return endpoint.body;
  }
  async function suiteOf(auth: Auth, chainId: string, endpointIds: string[], config: Record<string, unknown> = {}, name = 'smoke') {
    const suite = await post<any>(stack.app, '/v1/suites', auth, {
      chain_id: chainId,
      name,
      config: { targets: endpointIds.map((endpoint_id) => ({ endpoint_id })), ...config },
    });
    expect(suite.status, JSON.stringify(suite.body)).toBe(201);
    return suite.body;
  }
  async function suiteEndpoints(suiteId: string) {
    const rows = await stack.sql<{ endpoint_id: string }[]>`select endpoint_id from suite_endpoints where suite_id = ${suiteId}`;
    return rows.map((r) => r.endpoint_id).sort();
  }

  describe('PATCH /v1/chains/:chainId', () => {
    it('changes only the given fields and bumps updated_at', async () => {
      const { auth } = await tenant();
      const chain = await chainOf(auth, { explorer_url: 'https://old.example' });
      const patched = await patch(`/v1/chains/${chain.id}`, auth, { name: 'Renamed', explorer_url: 'https://explorer.example', chain_id: null });
      expect(patched.status).toBe(200);
      expect(patched.body).toEqual({
        ...chain,
        name: 'Renamed',
        explorer_url: 'https://explorer.example',
        chain_id: null,
        updated_at: expect.any(String),
      });
      expect(new Date(patched.body.updated_at).getTime()).toBeGreaterThanOrEqual(new Date(chain.updated_at).getTime());
      const [row] = await stack.sql`select updated_at > created_at as bumped from chains where id = ${chain.id}`;
      expect(row!.bumped).toBe(true);
      expect((await get<any>(stack.app, `/v1/chains/${chain.id}`, auth)).body).toEqual(patched.body);
    });

    it('takes a chain id as its family names it: a string (cosmoshub-4) or a number (EIP-155), stored as text and shown as given', async () => {
      const { auth } = await tenant();
      const chain = await chainOf(auth, { family: 'cometbft', chain_id: 'cosmoshub-4' });
      expect(chain).toMatchObject({ family: 'cometbft', chain_id: 'cosmoshub-4' });
      const numeric = await patch(`/v1/chains/${chain.id}`, auth, { chain_id: 137 });
      expect(numeric.body.chain_id).toBe(137);
      const [row] = await stack.sql<{ chain_id: string }[]>`select chain_id from chains where id = ${chain.id}`;
      expect(row!.chain_id).toBe('137');
      for (const bad of ['has space', '', 'x'.repeat(65), -1, 1.5]) {
        const refused = await patch(`/v1/chains/${chain.id}`, auth, { chain_id: bad });
        expect(refused.status, JSON.stringify(bad)).toBe(400);
        expect(fields(refused.body)).toEqual(['chain_id']);
      }
    });

    it('refuses an empty body, unknown fields and bad values, listing each', async () => {
      const { auth } = await tenant();
      const chain = await chainOf(auth);
      const empty = await patch(`/v1/chains/${chain.id}`, auth, {});
      expect(empty.status).toBe(400);
      expect(empty.body.error.code).toBe('validation_error');
      expect(fields(empty.body)).toEqual(['(body)']);
      const noBody = await patch(`/v1/chains/${chain.id}`, auth);
      expect(noBody.status).toBe(400);
      const bad = await patch(`/v1/chains/${chain.id}`, auth, { id: MISSING, colour: 'red', slug: 'Bad Slug', explorer_url: 'ftp://x', family: 'cosmos' });
      expect(bad.status).toBe(400);
      expect(fields(bad.body)).toEqual(['colour', 'explorer_url', 'family', 'id', 'slug']);
      expect(bad.body.error.details.find((d: any) => d.field === 'colour').message).toBe('unknown field');
    });

    it('answers 409 when the new slug is taken, 404 for an unknown chain, 403 for another tenant or a read-only key', async () => {
      const owner = await tenant();
      const a = await chainOf(owner.auth);
      const b = await chainOf(owner.auth);
      const clash = await patch(`/v1/chains/${b.id}`, owner.auth, { slug: a.slug });
      expect(clash.status).toBe(409);
      expect(clash.body.error).toMatchObject({ code: 'conflict', message: expect.stringContaining(a.slug) });
      expect((await patch(`/v1/chains/${MISSING}`, owner.auth, { name: 'x' })).status).toBe(404);
      expect((await patch('/v1/chains/not-a-uuid', owner.auth, { name: 'x' })).body.error.details[0].field).toBe('chainId');
      const other = await tenant();
      const foreign = await patch(`/v1/chains/${a.id}`, other.auth, { name: 'stolen' });
      expect(foreign.status).toBe(403);
      expect(foreign.body.error.code).toBe('forbidden');
      const readOnly = await stack.newTenant(['chains:read']);
      expect((await patch(`/v1/chains/${a.id}`, readOnly.auth, { name: 'x' })).status).toBe(403);
      expect((await get<any>(stack.app, `/v1/chains/${a.id}`, owner.auth)).body.name).toBe('Chain');
    });
  });

  describe('PATCH /v1/endpoints/:endpointId', () => {
    it('re-validates, re-encrypts and re-redacts the URL, replaces all headers, and never returns a secret', async () => {
      const { auth } = await tenant();
      const chain = await chainOf(auth);
      const endpoint = await endpointOf(auth, chain.id, {
        url: 'https://rpc.example.com/v2/OldS3cretKey0123456789abcdef',
        headers: { 'x-api-key': 'OldS3cretHeader', 'x-team': 'OldS3cretTeam' },
      });
      const newUrl = 'https://user:pw-NewS3cret@other.example.com/v3/NewS3cretKey0123456789abcdef?apikey=NewS3cretQuery';
      const patched = await patch(`/v1/endpoints/${endpoint.id}`, auth, {
        name: 'renamed',
        url: newUrl,
        headers: { authorization: 'Bearer NewS3cretToken' },
        timeout_ms: 3_000,
      });
      expect(patched.status, JSON.stringify(patched.body)).toBe(200);
      expect(patched.body).toMatchObject({
        id: endpoint.id,
        chain_id: chain.id,
        name: 'renamed',
        url: 'https://****@other.example.com/****/****?****',
        header_names: ['authorization'],
        timeout_ms: 3_000,
        created_at: endpoint.created_at,
      });
      expect(JSON.stringify(patched.body)).not.toMatch(/S3cret/);
      const [row] = await stack.sql<any[]>`select * from endpoints where id = ${endpoint.id}`;
      expect(JSON.stringify(row)).not.toMatch(/S3cret/);
      expect(stack.box.decrypt(row.url_encrypted)).toBe(newUrl);
      expect(JSON.parse(stack.box.decrypt(row.headers_encrypted))).toEqual({ authorization: 'Bearer NewS3cretToken' });
      expect(row.updated_at.getTime()).toBeGreaterThan(row.created_at.getTime());

      const cleared = await patch(`/v1/endpoints/${endpoint.id}`, auth, { headers: {} });
      expect(cleared.body.header_names).toEqual([]);
      expect(cleared.body.url).toBe(patched.body.url);
      const [after] = await stack.sql<any[]>`select headers_encrypted, url_encrypted from endpoints where id = ${endpoint.id}`;
      expect(after!.headers_encrypted).toBeNull();
      expect(stack.box.decrypt(after!.url_encrypted)).toBe(newUrl);
    });

    it('writes nothing when every given value equals the stored one (the URL and headers compared decrypted)', async () => {
      const { auth } = await tenant();
      const chain = await chainOf(auth);
      const url = 'https://rpc.example.com/v2/SameS3cretKey0123456789abcdef';
      const endpoint = await endpointOf(auth, chain.id, { url, headers: { 'x-api-key': 'SameS3cret', 'x-team': 'a' } });
      const [before] = await stack.sql<any[]>`select * from endpoints where id = ${endpoint.id}`;
      // Header order is not a change; the values are what rvs apply sends on every apply.
      const same = await patch(`/v1/endpoints/${endpoint.id}`, auth, { name: endpoint.name, url, headers: { 'x-team': 'a', 'x-api-key': 'SameS3cret' }, timeout_ms: endpoint.timeout_ms });
      expect(same.status, JSON.stringify(same.body)).toBe(200);
      expect(same.body).toEqual(endpoint);
      // Not even encrypted afresh: the encrypted values are the probes' connection-pool key.
      const [after] = await stack.sql<any[]>`select * from endpoints where id = ${endpoint.id}`;
      expect(after).toEqual(before);

      const changed = await patch(`/v1/endpoints/${endpoint.id}`, auth, { url, headers: { 'x-api-key': 'OtherS3cret', 'x-team': 'a' } });
      expect(changed.body.updated_at).not.toBe(endpoint.updated_at);
      const [row] = await stack.sql<any[]>`select * from endpoints where id = ${endpoint.id}`;
      expect(row.url_encrypted).toBe(before.url_encrypted);
      expect(JSON.parse(stack.box.decrypt(row.headers_encrypted))).toEqual({ 'x-api-key': 'OtherS3cret', 'x-team': 'a' });
    });

    it('refuses a bad URL scheme, link-local hosts, the chain, unknown fields and an empty body', async () => {
      const { auth } = await tenant();
      const chain = await chainOf(auth);
      const endpoint = await endpointOf(auth, chain.id);
      const url = `/v1/endpoints/${endpoint.id}`;
      for (const bad of ['ftp://rpc.example.com/', 'ws://rpc.example.com/', 'http://169.254.169.254/latest/meta-data', 'not a url']) {
        const response = await patch(url, auth, { url: bad });
        expect(response.status, bad).toBe(400);
        expect(fields(response.body)).toEqual(['url']);
      }
      // Create shares the URL rules (a string that is no URL at all once crashed the host check).
      const created = await post<any>(stack.app, '/v1/endpoints', auth, { chain_id: chain.id, name: 'x', url: 'not a url' });
      expect(created.status).toBe(400);
      expect(fields(created.body)).toEqual(['url']);
      const unknown = await patch(url, auth, { chain_id: MISSING, protocol: 'json-rpc-http', headers: { Host: 'x' }, timeout_ms: 10 });
      expect(fields(unknown.body)).toEqual(['chain_id', 'headers.Host', 'protocol', 'timeout_ms']);
      expect(fields((await patch(url, auth, {})).body)).toEqual(['(body)']);
      const [row] = await stack.sql`select url_redacted, updated_at = created_at as untouched from endpoints where id = ${endpoint.id}`;
      expect(row).toEqual({ url_redacted: endpoint.url, untouched: true });
    });

    it('answers 404 for an unknown endpoint and 403 for another tenant\u2019s', async () => {
      const owner = await tenant();
      const endpoint = await endpointOf(owner.auth, (await chainOf(owner.auth)).id);
      expect((await patch(`/v1/endpoints/${MISSING}`, owner.auth, { name: 'x' })).status).toBe(404);
      const other = await tenant();
      expect((await patch(`/v1/endpoints/${endpoint.id}`, other.auth, { url: 'https://evil.example/' })).status).toBe(403);
      const noScope = await stack.newTenant(['endpoints:read']);
      expect((await patch(`/v1/endpoints/${endpoint.id}`, noScope.auth, { name: 'x' })).status).toBe(403);
    });
  });

  describe('PATCH /v1/suites/:suiteId', () => {
    it('renames without touching the config, and replaces the config (suite_endpoints included)', async () => {
      const { auth } = await tenant();
      const chain = await chainOf(auth);
      const [a, b, c] = [await endpointOf(auth, chain.id), await endpointOf(auth, chain.id), await endpointOf(auth, chain.id)];
      const suite = await suiteOf(auth, chain.id, [a.id], { reference_endpoint_id: b.id, workload: { requests_per_target: 10 } });
      expect(await suiteEndpoints(suite.id)).toEqual([a.id, b.id].sort());

      const renamed = await patch(`/v1/suites/${suite.id}`, auth, { name: 'nightly', description: 'every night' });
      expect(renamed.status).toBe(200);
      expect(renamed.body).toMatchObject({ name: 'nightly', description: 'every night', config: suite.config });

      const replaced = await patch(`/v1/suites/${suite.id}`, auth, {
        config: { targets: [{ endpoint_id: c.id }], thresholds: { latency_p95_max_ms: 250 } },
      });
      expect(replaced.status, JSON.stringify(replaced.body)).toBe(200);
      // A full replacement: what is not given goes back to its default.
      expect(replaced.body.config).toMatchObject({
        targets: [{ endpoint_id: c.id, role: 'primary' }],
        reference_endpoint_id: null,
        workload: { requests_per_target: 100 },
        thresholds: { latency_p95_max_ms: 250 },
      });
      expect(replaced.body.name).toBe('nightly');
      expect(await suiteEndpoints(suite.id)).toEqual([c.id]);
      expect((await get<any>(stack.app, `/v1/suites/${suite.id}`, auth)).body).toEqual(replaced.body);
      const [row] = await stack.sql`select updated_at > created_at as bumped from suites where id = ${suite.id}`;
      expect(row!.bumped).toBe(true);
    });

    it('warns, on create and on change, about checks the workload is too small to let decide', async () => {
      const { auth } = await tenant();
      const chain = await chainOf(auth);
      const [a, b] = [await endpointOf(auth, chain.id), await endpointOf(auth, chain.id)];
      const small = await suiteOf(auth, chain.id, [a.id], { reference_endpoint_id: b.id, workload: { requests_per_target: 60 } });
      expect(small.warnings.map((w: { check: string }) => w.check)).toEqual(['latency_vs_reference', 'latency_vs_baseline', 'availability']);
      expect(small.warnings[0].message).toContain('can fail (from 59 calls) but not pass on its interval (from 72)');
      const grown = await patch(`/v1/suites/${small.id}`, auth, {
        config: { targets: [{ endpoint_id: a.id }], reference_endpoint_id: b.id, workload: { requests_per_target: 500 } },
      });
      expect(grown.status).toBe(200);
      expect(grown.body.warnings).toEqual([]);
    });

    it('validates a new config like a create: ranges, sizes, endpoints, unknown fields', async () => {
      const { auth } = await tenant();
      const chain = await chainOf(auth);
      const otherChain = await chainOf(auth);
      const a = await endpointOf(auth, chain.id);
      const elsewhere = await endpointOf(auth, otherChain.id);
      const suite = await suiteOf(auth, chain.id, [a.id]);
      const url = `/v1/suites/${suite.id}`;
      const targets = [{ endpoint_id: a.id }];

      const threshold = await patch(url, auth, { config: { targets, thresholds: { latency_p95_max_ms: -1, correctness_min_pct: 101 } } });
      expect(threshold.status).toBe(400);
      expect(fields(threshold.body)).toEqual(['config.thresholds.correctness_min_pct', 'config.thresholds.latency_p95_max_ms']);

      const tooLarge = await patch(url, auth, {
        config: {
          targets,
          workload: {
            requests_per_target: 2_000_000,
            concurrency: 1_000,
            methods: Array.from({ length: 51 }, () => ({ method: 'eth_chainId' })),
          },
        },
      });
      expect(fields(tooLarge.body)).toEqual(['config.workload.concurrency', 'config.workload.methods', 'config.workload.requests_per_target']);

      const foreignEndpoint = await patch(url, auth, { config: { targets: [{ endpoint_id: elsewhere.id }] } });
      expect(foreignEndpoint.body.error.details).toEqual([{ field: 'config.targets.0.endpoint_id', message: 'endpoint belongs to another chain' }]);

      const unknown = await patch(url, auth, { chain_id: otherChain.id, config: { targets, colour: 'red' } });
      expect(fields(unknown.body)).toEqual(['chain_id']);
      const unknownInConfig = await patch(url, auth, { config: { targets, colour: 'red' } });
      expect(fields(unknownInConfig.body)).toEqual(['config.colour']);
      expect(fields((await patch(url, auth, { config: 'nope' })).body)).toEqual(['config']);
      expect(fields((await patch(url, auth, {})).body)).toEqual(['(body)']);

      // Nothing above changed the suite.
      expect((await get<any>(stack.app, url, auth)).body).toEqual(suite);
      expect(await suiteEndpoints(suite.id)).toEqual([a.id]);
    });

    it('answers 404 for an unknown suite and 403 for another tenant\u2019s', async () => {
      const owner = await tenant();
      const chain = await chainOf(owner.auth);
      const suite = await suiteOf(owner.auth, chain.id, [(await endpointOf(owner.auth, chain.id)).id]);
      expect((await patch(`/v1/suites/${MISSING}`, owner.auth, { name: 'x' })).status).toBe(404);
      const other = await tenant();
      expect((await patch(`/v1/suites/${suite.id}`, other.auth, { name: 'x' })).status).toBe(403);
      expect((await del(`/v1/suites/${suite.id}`, other.auth)).status).toBe(403);
    });
  });

  describe('DELETE', () => {
    it('deletes unreferenced resources (204), after which they are 404', async () => {
      const { auth } = await tenant();
      const chain = await chainOf(auth);
      const endpoint = await endpointOf(auth, chain.id);
      const suite = await suiteOf(auth, chain.id, [endpoint.id]);
      for (const url of [`/v1/suites/${suite.id}`, `/v1/endpoints/${endpoint.id}`, `/v1/chains/${chain.id}`]) {
        const deleted = await del(url, auth);
        expect(deleted.status, url).toBe(204);
        expect(deleted.body).toBeNull();
        expect((await get<any>(stack.app, url, auth)).status, url).toBe(404);
        expect((await del(url, auth)).status, url).toBe(404);
      }
      expect(await suiteEndpoints(suite.id)).toEqual([]);
    });

    it('answers 409 naming what still references a chain, an endpoint or a suite', async () => {
      const { auth } = await tenant();
      const chain = await chainOf(auth);
      const [a, b] = [await endpointOf(auth, chain.id), await endpointOf(auth, chain.id)];
      const suite = await suiteOf(auth, chain.id, [a.id, b.id], {}, 'release gate');

      const chainInUse = await del(`/v1/chains/${chain.id}`, auth);
      expect(chainInUse.status).toBe(409);
      expect(chainInUse.body.error).toMatchObject({ code: 'conflict', message: expect.stringMatching(/2 endpoints and 1 suite/) });

      const endpointInSuite = await del(`/v1/endpoints/${a.id}`, auth);
      expect(endpointInSuite.status).toBe(409);
      expect(endpointInSuite.body.error.message).toMatch(/1 suite \("release gate"\)/);

      // A run references the suite, and (through its targets) both endpoints.
      const run = await post<any>(stack.app, `/v1/suites/${suite.id}/runs`, auth);
      expect(run.status, JSON.stringify(run.body)).toBe(201);
      const suiteWithRun = await del(`/v1/suites/${suite.id}`, auth);
      expect(suiteWithRun.status).toBe(409);
      expect(suiteWithRun.body.error.message).toMatch(/1 run\b/);

      // Once the suite no longer names b, only the run still holds it.
      expect((await patch(`/v1/suites/${suite.id}`, auth, { config: { targets: [{ endpoint_id: a.id }] } })).status).toBe(200);
      const endpointInRun = await del(`/v1/endpoints/${b.id}`, auth);
      expect(endpointInRun.status).toBe(409);
      expect(endpointInRun.body.error.message).toMatch(/1 run/);
      expect(endpointInRun.body.error.message).not.toMatch(/suite/);

      // Nothing was deleted.
      for (const url of [`/v1/chains/${chain.id}`, `/v1/endpoints/${a.id}`, `/v1/endpoints/${b.id}`, `/v1/suites/${suite.id}`]) {
        expect((await get<any>(stack.app, url, auth)).status, url).toBe(200);
      }
    });

    it('maps a foreign-key violation to 409 when a reference appears after the check', async () => {
      const { auth, tenantId } = await tenant();
      const chain = await chainOf(auth);
      const endpoint = await endpointOf(auth, chain.id);
      // Simulate the race: a trigger inserts a referencing row just before the delete runs.
      const fn = `rvs_test_race_${randomUUID().replace(/-/g, '')}`;
      await stack.sql.unsafe(`
        create function ${fn}() returns trigger language plpgsql as $$
        begin
          insert into suites (id, tenant_id, chain_id, name, config)
          values (gen_random_uuid(), '${tenantId}', old.id, 'late', '{}');
          return old;
        end $$`);
      await stack.sql.unsafe(`create trigger ${fn} before delete on chains for each row when (old.id = '${chain.id}') execute function ${fn}()`);
      try {
        await stack.sql`delete from endpoints where id = ${endpoint.id}`;
        const raced = await del(`/v1/chains/${chain.id}`, auth);
        expect(raced.status).toBe(409);
        // The backstop's message (the explicit check saw nothing, so only the foreign key caught it).
        expect(raced.body.error).toMatchObject({ code: 'conflict', message: 'the chain is still used by endpoints or suites; delete them first' });
      } finally {
        await stack.sql.unsafe(`drop trigger ${fn} on chains`);
        await stack.sql.unsafe(`drop function ${fn}()`);
      }
      expect((await get<any>(stack.app, `/v1/chains/${chain.id}`, auth)).status).toBe(200);
    });

    it('answers 403 for another tenant and without the write scope, 404 for unknown ids', async () => {
      const owner = await tenant();
      const chain = await chainOf(owner.auth);
      const endpoint = await endpointOf(owner.auth, chain.id);
      const other = await tenant();
      expect((await del(`/v1/chains/${chain.id}`, other.auth)).status).toBe(403);
      expect((await del(`/v1/endpoints/${endpoint.id}`, other.auth)).status).toBe(403);
      const readOnly = await stack.newTenant(['chains:read', 'endpoints:read', 'suites:read']);
      expect((await del(`/v1/endpoints/${endpoint.id}`, readOnly.auth)).status).toBe(403);
      for (const kind of ['chains', 'endpoints', 'suites']) {
        expect((await del(`/v1/${kind}/${MISSING}`, owner.auth)).status).toBe(404);
        expect((await del(`/v1/${kind}/nope`, owner.auth)).status).toBe(400);
      }
    });
  });

  describe('catalog', () => {
    it('seeds the built-in presets exactly as src/domain/catalog-presets.ts states them', async () => {
      const chains = await stack.sql<any[]>`
        select id, slug, name, family, chain_id, explorer_url from catalog_chain_presets
        where tenant_id is null order by id`;
      // Stored as text (migration 034): a number as its decimal text.
      expect(chains).toEqual([...BUILTIN_CHAIN_PRESETS].map((p) => ({ ...p, chain_id: storedChainId(p.chain_id) })).sort((x, y) => x.id.localeCompare(y.id)));
      const workloads = await stack.sql<any[]>`
        select id, slug, name, family, description, workload from catalog_workload_presets where tenant_id is null order by id`;
      expect(workloads).toEqual([...BUILTIN_WORKLOAD_PRESETS].sort((x, y) => x.id.localeCompare(y.id)));
    });

    it('lists built-ins plus the caller\u2019s own entries in the pagination envelope, never another tenant\u2019s', async () => {
      const { auth } = await tenant(['catalog:read', 'catalog:write']);
      const other = await tenant(['catalog:read', 'catalog:write']);
      const mine = await post<any>(stack.app, '/v1/catalog/chains', auth, { slug: 'devnet', name: 'Devnet', chain_id: 31337 });
      expect(mine.status, JSON.stringify(mine.body)).toBe(201);
      expect(mine.headers.location).toBe(`/v1/catalog/chains/${mine.body.id}`);
      expect(mine.body).toEqual({
        id: expect.any(String),
        slug: 'devnet',
        name: 'Devnet',
        family: 'evm',
        chain_id: 31337,
        explorer_url: null,
        built_in: false,
        created_at: expect.any(String),
      });
      expect((await post<any>(stack.app, '/v1/catalog/chains', other.auth, { slug: 'theirs', name: 'Theirs', family: 'bitcoin' })).status).toBe(201);

      const list = await get<any>(stack.app, '/v1/catalog/chains', auth);
      expect(list.status).toBe(200);
      const builtIns = BUILTIN_CHAIN_PRESETS.length;
      expect(list.body.pagination).toEqual({ total: builtIns + 1, limit: 50, offset: 0, has_more: false });
      expect(list.body.data[0].slug).toBe('devnet'); // newest first
      expect(list.body.data.map((p: any) => p.slug)).not.toContain('theirs');
      const ethereum = list.body.data.find((p: any) => p.slug === 'ethereum');
      expect(ethereum).toEqual({
        id: BUILTIN_CHAIN_PRESETS[0]!.id,
        slug: 'ethereum',
        name: 'Ethereum Mainnet',
        family: 'evm',
        chain_id: 1,
        explorer_url: 'https://etherscan.io',
        built_in: true,
        created_at: expect.any(String),
      });
      const paged = await get<any>(stack.app, '/v1/catalog/chains?limit=3&offset=3', auth);
      expect(paged.body.pagination).toEqual({ total: builtIns + 1, limit: 3, offset: 3, has_more: true });
      expect(paged.body.data).toHaveLength(3);
      expect((await get<any>(stack.app, '/v1/catalog/chains?family=bitcoin', other.auth)).body.data.map((p: any) => p.slug)).toEqual([
        'theirs',
        ...BUILTIN_CHAIN_PRESETS.filter((p) => p.family === 'bitcoin').map((p) => p.slug).reverse(),
      ]);
      expect((await get<any>(stack.app, '/v1/catalog/chains?family=cosmos', auth)).status).toBe(400);
      expect((await get<any>(stack.app, '/v1/catalog/chains?limit=0', auth)).status).toBe(400);

      const workloads = await get<any>(stack.app, '/v1/catalog/workloads', auth);
      expect(workloads.body.pagination.total).toBe(BUILTIN_WORKLOAD_PRESETS.length);
      expect(workloads.body.data.find((p: any) => p.slug === 'evm-standard')).toMatchObject({
        id: EVM_STANDARD.id,
        workload: EVM_STANDARD.workload,
        built_in: true,
      });
    });

    it('gets one preset by id or by slug; another tenant\u2019s is 403, unknown 404', async () => {
      const { auth } = await tenant(['catalog:read', 'catalog:write']);
      const byId = await get<any>(stack.app, `/v1/catalog/workloads/${EVM_STANDARD.id}`, auth);
      expect(byId.status).toBe(200);
      expect(byId.body).toMatchObject({ slug: 'evm-standard', family: 'evm', built_in: true, description: EVM_STANDARD.description });
      expect((await get<any>(stack.app, '/v1/catalog/workloads/evm-standard', auth)).body).toEqual(byId.body);
      expect((await get<any>(stack.app, '/v1/catalog/chains/base', auth)).body).toMatchObject({ chain_id: 8453, explorer_url: 'https://basescan.org' });
      expect((await get<any>(stack.app, `/v1/catalog/chains/${MISSING}`, auth)).status).toBe(404);
      expect((await get<any>(stack.app, '/v1/catalog/chains/no-such-slug', auth)).status).toBe(404);
      const malformed = await get<any>(stack.app, '/v1/catalog/chains/Not%20A%20Slug', auth);
      expect(malformed.status).toBe(400);
      expect(fields(malformed.body)).toEqual(['presetId']);

      const other = await tenant(['catalog:read', 'catalog:write']);
      const theirs = await post<any>(stack.app, '/v1/catalog/chains', other.auth, { slug: 'private-net', name: 'Private' });
      expect((await get<any>(stack.app, `/v1/catalog/chains/${theirs.body.id}`, auth)).status).toBe(403);
      expect((await get<any>(stack.app, '/v1/catalog/chains/private-net', auth)).status).toBe(404);
      expect((await del(`/v1/catalog/chains/${theirs.body.id}`, auth)).status).toBe(403);
    });

    it('adds and deletes tenant entries; built-ins cannot be deleted or shadowed', async () => {
      const { auth } = await tenant(['catalog:read', 'catalog:write']);
      const workload = { methods: [{ method: 'eth_getBlockByNumber', params: ['{{pinned_block}}', true] }], concurrency: 2 };
      const created = await post<any>(stack.app, '/v1/catalog/workloads', auth, { slug: 'full-blocks', name: 'Full blocks', workload });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      // Stored as given, without defaults, so suites merge their overrides with what was written.
      expect(created.body).toMatchObject({ slug: 'full-blocks', family: 'evm', description: '', workload, built_in: false });

      const duplicate = await post<any>(stack.app, '/v1/catalog/workloads', auth, { slug: 'full-blocks', name: 'again', workload });
      expect(duplicate.status).toBe(409);
      const shadow = await post<any>(stack.app, '/v1/catalog/workloads', auth, { slug: 'evm-standard', name: 'mine', workload });
      expect(shadow.status).toBe(409);
      expect(shadow.body.error.message).toMatch(/built-in/);
      expect((await post<any>(stack.app, '/v1/catalog/chains', auth, { slug: 'ethereum', name: 'Eth' })).status).toBe(409);

      const builtIn = await del(`/v1/catalog/workloads/${EVM_STANDARD.id}`, auth);
      expect(builtIn.status).toBe(403);
      expect(builtIn.body.error.message).toMatch(/built-in/);
      expect((await del('/v1/catalog/chains/ethereum', auth)).status).toBe(403);
      expect((await del(`/v1/catalog/workloads/${MISSING}`, auth)).status).toBe(404);

      expect((await del(`/v1/catalog/workloads/${created.body.id}`, auth)).status).toBe(204);
      expect((await get<any>(stack.app, `/v1/catalog/workloads/${created.body.id}`, auth)).status).toBe(404);
      const chainPreset = await post<any>(stack.app, '/v1/catalog/chains', auth, { slug: 'my-l2', name: 'My L2', chain_id: 999 });
      expect((await del('/v1/catalog/chains/my-l2', auth)).status).toBe(204);
      expect((await get<any>(stack.app, `/v1/catalog/chains/${chainPreset.body.id}`, auth)).status).toBe(404);
    });

    it('validates new entries: strict bodies, slugs, a valid and bounded workload', async () => {
      const { auth } = await tenant(['catalog:read', 'catalog:write']);
      const chain = await post<any>(stack.app, '/v1/catalog/chains', auth, {
        slug: '0c0a1a00-0000-4000-8000-000000000001',
        name: '',
        explorer_url: 'javascript:alert(1)',
        built_in: true,
      });
      expect(chain.status).toBe(400);
      expect(fields(chain.body)).toEqual(['built_in', 'explorer_url', 'name', 'slug']);

      const workload = await post<any>(stack.app, '/v1/catalog/workloads', auth, {
        slug: 'bad',
        name: 'bad',
        workload: { methods: [{ method: 'eth call!' }], requests_per_target: 0, preset: 'evm-standard' },
      });
      expect(workload.status).toBe(400);
      expect(fields(workload.body)).toEqual(['workload.methods.0.method', 'workload.preset', 'workload.requests_per_target']);

      const huge = await post<any>(stack.app, '/v1/catalog/workloads', auth, {
        slug: 'huge',
        name: 'huge',
        workload: { methods: [{ method: 'eth_call', params: ['x'.repeat(70 * 1024)] }] },
      });
      expect(huge.status).toBe(400);
      expect(huge.body.error.details).toEqual([{ field: 'workload', message: 'must be at most 64 KiB as JSON' }]);
    });

    it('needs catalog:read to read and catalog:write to write', async () => {
      const readOnly = await tenant(['catalog:read']);
      expect((await get<any>(stack.app, '/v1/catalog/chains', readOnly.auth)).status).toBe(200);
      expect((await post<any>(stack.app, '/v1/catalog/chains', readOnly.auth, { slug: 'x', name: 'x' })).status).toBe(403);
      expect((await del('/v1/catalog/chains/ethereum', readOnly.auth)).status).toBe(403);
      const none = await tenant(['chains:read']);
      expect((await get<any>(stack.app, '/v1/catalog/workloads', none.auth)).status).toBe(403);
      expect((await get<any>(stack.app, '/v1/catalog/workloads', {} as Auth)).status).toBe(401);
    });
  });

  describe('creating from presets', () => {
    it('creates a chain from a preset by slug or id, explicit fields overriding', async () => {
      const { auth } = await tenant();
      const base = await post<any>(stack.app, '/v1/chains', auth, { preset: 'base' });
      expect(base.status, JSON.stringify(base.body)).toBe(201);
      expect(base.body).toMatchObject({ name: 'Base', slug: 'base', family: 'evm', chain_id: 8453, explorer_url: 'https://basescan.org' });

      const sepolia = BUILTIN_CHAIN_PRESETS.find((p) => p.slug === 'sepolia')!;
      const byId = await post<any>(stack.app, '/v1/chains', auth, { preset: sepolia.id, slug: 'sepolia-staging', name: 'Sepolia (staging)' });
      expect(byId.body).toMatchObject({
        name: 'Sepolia (staging)',
        slug: 'sepolia-staging',
        chain_id: 11155111,
        explorer_url: 'https://sepolia.etherscan.io',
      });
      const nulled = await post<any>(stack.app, '/v1/chains', auth, { preset: 'bsc', slug: 'bsc-no-explorer', explorer_url: null });
      expect(nulled.body).toMatchObject({ chain_id: 56, explorer_url: null, name: 'BNB Smart Chain' });

      // The preset's slug is already in use by this tenant.
      expect((await post<any>(stack.app, '/v1/chains', auth, { preset: 'base' })).status).toBe(409);

      const unknown = await post<any>(stack.app, '/v1/chains', auth, { preset: 'no-such-chain' });
      expect(unknown.status).toBe(400);
      expect(unknown.body.error.details).toEqual([{ field: 'preset', message: 'no such chain preset in the catalog' }]);
      const withoutPreset = await post<any>(stack.app, '/v1/chains', auth, { chain_id: 5 });
      expect(fields(withoutPreset.body)).toEqual(['name', 'slug']);
      const badOverride = await post<any>(stack.app, '/v1/chains', auth, { preset: 'base', chain_id: -1 });
      expect(fields(badOverride.body)).toEqual(['chain_id']);
    });

    it('a chain can come from the tenant\u2019s own preset, never from another tenant\u2019s', async () => {
      const { auth } = await tenant();
      const own = await post<any>(stack.app, '/v1/catalog/chains', auth, { slug: 'devnet', name: 'Devnet', chain_id: 31337 });
      expect((await post<any>(stack.app, '/v1/chains', auth, { preset: 'devnet' })).body).toMatchObject({ chain_id: 31337, slug: 'devnet' });
      const other = await tenant();
      const stolen = await post<any>(stack.app, '/v1/chains', other.auth, { preset: own.body.id });
      expect(stolen.status).toBe(400);
      expect(fields(stolen.body)).toEqual(['preset']);
    });

    it('a suite from the evm-standard preset validates and stores the resolved methods with the overrides', async () => {
      const { auth } = await tenant();
      const chain = (await post<any>(stack.app, '/v1/chains', auth, { preset: 'ethereum' })).body;
      const endpoint = await endpointOf(auth, chain.id);
      const suite = await suiteOf(auth, chain.id, [endpoint.id], {
        workload: { preset: 'evm-standard', requests_per_target: 500, concurrency: 8 },
      });
      const expectedMethods = (EVM_STANDARD.workload as { methods: unknown[] }).methods;
      expect(suite.config.workload).toMatchObject({ methods: expectedMethods, requests_per_target: 500, concurrency: 8, duration_s: null });
      expect(suite.config.workload).not.toHaveProperty('preset');
      const [row] = await stack.sql<any[]>`select config from suites where id = ${suite.id}`;
      expect(row!.config.workload.methods).toEqual(expectedMethods);

      // A duration override replaces the (default) request count; by id works as well.
      const campaign = await suiteOf(auth, chain.id, [endpoint.id], { workload: { preset: EVM_STANDARD.id, duration_s: 600 } });
      expect(campaign.config.workload).toMatchObject({ methods: expectedMethods, duration_s: 600, requests_per_target: null });

      // PATCH resolves presets too.
      const patched = await patch(`/v1/suites/${campaign.id}`, auth, {
        config: { targets: [{ endpoint_id: endpoint.id }], workload: { preset: 'evm-standard', methods: [{ method: 'eth_chainId' }] } },
      });
      expect(patched.body.config.workload.methods).toEqual([{ method: 'eth_chainId', params: [], weight: 1 }]);
    });

    it('every evm-standard call is answered without error by a real EVM node (ganache, loopback)', async () => {
      const node = await startGanache();
      try {
        const methods = (EVM_STANDARD.workload as { methods: { method: string; params: unknown[] }[] }).methods;
        const answers = new Map<string, unknown>();
        for (const [id, m] of methods.entries()) {
          const response = await fetch(node.url, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ jsonrpc: '2.0', id, method: m.method, params: templateParams(m.params, node.pinnedBlock, CHAINS.evm.renderPinned) }),
          });
          const body = (await response.json()) as { result?: unknown; error?: unknown };
          expect(body.error, m.method).toBeUndefined();
          expect(body, m.method).toHaveProperty('result');
          answers.set(m.method, body.result);
        }
        expect(answers.get('eth_getBlockByNumber')).toMatchObject({ number: `0x${node.pinnedBlock.toString(16)}` });
        expect(answers.get('eth_getLogs')).toEqual([]); // ganache's contract logs are not Transfers
        expect(answers.get('eth_getTransactionReceipt')).toBeNull();
        expect(answers.get('eth_call')).toBe('0x'); // no Multicall3 on a fresh dev chain
      } finally {
        await node.close();
      }
    });

    it('merges a tenant workload preset with overrides and validates the result', async () => {
      const { auth } = await tenant();
      const workload = { methods: [{ method: 'eth_getBalance', params: ['0x0000000000000000000000000000000000000000', '{{pinned_block}}'] }], requests_per_target: 50, block_lag: 12 };
      expect((await post<any>(stack.app, '/v1/catalog/workloads', auth, { slug: 'balances', name: 'Balances', workload })).status).toBe(201);
      const chain = await chainOf(auth);
      const endpoint = await endpointOf(auth, chain.id);
      const suite = await suiteOf(auth, chain.id, [endpoint.id], { workload: { preset: 'balances', duration_s: 60 } });
      expect(suite.config.workload).toMatchObject({ methods: [{ method: 'eth_getBalance' }], block_lag: 12, duration_s: 60, requests_per_target: null });

      const invalid = await post<any>(stack.app, '/v1/suites', auth, {
        chain_id: chain.id,
        name: 'x',
        config: { targets: [{ endpoint_id: endpoint.id }], workload: { preset: 'balances', concurrency: 100_000, colour: 'red' } },
      });
      expect(invalid.status).toBe(400);
      expect(fields(invalid.body)).toEqual(['config.workload.colour', 'config.workload.concurrency']);
    });

    it('refuses an unknown preset, a malformed reference and a preset of another chain family', async () => {
      const { auth } = await tenant();
      const chain = await chainOf(auth);
      const endpoint = await endpointOf(auth, chain.id);
      const create = (workload: unknown, chainId = chain.id) =>
        post<any>(stack.app, '/v1/suites', auth, { chain_id: chainId, name: 'x', config: { targets: [{ endpoint_id: endpoint.id }], workload } });
      expect((await create({ preset: 'nope' })).body.error.details).toEqual([
        { field: 'config.workload.preset', message: 'no such workload preset in the catalog' },
      ]);
      expect(fields((await create({ preset: 42 })).body)).toEqual(['config.workload.preset']);

      const solana = await chainOf(auth, { family: 'solana', chain_id: null });
      const solanaEndpoint = await endpointOf(auth, solana.id);
      const mismatch = await post<any>(stack.app, '/v1/suites', auth, {
        chain_id: solana.id,
        name: 'x',
        config: { targets: [{ endpoint_id: solanaEndpoint.id }], workload: { preset: 'evm-standard' } },
      });
      expect(mismatch.status).toBe(400);
      expect(mismatch.body.error.details[0]).toEqual({
        field: 'config.workload.preset',
        message: '"evm-standard" is for evm chains; this suite\'s chain is solana',
      });
    });

    it('refuses suites and runs on a chain family without an adapter instead of probing them as EVM', async () => {
      const { auth } = await tenant();
      // Every family the chain resource accepts has an adapter: only a hand-edited row names another.
      for (const family of ['cosmos']) {
        const chain = await chainOf(auth, { family: 'evm', chain_id: null });
        const endpoint = await endpointOf(auth, chain.id);
        await stack.sql`update chains set family = ${family} where id = ${chain.id}`;
        const refused = await post<any>(stack.app, '/v1/suites', auth, { chain_id: chain.id, name: 'x', config: { targets: [{ endpoint_id: endpoint.id }] } });
        expect(refused.status, JSON.stringify(refused.body)).toBe(400);
        expect(refused.body.error).toMatchObject({ code: 'validation_error' });
        expect(refused.body.error.details).toEqual([
          { field: 'chain_id', message: `chains of family "${family}" cannot be verified yet; supported families: evm, bitcoin, solana, cometbft` },
        ]);
      }
      // A suite stored while its chain was EVM, whose chain names a family without an adapter now:
      // its run is refused too, and nothing is written.
      const chain = await chainOf(auth);
      const endpoint = await endpointOf(auth, chain.id);
      const suite = await suiteOf(auth, chain.id, [endpoint.id]);
      await stack.sql`update chains set family = 'cosmos' where id = ${chain.id}`;
      const run = await post<any>(stack.app, `/v1/suites/${suite.id}/runs`, auth);
      expect(run.status, JSON.stringify(run.body)).toBe(400);
      expect(run.body.error.details).toEqual([{ field: 'suite_id', message: 'chains of family "cosmos" cannot be verified yet; supported families: evm, bitcoin, solana, cometbft' }]);
      const [count] = await stack.sql<{ n: number }[]>`select count(*)::int as n from runs where test_suite_id = ${suite.id}`;
      expect(count!.n).toBe(0);
    });

    it('stores the chain family in the run snapshot', async () => {
      const { auth } = await tenant();
      const chain = await chainOf(auth);
      const endpoint = await endpointOf(auth, chain.id);
      const suite = await suiteOf(auth, chain.id, [endpoint.id]);
      const run = await post<any>(stack.app, `/v1/suites/${suite.id}/runs`, auth);
      expect(run.status, JSON.stringify(run.body)).toBe(201);
      const [row] = await stack.sql<{ family: string }[]>`select config_snapshot->'chain'->>'family' as family from runs where id = ${run.body.id}`;
      expect(row!.family).toBe('evm');
    });
  });
});
