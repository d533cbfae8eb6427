import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TENANT_SCOPES } from '../../src/auth/scopes';
import { createSuite, get, post, waitForRun } from '../helpers/api';
import { startFakeNode, type FakeNode } from '../helpers/json-rpc-node';
import { startStack, type Stack } from '../helpers/stack';

const ROOT = resolve(__dirname, '..', '..');
const BIN = join(ROOT, 'bin', 'rvs');

/** The real CLI (bin/rvs through tsx) as a child process, with only the environment given (and PATH). */
function rvs(args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith('RVS_') && !name.startsWith('GITHUB_') && !name.startsWith('CI_')),
  );
  return new Promise((done, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, env: { ...inherited, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => done({ code, stdout, stderr }));
  });
}

const WORKLOAD = { requests_per_target: 30, concurrency: 2, warmup_requests: 2, timeout_ms: 2_000 };

/**
 * Per-run targets (a pull request's own endpoint): a trigger's `targets` replace the suite's
 * candidates for that run only, so concurrent PRs never patch (and race on) the suite.
 */
describe('per-run targets', () => {
  let stack: Stack;
  let suiteNode: FakeNode;
  let previewA: FakeNode;
  let previewB: FakeNode;
  let baseUrl: string;

  beforeAll(async () => {
    stack = await startStack();
    [suiteNode, previewA, previewB] = await Promise.all([startFakeNode(), startFakeNode(), startFakeNode()]);
    baseUrl = await stack.app.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(async () => {
    await Promise.all([suiteNode, previewA, previewB].map((node) => node?.close()));
    await stack?.close();
  });

  it('two concurrent PR runs with different --target-urls against one suite each probe their own node, never the suite\'s', async () => {
    const { key, auth } = await stack.newTenant();
    const setup = await createSuite(stack.app, auth, { candidates: [suiteNode.url], config: { workload: WORKLOAD } });
    const before = { suite: suiteNode.requests.length, a: previewA.requests.length, b: previewB.requests.length };
    const env = { RVS_URL: baseUrl, RVS_API_KEY: key };
    const [prA, prB] = await Promise.all([
      rvs(['run', setup.suiteId, '--wait', '--format', 'json', '--target-url', `${previewA.url}/pr-1`], {
        ...env,
        GITHUB_HEAD_REF: 'feature/a',
        GITHUB_SHA: 'a'.repeat(40),
      }),
      rvs(['run', setup.suiteId, '--wait', '--format', 'json', '--target-url', `${previewB.url}/pr-2`, '--target-header', 'x-preview=pr-2'], {
        ...env,
        GITHUB_HEAD_REF: 'feature/b',
        GITHUB_SHA: 'b'.repeat(40),
      }),
    ]);
    expect(prA.code, prA.stderr).toBe(0);
    expect(prB.code, prB.stderr).toBe(0);

    // Each node got its own run's calls (warm-up included), the suite's candidate none.
    expect(previewA.requests.length - before.a).toBeGreaterThanOrEqual(WORKLOAD.requests_per_target + WORKLOAD.warmup_requests);
    expect(previewB.requests.length - before.b).toBeGreaterThanOrEqual(WORKLOAD.requests_per_target + WORKLOAD.warmup_requests);
    expect(suiteNode.requests.length).toBe(before.suite);
    expect(previewB.requests.slice(before.b).every((r) => r.headers['x-preview'] === 'pr-2')).toBe(true);
    expect(previewA.requests.slice(before.a).some((r) => r.headers['x-preview'] !== undefined)).toBe(false);

    const runs = await get<{ data: any[] }>(stack.app, `/v1/runs?suite_id=${setup.suiteId}`, auth);
    expect(runs.body.data).toHaveLength(2);
    const byBranch = Object.fromEntries(runs.body.data.map((run) => [run.branch, run]));
    for (const [branch, node, commit] of [['feature/a', previewA, 'a'], ['feature/b', previewB, 'b']] as const) {
      const run = (await get<any>(stack.app, `/v1/runs/${byBranch[branch].id}`, auth)).body;
      expect(run).toMatchObject({ status: 'success', branch, commit: commit.repeat(40), baseline_branch: 'main' });
      expect(run.targets).toHaveLength(1);
      const port = new URL(node.url).port;
      expect(run.targets[0]).toMatchObject({
        role: 'primary',
        ephemeral: true,
        endpoint_name: `127.0.0.1:${port}`,
        endpoint_url: `http://127.0.0.1:${port}/****`,
      });
      expect(run.targets[0].endpoint_id).not.toBe(setup.endpointIds[0]);
      // The run's config says what it probed; the suite itself is unchanged.
      expect(run.config_snapshot.targets).toEqual([{ endpoint_id: run.targets[0].endpoint_id, role: 'primary' }]);
    }
    const suite = await get<any>(stack.app, `/v1/suites/${setup.suiteId}`, auth);
    expect(suite.body.config.targets).toEqual([{ endpoint_id: setup.endpointIds[0], role: 'primary' }]);

    // A run's own endpoints are the run's, not the tenant's: not listed, not served, not nameable.
    const ephemeral = byBranch['feature/a'].targets[0].endpoint_id as string;
    const listed = await get<{ data: { id: string }[]; pagination: { total: number } }>(stack.app, '/v1/endpoints', auth);
    expect(listed.body.data.map((e) => e.id)).toEqual([setup.endpointIds[0]]);
    expect(listed.body.pagination.total).toBe(1);
    for (const method of ['GET', 'PATCH', 'DELETE'] as const) {
      const response = await stack.app.inject({ method, url: `/v1/endpoints/${ephemeral}`, headers: auth, ...(method === 'PATCH' ? { payload: { name: 'mine now' } } : {}) });
      expect(response.statusCode, method).toBe(404);
    }
    const asSuiteTarget = await post<any>(stack.app, '/v1/suites', auth, { chain_id: setup.chainId, name: 'steal', config: { targets: [{ endpoint_id: ephemeral }] } });
    expect(asSuiteTarget.status).toBe(400);
    expect(asSuiteTarget.body.error.details).toEqual([{ field: 'config.targets.0.endpoint_id', message: 'no such endpoint in your tenant' }]);
    const asRunTarget = await post<any>(stack.app, `/v1/suites/${setup.suiteId}/runs`, auth, { targets: [{ endpoint_id: ephemeral }] });
    expect(asRunTarget.status).toBe(400);
    expect(asRunTarget.body.error.details).toEqual([{ field: 'targets.0.endpoint_id', message: 'no such endpoint in your tenant' }]);
  });

  it('takes endpoints of the tenant by id, next to the suite\'s reference', async () => {
    const { auth } = await stack.newTenant();
    const setup = await createSuite(stack.app, auth, { candidates: [suiteNode.url], reference: previewB.url, config: { workload: WORKLOAD } });
    const other = await post<{ id: string }>(stack.app, '/v1/endpoints', auth, { chain_id: setup.chainId, name: 'staging', url: previewA.url });
    const before = { suite: suiteNode.requests.length, a: previewA.requests.length };
    const created = await post<any>(stack.app, `/v1/suites/${setup.suiteId}/runs`, auth, { targets: [{ endpoint_id: other.body.id }] });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.targets.map((t: any) => [t.endpoint_id, t.role, t.ephemeral, t.endpoint_name])).toEqual([
      [other.body.id, 'primary', false, 'staging'],
      [setup.referenceId, 'reference', false, 'reference'],
    ]);
    expect((await waitForRun(stack.app, auth, created.body.id)).status).toBe('success');
    expect(previewA.requests.length - before.a).toBeGreaterThanOrEqual(WORKLOAD.requests_per_target);
    expect(suiteNode.requests.length).toBe(before.suite);
  });

  it('refuses bad targets, branches and commits with a 400 naming the field, and creates nothing', async () => {
    const { tenantId, auth } = await stack.newTenant();
    const setup = await createSuite(stack.app, auth, { candidates: [suiteNode.url], reference: previewB.url, config: { workload: WORKLOAD } });
    const otherChain = await createSuite(stack.app, auth, { candidates: [previewA.url] });
    const foreign = await createSuite(stack.app, (await stack.newTenant()).auth, { candidates: [previewA.url] });
    const mine = setup.endpointIds[0]!;
    const counts = async () => {
      const [row] = await stack.sql<{ runs: number; endpoints: number }[]>`
        select (select count(*)::int from runs where tenant_id = ${tenantId}) as runs,
               (select count(*)::int from endpoints where tenant_id = ${tenantId}) as endpoints`;
      return row!;
    };
    const before = await counts();
    const cases: { body: unknown; field: string }[] = [
      { body: { targets: [{ url: 'http://169.254.169.254/latest/meta-data' }] }, field: 'targets.0.url' },
      { body: { targets: [{ url: 'http://[::ffff:169.254.169.254]/' }] }, field: 'targets.0.url' },
      { body: { targets: [{ url: 'ftp://example.com/' }] }, field: 'targets.0.url' },
      { body: { targets: [{ url: 'not a url' }] }, field: 'targets.0.url' },
      { body: { targets: [{ url: previewA.url, headers: { 'x-api-key': 'bad\nvalue' } }] }, field: 'targets.0.headers.x-api-key' },
      { body: { targets: [{ url: previewA.url, headers: { host: 'elsewhere' } }] }, field: 'targets.0.headers.host' },
      { body: { targets: [{ url: previewA.url, name: '' }] }, field: 'targets.0.name' },
      { body: { targets: [{ url: previewA.url, timeout_ms: 5 }] }, field: 'targets.0.timeout_ms' },
      { body: { targets: [{}] }, field: 'targets.0' },
      { body: { targets: [{ endpoint_id: mine, url: previewA.url }] }, field: 'targets.0' },
      { body: { targets: [{ endpoint_id: mine, name: 'renamed' }] }, field: 'targets.0.name' },
      { body: { targets: [] }, field: 'targets' },
      { body: { targets: Array.from({ length: 11 }, () => ({ url: previewA.url })) }, field: 'targets' },
      { body: { targets: [{ endpoint_id: randomUUID() }] }, field: 'targets.0.endpoint_id' },
      { body: { targets: [{ endpoint_id: foreign.endpointIds[0] }] }, field: 'targets.0.endpoint_id' },
      { body: { targets: [{ endpoint_id: otherChain.endpointIds[0] }] }, field: 'targets.0.endpoint_id' },
      { body: { targets: [{ endpoint_id: setup.referenceId }] }, field: 'targets.0.endpoint_id' },
      { body: { targets: [{ url: previewA.url }, { endpoint_id: mine }, { endpoint_id: mine }] }, field: 'targets.2.endpoint_id' },
      { body: { branch: 'two words' }, field: 'branch' },
      { body: { branch: '' }, field: 'branch' },
      { body: { branch: 'x'.repeat(256) }, field: 'branch' },
      { body: { commit: 'not-hex' }, field: 'commit' },
      { body: { commit: 'abc' }, field: 'commit' },
    ];
    for (const { body, field } of cases) {
      const response = await post<any>(stack.app, `/v1/suites/${setup.suiteId}/runs`, auth, body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.body.error).toMatchObject({ code: 'validation_error', request_id: expect.any(String) });
      expect(response.body.error.details.map((d: { field: string }) => d.field), JSON.stringify(body)).toContain(field);
    }
    // Without runs:write nothing is created either.
    const { auth: reader } = await stack.newTenant(TENANT_SCOPES.filter((s) => s !== 'runs:write'));
    expect((await post(stack.app, `/v1/suites/${setup.suiteId}/runs`, reader, { targets: [{ url: previewA.url }] })).status).toBe(403);
    expect(await counts()).toEqual(before);
  });

  it('Idempotency-Key: the same body replays the same run (one endpoint), a different one is 409', async () => {
    const { tenantId, auth } = await stack.newTenant();
    const setup = await createSuite(stack.app, auth, { candidates: [suiteNode.url], config: { workload: WORKLOAD } });
    const trigger = (body: unknown) =>
      stack.app.inject({ method: 'POST', url: `/v1/suites/${setup.suiteId}/runs`, headers: { ...auth, 'idempotency-key': 'pr-7-attempt-1' }, payload: body as object });
    const body = { targets: [{ url: `${previewA.url}/one`, headers: { 'x-k': 'v' } }], branch: 'pr-7', commit: 'c0ffee1' };
    const first = await trigger(body);
    expect(first.statusCode, first.body).toBe(201);
    // Key order does not matter (canonical JSON); the response is the first one.
    const replay = await trigger({ commit: 'c0ffee1', branch: 'pr-7', targets: [{ headers: { 'x-k': 'v' }, url: `${previewA.url}/one` }] });
    expect(replay.statusCode).toBe(201);
    expect(replay.headers['idempotency-replayed']).toBe('true');
    expect(replay.json().id).toBe(first.json().id);
    const changed = await trigger({ ...body, targets: [{ url: `${previewB.url}/two` }] });
    expect(changed.statusCode).toBe(409);
    expect(changed.json().error.code).toBe('idempotency_conflict');
    const [row] = await stack.sql<{ runs: number; own: number }[]>`
      select (select count(*)::int from runs where tenant_id = ${tenantId}) as runs,
             (select count(*)::int from endpoints where tenant_id = ${tenantId} and owner_run_id is not null) as own`;
    expect(row).toEqual({ runs: 1, own: 1 });
    expect((await waitForRun(stack.app, auth, first.json().id)).status).toBe('success');
  });
});
