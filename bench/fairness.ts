/**
 * npm run bench:fairness — does one tenant's load change another tenant's verdict (issue 31,
 * DESIGN §17)? The real path: the API in this process, the worker as `npm run worker` starts it
 * (its slots follow its event loop), the Temporal dev server with priority and fairness on, and a
 * fast JSON-RPC server on loopback (bench/rpc-server.ts, answers at once).
 *
 * Tenant B runs a 10-call suite (closed loop, 2 at a time), triggered every BENCH_FAIRNESS_EVERY_S
 * seconds: BENCH_FAIRNESS_RUNS runs idle, then as many while tenant A runs three closed-loop
 * campaigns of BENCH_FAIRNESS_CAMPAIGN_S seconds against the same server, 64 calls in flight each.
 * Printed: B's trigger → verdict p50 and max per phase, its verdicts and its checks that did not
 * pass, and the prober health its verdicts show. Default ≈ 2 minutes.
 */
import { randomUUID } from 'node:crypto';
import { generateApiKey, hashApiKeySecret } from '../src/auth/api-key';
import { SCOPES } from '../src/auth/scopes';
import { insertApiKey } from '../src/db/api-keys';
import { ensureTenant } from '../src/db/tenants';
import { fmt, percentile, runBench, startRpcServer, startStack, table } from './lib';

const RUNS = Number(process.env.BENCH_FAIRNESS_RUNS ?? 8);
const EVERY_S = Number(process.env.BENCH_FAIRNESS_EVERY_S ?? 4);
const CAMPAIGN_S = Number(process.env.BENCH_FAIRNESS_CAMPAIGN_S ?? 45);
const CAMPAIGNS = 3;

interface VerdictBody {
  verdict: string;
  checks: { name: string; status: string; message: string }[];
  prober?: { loop_delay_p99_ms: number; overloaded: boolean };
}
interface Result {
  seconds: number;
  verdict: VerdictBody;
}

