/**
 * npm run bench:sweep-engine — how fast one probing process can offer an open-loop load while keeping
 * its own schedule (send-lag p99 ≤ 1 ms, at least 99 % of the offered rate sent), against a fast
 * loopback JSON-RPC server; then the same with two processes side by side (each offering the
 * rate, so twice the load), and the scale-out ratio. This is the ceiling a sweep step can be
 * trusted up to: above it, the step reports "the prober, not the endpoint, fell behind".
 *
 * Each probing process runs the engine of a sweep step (bench/sweep-prober.ts) without Temporal
 * and without writing samples, so the figures are the engine's upper bound; a worker also spends
 * CPU on COPY-ing its samples (bench:ingest measures that). The server runs in its own process;
 * on a 2-core machine the server and the probers share the cores, so two probers cannot double.
 * Bounded: rates rise ×1.5 from 200 until a trial misses the sweep's 20 ms limit, 1 s warm-up + 3 s
 * per trial (a trial over 1 ms once more), at most 80 s per ladder.
 */
import { fork, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fmt, machineLine, startRpcServer, table } from './lib';
import type { ProberResult, ProberTrial } from './sweep-prober';

const LAG_P99_MAX_US = 1_000;
/** The sweep's own limit (PROBER_LAG_P99_MAX_MS): above it a step that broke on latency is the prober's. */
const SWEEP_LAG_P99_MAX_US = 20_000;
const MIN_ACHIEVED_SHARE = 0.99;
const START_RPS = Number(process.env.BENCH_SWEEP_START ?? 200);
const FACTOR = 1.5;
const MAX_RPS = 40_000;
const WARMUP_S = 1;
const MEASURE_S = Number(process.env.BENCH_SWEEP_MEASURE_S ?? 3);
/** Each ladder (one process, two processes) stops after this long, so the whole bench stays under ~3 min. */
const LADDER_MS = 80_000;

interface Prober {
  child: ChildProcess;
  run(t: ProberTrial): Promise<ProberResult>;
}

async function startProber(): Promise<Prober> {
  const child = fork(path.join(__dirname, 'sweep-prober.ts'), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  await new Promise<void>((resolve, reject) => {
    child.once('message', () => resolve());
    child.once('exit', (code) => reject(new Error(`prober exited with code ${code}`)));
  });
  return {
    child,
    run: (t) =>
      new Promise((resolve) => {
        child.once('message', (m: ProberResult) => resolve(m));
        child.send(t);
      }),
  };
}

const kept = (r: ProberResult, rate: number, lagMaxUs: number) => r.lagP99Us <= lagMaxUs && r.achievedRps >= rate * MIN_ACHIEVED_SHARE && r.failed === 0;

/**
 * Rates rise until a trial misses even the sweep's own lag limit (or the ladder's time is up); a
 * trial that misses 1 ms is run once more (the machine is shared: one preempted second should not
 * decide). Returns the highest total rate at which every process kept send-lag p99 ≤ 1 ms, and
 * the highest before the first miss of the sweep's 20 ms.
 */
async function ladder(probers: Prober[], url: string, rows: string[][]): Promise<{ strict: number; sweep: number }> {
  const best = { strict: 0, sweep: 0 };
  const startedAt = Date.now();
  for (let rate = START_RPS; rate <= MAX_RPS && Date.now() - startedAt < LADDER_MS; rate = Math.round(rate * FACTOR)) {
    const trial = () => Promise.all(probers.map((p) => p.run({ url, rate, warmupS: WARMUP_S, measureS: MEASURE_S })));
    let results = await trial();
    if (!results.every((r) => kept(r, rate, LAG_P99_MAX_US))) {
      const again = await trial();
      if (Math.max(...again.map((r) => r.lagP99Us)) < Math.max(...results.map((r) => r.lagP99Us))) results = again;
    }
    const strict = results.every((r) => kept(r, rate, LAG_P99_MAX_US));
    const ok = results.every((r) => kept(r, rate, SWEEP_LAG_P99_MAX_US));
    for (const [i, r] of results.entries()) {
      rows.push([
        `${probers.length} process${probers.length > 1 ? 'es' : ''} #${i + 1}`,
        fmt(rate),
        fmt(rate * probers.length),
        fmt(r.achievedRps, 1),
        fmt(r.lagP50Us / 1000, 3),
        fmt(r.lagP99Us / 1000, 3),
        fmt(r.lagMaxUs / 1000, 1),
        String(r.failed),
        strict ? '≤ 1 ms' : ok ? '≤ 20 ms' : 'behind',
      ]);
    }
    if (!ok) break;
    if (strict) best.strict = rate * probers.length;
    best.sweep = rate * probers.length;
  }
  return best;
}

async function main(): Promise<void> {
  console.log(machineLine());
  const server = await startRpcServer();
  const probers = [await startProber(), await startProber()];
  const startedAt = Date.now();
  const rows: string[][] = [];
  try {
    const one = await ladder([probers[0]!], server.url, rows);
    const two = await ladder(probers, server.url, rows);
    console.log(table(['probers', 'rps each', 'rps total', 'achieved', 'lag p50 ms', 'lag p99 ms', 'lag max ms', 'failed', 'lag p99'], rows));
    console.log('');
    const ratio = (a: number, b: number) => (a > 0 ? fmt(b / a, 2) : 'n/a');
    console.log(`highest open-loop rate with send-lag p99 ≤ 1 ms: one process ${fmt(one.strict)} rps, two processes ${fmt(two.strict)} rps in total (scale-out ${ratio(one.strict, two.strict)})`);
    console.log(`highest with send-lag p99 ≤ 20 ms (a sweep's own limit): one process ${fmt(one.sweep)} rps, two processes ${fmt(two.sweep)} rps (scale-out ${ratio(one.sweep, two.sweep)})`);
    console.log(`${Math.round((Date.now() - startedAt) / 1000)} s; ${machineLine()}`);
  } finally {
    for (const p of probers) p.child.kill();
    await server.close();
  }
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
