import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main';
import { createSuite, get } from '../helpers/api';
import { startStack, type Stack } from '../helpers/stack';

interface Result {
  code: number;
  stdout: string;
  stderr: string;
}

/** The CLI's own main(), against the API listening on loopback (real HTTP, no inject). */
async function rvs(args: string[], env: Record<string, string>): Promise<Result> {
  let stdout = '';
  let stderr = '';
  const code = await main({
    argv: args,
    env,
    stdout: { write: (chunk: string) => (stdout += chunk) },
    stderr: { write: (chunk: string) => (stderr += chunk), isTTY: false },
    version: 'test',
  });
  return { code, stdout, stderr };
}

/** The URL from RVS_SECRET_NODE_URL (a prefixed name: every rule for which variables a file may read allows it). */
const methods = (...names: string[]) => names.map((name) => `        - method: ${name}\n`).join('');
const fileWith = (workload: string) => `version: 1
chains:
  - slug: devnet
    name: Devnet
    chain_id: 1337
endpoints:
  - name: node-a
    chain: devnet
    url: \${RVS_SECRET_NODE_URL}
suites:
  - name: pr-gate
    chain: devnet
    targets: [node-a]
    workload:
${workload}`;

describe('suites by name: GET /v1/suites?name=, rvs run <name>, and what rvs apply prints', () => {
  let stack: Stack;
  let baseUrl: string;
  let dir: string;

  beforeAll(async () => {
    stack = await startStack({ worker: false });
    baseUrl = await stack.app.listen({ host: '127.0.0.1', port: 0 });
    dir = await mkdtemp(join(tmpdir(), 'rvs-suite-names-'));
  });
  afterAll(async () => {
    await stack?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const rename = async (auth: { authorization: string }, suiteId: string, name: string) => {
    const response = await stack.app.inject({ method: 'PATCH', url: `/v1/suites/${suiteId}`, headers: auth, payload: { name } });
    expect(response.statusCode).toBe(200);
  };

  it('?name= lists the suites of exactly that name in the caller\'s tenant, and OpenAPI documents it', async () => {
    const a = await stack.newTenant();
    const b = await stack.newTenant();
    const gate = await createSuite(stack.app, a.auth, { candidates: ['http://127.0.0.1:18545'] });
    await rename(a.auth, gate.suiteId, 'pr-gate');
    for (const name of ['pr-gate-2', 'PR-GATE', 'pr']) await rename(a.auth, (await createSuite(stack.app, a.auth, { candidates: ['http://127.0.0.1:18545'] })).suiteId, name);
    const other = await createSuite(stack.app, b.auth, { candidates: ['http://127.0.0.1:18545'] });
    await rename(b.auth, other.suiteId, 'pr-gate');

    const found = await get<{ data: { id: string; name: string }[]; pagination: { total: number } }>(stack.app, '/v1/suites?name=pr-gate', a.auth);
    expect(found.status).toBe(200);
    expect(found.body.data.map((s) => [s.id, s.name])).toEqual([[gate.suiteId, 'pr-gate']]);
    expect(found.body.pagination.total).toBe(1);
    const none = await get<{ data: unknown[] }>(stack.app, `/v1/suites?name=${encodeURIComponent('suite under test')}`, a.auth);
    expect(none.body.data).toEqual([]);
    expect((await get<{ data: unknown[] }>(stack.app, '/v1/suites?name=', a.auth)).status).toBe(400);

    const openapi = (await stack.app.inject({ method: 'GET', url: '/v1/openapi.json' })).json<{ paths: Record<string, Record<string, { parameters?: { name: string; in: string }[] }>> }>();
    expect(openapi.paths['/v1/suites']!.get!.parameters!.map((p) => `${p.in}:${p.name}`)).toContain('query:name');
  });

  it('rvs run <name> and --suite <name> trigger that suite; an unknown name and a shared one are refused, the shared one with its ids', async () => {
    const { key, auth } = await stack.newTenant();
    const env = { RVS_URL: baseUrl, RVS_API_KEY: key };
    const gate = await createSuite(stack.app, auth, { candidates: ['http://127.0.0.1:18545'] });
    await rename(auth, gate.suiteId, 'pr-gate');

    for (const argv of [['run', 'pr-gate'], ['run', '--suite', 'pr-gate', '--format', 'json']]) {
      const result = await rvs(argv, env);
      expect(result.code, result.stderr).toBe(0);
      const runId = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/.exec(result.stdout)![0];
      const run = (await get<{ test_suite_id: string }>(stack.app, `/v1/runs/${runId}`, auth)).body;
      expect(run.test_suite_id).toBe(gate.suiteId);
    }

    const unknown = await rvs(['run', 'pr-gat'], env);
    expect(unknown).toEqual({
      code: 3,
      stdout: '',
      stderr: 'rvs: no suite named "pr-gat" in this tenant (names are exact and case-sensitive; rvs apply prints each suite\'s id and name)\n',
    });

    const twin = await createSuite(stack.app, auth, { candidates: ['http://127.0.0.1:18545'] });
    await rename(auth, twin.suiteId, 'pr-gate');
    const ambiguous = await rvs(['run', 'pr-gate', '--wait'], env);
    expect(ambiguous.code).toBe(3);
    expect(ambiguous.stderr).toMatch(/^rvs: 2 suites are named "pr-gate": .+; run one by its id, or rename all but one\n$/);
    for (const id of [gate.suiteId, twin.suiteId]) expect(ambiguous.stderr).toContain(`${id} (pr-gate)`);
    const runs = (await get<{ data: unknown[] }>(stack.app, '/v1/runs', auth)).body;
    expect(runs.data).toHaveLength(2);
  });

  it('rvs apply prints each suite\'s id; removing the first method diffs as that one removal; warnings print when new or changed, not on every apply (--verbose: always)', async () => {
    const { key, auth } = await stack.newTenant();
    const env = { RVS_URL: baseUrl, RVS_API_KEY: key, RVS_SECRET_NODE_URL: 'http://127.0.0.1:18545/' };
    const apply = async (name: string, workload: string, ...flags: string[]) => {
      const path = join(dir, `${key.slice(-8)}-${name}.yaml`);
      await writeFile(path, fileWith(workload));
      return rvs(['apply', '-f', path, ...flags], env);
    };
    // 50 calls per target: too few for latency_vs_reference to decide, so the service warns.
    const small = `      requests_per_target: 50\n      methods:\n${methods('eth_blockNumber', 'eth_chainId', 'eth_gasPrice')}`;
    const first = await apply('first', small);
    expect(first.code, first.stderr).toBe(0);
    const warning = /^rvs: warning: suite pr-gate: .+$/m.exec(first.stderr)?.[0];
    expect(warning).toBeDefined();

    const again = await apply('again', small);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).not.toContain('rvs: warning:');
    expect(again.stderr).toMatch(/^rvs: suite pr-gate: \d+ warnings? as before \(rvs apply --verbose prints them\)\n$/);

    const verbose = await apply('verbose', small, '--verbose');
    expect(verbose.stderr).toContain(`${warning}\n`);

    // The first method removed: one removal, not a change of every method after it.
    const fewer = `      requests_per_target: 50\n      methods:\n${methods('eth_chainId', 'eth_gasPrice')}`;
    const dry = await apply('fewer', fewer, '--dry-run');
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toContain('suite pr-gate: update\n  - workload.methods[eth_blockNumber]: {"method":"eth_blockNumber","params":[],"weight":1}\nPlan:');

    // Enough calls: the warnings change (to none), and apply says so.
    const large = await apply('large', `      requests_per_target: 2000\n      methods:\n${methods('eth_chainId', 'eth_gasPrice')}`);
    expect(large.code, large.stderr).toBe(0);
    expect(large.stdout).toContain('  ~ workload.requests_per_target: 50 → 2000\n');
    expect(large.stdout).toContain('  - workload.methods[eth_blockNumber]:');
    expect(large.stderr).not.toContain('rvs: warning:');

    const [suite] = (await get<{ data: { id: string; name: string }[] }>(stack.app, '/v1/suites?name=pr-gate', auth)).body.data;
    expect(first.stdout).toContain(`suite pr-gate: created (id ${suite!.id})\n`);
    expect(again.stdout).toContain(`suite pr-gate: unchanged (id ${suite!.id})\n`);
  });
});
