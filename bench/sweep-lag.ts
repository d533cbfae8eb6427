/**
 * npm run bench:sweep-lag — where a sweep step's send lag comes from in the worker's own process
 * (issue 31 item 5). The same open loop as a sweep step (probeRange over the sweep's pool and
 * in-flight cap, against a fast loopback JSON-RPC server in its own process), in one process, at
 * a few rates, with what a worker adds switched on one by one:
 *   bare      probing only (bench:sweep's engine),
 *   +rows     each batch turned into sample rows and the prober's send-lag observed,
 *   +writes   the batch COPY-ed to Postgres (sampleWriter, as probeSweepStep does),
 *   +busy     the same, while the main thread also runs other work (BUSY_MS of CPU every
 *             BUSY_EVERY_MS: what other activities and workflow activations do in a worker),
 *   +busy+thread  the same busy main thread, with the sending loop in a worker thread of its own
 *             (bench/sweep-lag-sender.ts) posting its batches to the main thread, which writes them.
 * BENCH_SWEEP_LAG_PROFILE=1 also writes a CPU profile of each mode (node --cpu-prof style, via the
 * inspector) to .data/sweep-lag-<mode>-<rate>.cpuprofile.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { Session } from 'node:inspector/promises';
import { CHAINS } from '../src/chains/registry';
import { createSql } from '../src/db/client';
import { createPlanner } from '../src/domain/workload';
import { createJsonRpcClient } from '../src/probe/json-rpc-client';
import { probeRange, type ProbedCall } from '../src/probe/probe-range';
import { startProberHealth } from '../src/probe/prober-health';
import { toSampleRow } from '../activities/probe-chunk';
import { sampleWriter } from '../activities/sample-writer';
import { createFreshDatabase, fmt, machineLine, percentile, startRpcServer, table } from './lib';

type Mode = 'bare' | '+rows' | '+writes' | '+busy' | '+busy+thread';
const MODES = (process.env.BENCH_SWEEP_LAG_MODES ?? 'bare,+rows,+writes,+busy,+busy+thread').split(',') as Mode[];
const BUSY_MS = 5;
const BUSY_EVERY_MS = 50;

/** Burns the main thread BUSY_MS every BUSY_EVERY_MS until stopped. */
function busyMainThread(): () => void {
  const timer = setInterval(() => {
    const until = performance.now() + BUSY_MS;
    while (performance.now() < until) {
      // busy: another activity's CPU
    }
  }, BUSY_EVERY_MS);
  return () => clearInterval(timer);
}

/** The open loop in a worker thread (first due 4 s from now: the thread loads tsx and its modules first); its batches come back here and go through onBatch. */
async function probeInThread(url: string, rate: number, from: number, to: number, onBatch: (results: ProbedCall[], fromSeq: number, toSeq: number) => void): Promise<void> {
  // A thread does not inherit tsx's loader: it registers tsx's CommonJS hook, then loads the sender.
  const entry = `require('tsx/cjs/api').register(); require(${JSON.stringify(path.join(__dirname, 'sweep-lag-sender.ts'))});`;
  const thread = new Worker(entry, { eval: true, workerData: { url, rate, from, to, anchorEpochMs: Date.now() + 4_000 } });
  await new Promise<void>((resolve, reject) => {
    thread.on('message', (m: { done?: true; results?: ProbedCall[]; fromSeq?: number; toSeq?: number }) => {
      if (m.done) resolve();
      else onBatch(m.results!, m.fromSeq!, m.toSeq!);
    });
    thread.once('error', reject);
  });
  await thread.terminate();
}
const RATES = (process.env.BENCH_SWEEP_LAG_RATES ?? '1000,2000,4000').split(',').map(Number);
const MEASURE_S = Number(process.env.BENCH_SWEEP_LAG_S ?? 4);
const PROFILE = process.env.BENCH_SWEEP_LAG_PROFILE === '1';
const plan = createPlanner({ methods: [{ method: 'eth_blockNumber', params: [], weight: 1 }] }, 42, null, CHAINS.evm.renderPinned);

async function main(): Promise<void> {
  console.log(machineLine());
  const server = await startRpcServer();
  const db = await createFreshDatabase('rvs_bench_sweep_lag');
  const sql = createSql(db.url, { max: 4 });
  const runId = '00000000-0000-4000-8000-000000000001';
  const targetId = '00000000-0000-4000-8000-000000000002';
  // Samples need their run: one bare row is enough (the foreign key), never read back.
  await sql`alter table run_samples drop constraint if exists run_samples_run_id_fkey`;
  const rows: string[][] = [];
  const session = new Session();
  session.connect();
  let seqBase = 0;
  try {
    for (const rate of RATES) {
      for (const mode of MODES) {
        const calls = Math.ceil(rate * MEASURE_S);
        const from = seqBase;
        seqBase += calls;
        if (PROFILE) {
          await session.post('Profiler.enable');
          await session.post('Profiler.start');
        }
        const lags: number[] = [];
        const health = startProberHealth();
        const progress = { nextSeq: from };
        const writer = sampleWriter(sql, new AbortController().signal, progress, () => undefined);
        const onBatch = (results: ProbedCall[], fromSeq: number, toSeq: number) => {
          for (const r of results) if (r.sendLagUs !== null) lags.push(r.sendLagUs);
          if (mode === 'bare') return;
          for (const r of results) if (r.sendLagUs !== null) health.observeSendLag(r.sendLagUs);
          const sampleRows = results.map((r) => toSampleRow(runId, targetId, 'primary', r, true, 'local'));
          if (mode !== '+rows') writer.write({ runId, targetId, fromSeq, toSeq }, sampleRows);
        };
        const stopBusy = mode.startsWith('+busy') ? busyMainThread() : () => undefined;
        if (mode === '+busy+thread') {
          await probeInThread(server.url, rate, from, from + calls, onBatch);
        } else {
          const client = createJsonRpcClient(
            { url: server.url, headers: {}, timeoutMs: 5_000 },
            { connections: 256, allowPrivateTargets: true, answers: CHAINS.evm, fingerprintResults: false },
          );
          await probeRange({ client, plan, from, to: from + calls, concurrency: 256, ratePerSecond: rate, batchCalls: 1_000, batchMaxMs: 1_000, onBatch });
          await client.close();
        }
        stopBusy();
        await writer.close();
        const h = health.stop();
        if (PROFILE) {
          const { profile } = await session.post('Profiler.stop');
          await mkdir('.data', { recursive: true });
          await writeFile(`.data/sweep-lag-${mode.replace('+', '')}-${rate}.cpuprofile`, JSON.stringify(profile));
        }
        const sorted = Float64Array.from(lags.slice(Math.ceil(rate))).sort();
        rows.push([
          fmt(rate),
          mode,
          fmt(percentile(sorted, 0.5) / 1000, 3),
          fmt(percentile(sorted, 0.99) / 1000, 3),
          fmt(sorted[sorted.length - 1]! / 1000, 1),
          fmt(h.loopDelayP99Us / 1000, 1),
          fmt(h.cpuPct, 0),
        ]);
        console.log(rows[rows.length - 1]!.join('\t'));
      }
    }
    console.log(table(['rps', 'mode', 'lag p50 ms', 'lag p99 ms', 'lag max ms', 'loop delay p99 ms', 'cpu %'], rows));
    console.log(machineLine());
  } finally {
    session.disconnect();
    await sql.end();
    await db.drop();
    await server.close();
  }
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
