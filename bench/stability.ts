/**
 * npm run bench:stability — does the verdict stay quiet on an unchanged endpoint and catch a slower
 * one, through the real stack? Temporal dev server, a fresh database, the worker as a child process
 * (as `npm run worker` starts it), the API (buildApp + inject) in this process, and two loopback
 * JSON-RPC nodes in child processes (bench/rpc-server.ts) whose every answer waits a log-normal
 * delay, median 40 ms, σ_log 0.4 (p95 ≈ 77 ms): the candidate and its reference, same distribution.
 *
 * One suite: the candidate, the reference, baseline mode `history` (window 10, min_runs 5), default
 * thresholds, closed loop. BENCH_STABILITY_RUNS (20) runs against the unchanged nodes, then the
 * candidate's delays are made BENCH_STABILITY_SLOWDOWN (1.3) times longer and
 * BENCH_STABILITY_SLOW_RUNS (5) more runs follow. Counts per check: pass / fail / inconclusive;
 * a fail in the first phase is a false fail, a latency fail in the second a catch.
 * Everything is on 127.0.0.1; the benchmark aborts itself after 25 minutes.
 */
import os from 'node:os';
import { fmt, runBench, startRpcServer, startStack, table } from './lib';

const RUNS = Number(process.env.BENCH_STABILITY_RUNS ?? 20);
const SLOW_RUNS = Number(process.env.BENCH_STABILITY_SLOW_RUNS ?? 5);
const SLOWDOWN = Number(process.env.BENCH_STABILITY_SLOWDOWN ?? 1.3);
const CALLS = Number(process.env.BENCH_STABILITY_CALLS ?? 2_000);
const CONCURRENCY = Number(process.env.BENCH_STABILITY_CONCURRENCY ?? 16);
const LATENCY = { medianMs: 40, sigma: 0.4 };
const WARMUP = 20;
const ABORT_AFTER_MS = 25 * 60_000;
const CHECKS = ['latency_p95', 'latency_vs_reference', 'latency_vs_baseline', 'availability'] as const;
const LATENCY_CHECKS = ['latency_vs_reference', 'latency_vs_baseline'];

type Status = 'pass' | 'fail' | 'inconclusive';

interface VerdictBody {
  verdict: 'pass' | 'fail' | 'error';
  summary: string;
  checks: { name: string; status: Status; message: string; details: Record<string, any> }[];
  reference_comparison: { latency: { vs_reference_pct: number; vs_reference_interval_pct?: { lower: number; upper: number | null } } } | null;
  baseline_comparison: { model?: string; vs_baseline_pct: number; limits?: Record<string, any> } | null;
}

interface RunResult {
  index: number;
  phase: 'unchanged' | 'slower';
  runId: string;
  seconds: number;
  verdict: VerdictBody;
}

const showPct = (v: number | null | undefined) => (v === null || v === undefined ? '∞' : `${v > 0 ? '+' : ''}${v}%`);
const showRange = (i: { lower: number; upper: number | null } | undefined, unit = '') =>
  i ? `[${i.lower}${unit}…${i.upper === null ? '∞' : `${i.upper}${unit}`}]` : '';

function runRow(r: RunResult): string[] {
  const v = r.verdict;
  const check = (name: string) => v.checks.find((c) => c.name === name);
  const p95 = check('latency_p95')?.details as { p95?: number; intervals_ms?: { p95: { lower: number; upper: number | null } } } | undefined;
  const ref = check('latency_vs_reference');
  const base = check('latency_vs_baseline');
  const avail = check('availability');
  return [
    `${r.index}`,
    r.phase,
    `${p95?.p95 ?? '?'} ${p95?.intervals_ms ? `[${p95.intervals_ms.p95.lower}–${p95.intervals_ms.p95.upper ?? '∞'}]` : ''}`,
    `${v.reference_comparison?.latency.vs_reference_pct ?? '?'}% ${showRange(v.reference_comparison?.latency.vs_reference_interval_pct)}`,
    ref?.status ?? '—',
    base ? `${(base.details.model as string) ?? '?'} ${showPct(base.details.vs_history_median_pct ?? base.details.vs_baseline_pct)}` : '—',
    base?.status ?? '—',
    avail?.status ?? '—',
    v.verdict,
    fmt(r.seconds, 1),
  ];
}

function tally(results: RunResult[], name: string): Record<Status, number> & { absent: number } {
  const counts = { pass: 0, fail: 0, inconclusive: 0, absent: 0 };
  for (const r of results) {
    const check = r.verdict.checks.find((c) => c.name === name);
    if (check) counts[check.status]++;
    else counts.absent++;
  }
  return counts;
}