runBench('bench:fairness', 6 * 60_000, async (parts, aborted) => {
  const node = await startRpcServer();
  parts.closers.push({ name: 'rpc node', close: () => node.close() });
  const stack = await startStack(parts);
  await stack.waitForWorker();

  // Tenant A is the stack's own; tenant B gets a tenant and key of its own.
  const b = await ensureTenant(stack.sql, `bench-b-${randomUUID()}`, 'Tenant B');
  const bKey = generateApiKey();
  await insertApiKey(stack.sql, { tenantId: b.id, name: 'bench', prefix: bKey.prefix, secretHash: hashApiKeySecret(bKey.secret), scopes: SCOPES });
  const asB = (method: 'GET' | 'POST', url: string, payload?: object) =>
    stack.app.inject({ method, url, headers: { authorization: `Bearer ${bKey.key}` }, ...(payload ? { payload } : {}) });
  const callAsB = async <T>(method: 'GET' | 'POST', url: string, payload?: object): Promise<T> => {
    const response = await asB(method, url, payload);
    if (response.statusCode >= 300) throw new Error(`${method} ${url}: ${response.statusCode} ${response.body}`);
    return response.json<T>();
  };

  const suiteOf = async (call: typeof callAsB, name: string, workload: object) => {
    const chain = await call<{ id: string }>('POST', '/v1/chains', { name, slug: `bench-${randomUUID()}`, chain_id: 1337 });
    const endpoint = await call<{ id: string }>('POST', '/v1/endpoints', { chain_id: chain.id, name: `${name} node`, url: node.url, headers: {}, timeout_ms: 5_000 });
    return call<{ id: string }>('POST', '/v1/suites', {
      chain_id: chain.id,
      name,
      config: { targets: [{ endpoint_id: endpoint.id }], workload: { methods: [{ method: 'eth_blockNumber' }], ...workload } },
    });
  };
  const small = await suiteOf(callAsB, 'B small', { requests_per_target: 10, concurrency: 2, warmup_requests: 1, timeout_ms: 5_000 });
  const campaign = await suiteOf(stack.call.bind(stack), 'A campaign', {
    requests_per_target: null,
    duration_s: CAMPAIGN_S,
    concurrency: 64,
    warmup_requests: 0,
    timeout_ms: 5_000,
  });

  const runB = async (): Promise<Result> => {
    const started = Date.now();
    const run = await callAsB<{ id: string }>('POST', `/v1/suites/${small.id}/runs`);
    for (;;) {
      if (aborted()) throw new Error('aborted');
      await stack.assertWorkerRunning();
      const response = await asB('GET', `/v1/runs/${run.id}/verdict?wait=30`);
      if (response.statusCode === 409) continue;
      if (response.statusCode !== 200) throw new Error(`verdict of ${run.id}: ${response.statusCode} ${response.body}`);
      return { seconds: (Date.now() - started) / 1000, verdict: response.json<VerdictBody>() };
    }
  };
  const phase = async (): Promise<Result[]> => {
    const pending: Promise<Result>[] = [];
    for (let i = 0; i < RUNS; i++) {
      pending.push(runB());
      await new Promise((resolve) => setTimeout(resolve, EVERY_S * 1000));
    }
    return Promise.all(pending);
  };

  console.log(`B: 10 calls, 2 at a time, every ${EVERY_S} s, ${RUNS} runs a phase; A: ${CAMPAIGNS} closed-loop campaigns of ${CAMPAIGN_S} s, 64 in flight each; one worker process`);
  const idle = await phase();
  const campaigns: string[] = [];
  for (let i = 0; i < CAMPAIGNS; i++) campaigns.push((await stack.call<{ id: string }>('POST', `/v1/suites/${campaign.id}/runs`)).id);
  // B's runs start once A's campaigns probe.
  for (;;) {
    const [row] = await stack.sql<{ n: number }[]>`select count(*)::int as n from runs where id in ${stack.sql(campaigns)} and status = 'running'`;
    if (row!.n === CAMPAIGNS || aborted()) break;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  const loaded = await phase();
  const [aCalls] = await stack.sql<{ n: number }[]>`select count(*)::int as n from run_samples where run_id in ${stack.sql(campaigns)}`;

  const row = (name: string, results: Result[]) => {
    const seconds = results.map((r) => r.seconds).sort((x, y) => x - y);
    const verdicts = results.map((r) => r.verdict.verdict);
    const notPassing = results.flatMap((r) => r.verdict.checks.filter((c) => c.status !== 'pass').map((c) => `${c.name} ${c.status}`));
    const loop = results.map((r) => r.verdict.prober?.loop_delay_p99_ms ?? 0).sort((x, y) => x - y);
    return [
      name,
      String(results.length),
      fmt(percentile(seconds, 0.5), 2),
      fmt(seconds[seconds.length - 1]!, 2),
      `${verdicts.filter((v) => v === 'pass').length} pass / ${verdicts.filter((v) => v !== 'pass').length} other`,
      notPassing.length === 0 ? 'none' : [...new Set(notPassing)].map((c) => `${c} ×${notPassing.filter((n) => n === c).length}`).join(', '),
      `${fmt(percentile(loop, 0.5), 1)} / ${fmt(loop[loop.length - 1]!, 1)}`,
    ];
  };
  console.log(`A's campaigns: ${fmt(aCalls!.n)} calls stored so far`);
  console.log(
    table(
      ['B phase', 'runs', 'trigger → verdict p50, s', 'max, s', 'verdicts', 'checks not passing', 'prober loop p99 median / max, ms'],
      [row('idle', idle), row(`under A's ${CAMPAIGNS} campaigns`, loaded)],
    ),
  );
  // The target counts a check that became inconclusive naming the prober as a change too:
  // a run changed when its verdict or any check's status differs from what most idle runs got.
  const idleStatus = (name: string) => {
    const seen = idle.map((r) => r.verdict.checks.find((c) => c.name === name)?.status ?? 'absent');
    return [...new Set(seen)].sort((x, y) => seen.filter((v) => v === y).length - seen.filter((v) => v === x).length)[0];
  };
  const checkChanged = loaded.filter((r) => r.verdict.checks.some((c) => c.status !== idleStatus(c.name))).length;
  console.log(`B's runs with a check status other than idle's: ${checkChanged} of ${loaded.length}`);
  // Why a latency check did not pass: the prober, or the history's band (10-call runs on a busy host).
  for (const [name, results] of [['idle', idle], ['under A', loaded]] as const) {
    const why = results.flatMap((r) => r.verdict.checks.filter((c) => c.name.startsWith('latency') && c.status !== 'pass').map((c) => c.message.replace(/^.* — /, '')));
    for (const reason of new Set(why)) console.log(`  ${name}: ${why.filter((w) => w === reason).length}× ${reason.slice(0, 200)}`);
  }
  const changed = loaded.filter((r) => r.verdict.verdict !== idle[0]!.verdict.verdict).length;
  console.log(`B's verdicts changed under A: ${changed} of ${loaded.length}; p50 ratio ×${fmt(percentile(loaded.map((r) => r.seconds).sort((x, y) => x - y), 0.5) / percentile(idle.map((r) => r.seconds).sort((x, y) => x - y), 0.5), 1)}`);
  for (const id of campaigns) await stack.call('POST', `/v1/runs/${id}/cancel`).catch(() => undefined);
});