runBench('bench:stability', ABORT_AFTER_MS, async (parts, aborted) => {
  const benchStarted = Date.now();
  const candidateNode = await startRpcServer(LATENCY);
  parts.closers.push({ name: 'rpc node', close: () => candidateNode.close() });
  const referenceNode = await startRpcServer(LATENCY);
  parts.closers.push({ name: 'rpc node', close: () => referenceNode.close() });
  const stack = await startStack(parts);
  const { call, request } = stack;
  console.log(`temporal ${stack.temporal.address}, database ${stack.db.name}, candidate node ${candidateNode.url}, reference node ${referenceNode.url}`);

  const chain = await call<{ id: string }>('POST', '/v1/chains', { name: 'Bench', slug: `bench-${Date.now()}`, chain_id: 1337 });
  const endpoint = (name: string, url: string) =>
    call<{ id: string }>('POST', '/v1/endpoints', { chain_id: chain.id, name, url, headers: {}, timeout_ms: 5_000 });
  const candidate = await endpoint('candidate (log-normal 40 ms)', candidateNode.url);
  const reference = await endpoint('reference (log-normal 40 ms)', referenceNode.url);
  const suite = await call<{ id: string }>('POST', '/v1/suites', {
    chain_id: chain.id,
    name: 'stability',
    config: {
      targets: [{ endpoint_id: candidate.id }],
      reference_endpoint_id: reference.id,
      baseline: { mode: 'history', window: 10, min_runs: 5 },
      workload: { methods: [{ method: 'eth_blockNumber' }], requests_per_target: CALLS, concurrency: CONCURRENCY, warmup_requests: WARMUP, timeout_ms: 5_000 },
    },
  });

  await stack.waitForWorker();
  console.log(
    `suite ${suite.id}: ${fmt(CALLS)} calls per target, concurrency ${CONCURRENCY}, warm-up ${WARMUP}, closed loop, ` +
      `baseline history (window 10, min_runs 5), default thresholds; ${RUNS} runs unchanged, then ${SLOW_RUNS} with the candidate ×${SLOWDOWN}`,
  );

  const results: RunResult[] = [];
  const runOnce = async (index: number, phase: RunResult['phase']) => {
    const started = Date.now();
    const run = await call<{ id: string }>('POST', `/v1/suites/${suite.id}/runs`);
    for (;;) {
      if (aborted()) throw new Error('aborted');
      await stack.assertWorkerRunning();
      const response = await request('GET', `/v1/runs/${run.id}/verdict?wait=30`);
      if (response.statusCode === 409) continue;
      if (response.statusCode !== 200) throw new Error(`verdict of ${run.id}: ${response.statusCode} ${response.body}`);
      const result: RunResult = { index, phase, runId: run.id, seconds: (Date.now() - started) / 1000, verdict: response.json<VerdictBody>() };
      results.push(result);
      console.log(`  ${runRow(result).join(' | ')}`);
      return;
    }
  };
  console.log('  run # | phase | candidate p95 ms [95% interval] | vs reference [interval] | vs_reference | baseline model, vs baseline | vs_baseline | availability | verdict | s');
  for (let i = 1; i <= RUNS; i++) await runOnce(i, 'unchanged');
  await candidateNode.setSlowdown(SLOWDOWN);
  for (let i = 1; i <= SLOW_RUNS; i++) await runOnce(RUNS + i, 'slower');

  const unchanged = results.filter((r) => r.phase === 'unchanged');
  const slower = results.filter((r) => r.phase === 'slower');
  console.log('');
  console.log(
    table(
      ['run', 'phase', 'candidate p95 ms [95%]', 'vs reference [95%]', 'vs_reference', 'baseline model, vs baseline', 'vs_baseline', 'availability', 'verdict', 's'],
      results.map(runRow),
    ),
  );
  console.log('');
  const cell = (t: ReturnType<typeof tally>) => `${t.pass} / ${t.fail} / ${t.inconclusive}${t.absent > 0 ? ` (absent ${t.absent})` : ''}`;
  console.log(
    table(
      ['check (pass / fail / inconclusive)', `unchanged, ${unchanged.length} runs`, `candidate ×${SLOWDOWN}, ${slower.length} runs`],
      CHECKS.map((name) => [name, cell(tally(unchanged, name)), cell(tally(slower, name))]),
    ),
  );
  const models = (rs: RunResult[]) => {
    const counts = new Map<string, number>();
    for (const r of rs) {
      const model = (r.verdict.checks.find((ch) => ch.name === 'latency_vs_baseline')?.details.model as string | undefined) ?? 'none';
      counts.set(model, (counts.get(model) ?? 0) + 1);
    }
    return [...counts].map(([m, n]) => `${m} ${n}`).join(', ');
  };
  const falseFailChecks = unchanged.reduce((n, r) => n + r.verdict.checks.filter((ch) => ch.status === 'fail').length, 0);
  const falseFailVerdicts = unchanged.filter((r) => r.verdict.verdict !== 'pass').length;
  const caught = (name: string) => slower.filter((r) => r.verdict.checks.find((ch) => ch.name === name)?.status === 'fail').length;
  const caughtAny = slower.filter((r) => r.verdict.checks.some((ch) => LATENCY_CHECKS.includes(ch.name) && ch.status === 'fail')).length;
  const seconds = results.map((r) => r.seconds);
  console.log('');
  console.log(
    table(
      ['figure', 'value'],
      [
        ['false fails, unchanged (failed checks / failed verdicts)', `${falseFailChecks} / ${falseFailVerdicts} of ${unchanged.length} runs (target 0)`],
        ['baseline models used, unchanged', models(unchanged)],
        ['baseline models used, slower', models(slower)],
        [`catches, candidate ×${SLOWDOWN}: latency_vs_reference fail`, `${caught('latency_vs_reference')} of ${slower.length}`],
        [`catches, candidate ×${SLOWDOWN}: latency_vs_baseline fail`, `${caught('latency_vs_baseline')} of ${slower.length}`],
        [`catches, candidate ×${SLOWDOWN}: either latency check fails`, `${caughtAny} of ${slower.length}`],
        [`verdict fail, candidate ×${SLOWDOWN}`, `${slower.filter((r) => r.verdict.verdict === 'fail').length} of ${slower.length}`],
        ['run duration, trigger → verdict (s, min / median / max)', `${fmt(Math.min(...seconds), 1)} / ${fmt(seconds.sort((a, b) => a - b)[Math.floor(seconds.length / 2)]!, 1)} / ${fmt(Math.max(...seconds), 1)}`],
        ['whole bench (min)', fmt((Date.now() - benchStarted) / 60_000, 1)],
      ],
    ),
  );
  console.log(`load average at the end: ${os.loadavg().map((l) => fmt(l, 2)).join(' ')}`);
  if (falseFailVerdicts > 0) process.exitCode = 1;
});
