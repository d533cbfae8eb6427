/**
 * npm run bench:overdue — an open loop that is behind its schedule, two ways side by side: the
 * in-flight wait of before (a Promise.race over every call in flight, a copy kept here) and
 * probeRange's single "slot freed" waiter. Concurrency 64 (1,024 calls in flight at most), 1,000
 * calls/s, the schedule's origin 15 s in the past (every call overdue from the start, as a chunk
 * retried after a worker loss) and an in-process stand-in for the endpoint that answers each call
 * after 1.5 s (slower than concurrency ÷ rate, so the loop stays behind and the in-flight cap is
 * what holds it back). Each variant runs in its own child process (a clean heap), sampling its heap
 * every 100 ms and, after a forced full GC, every 2 s (live heap); the table gives heap, CPU
 * (the forced collections taken out) and calls, and the ratios old ÷ new.
 *
 * BENCH_DURATION_S (default 20) per variant, BENCH_ANSWER_MS (default 1,500).
 */
import { spawn } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import type { CallResult, JsonRpcClient } from '../src/probe/json-rpc-client';
import { probeRange } from '../src/probe/probe-range';
import type { PlannedCall } from '../src/domain/workload';
import { fmt, machineLine, table } from './lib';

const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 20);
const ANSWER_MS = Number(process.env.BENCH_ANSWER_MS ?? 1_500);
const CONCURRENCY = 64;
const RATE = 1_000;
const BEHIND_MS = 15_000;

type Variant = 'race' | 'waiter';

interface Measurement {
  variant: Variant;
  calls: number;
  /** Heap after a full GC before the loop starts (the process itself: tsx, modules). */
  baseHeapMb: number;
  /** Largest heap left after a full GC (forced every 2 s) while it runs: what the loop holds on to, plus the base. */
  liveHeapMb: number;
  peakHeapMb: number;
  endHeapMb: number;
  peakRssMb: number;
  cpuS: number;
}

/** The stand-in endpoint: every call answers ok after ANSWER_MS. */
function slowClient(): JsonRpcClient {
  return {
    async call(planned: PlannedCall, intendedStartMs?: number): Promise<CallResult> {
      await sleep(ANSWER_MS);
      return {
        seq: planned.seq,
        method: planned.method,
        startedAt: new Date(),
        latencyUs: Math.round((performance.now() - (intendedStartMs ?? 0)) * 1000),
        outcome: 'ok',
        httpStatus: 200,
        rpcErrorCode: null,
        responseHash: null,
        reason: null,
      };
    },
    result: async () => '0x1',
    close: async () => undefined,
  };
}

const plan = (seq: number): PlannedCall => ({ seq, method: 'eth_blockNumber', params: [] });

/** The open loop's in-flight wait as it was: Promise.race over the calls in flight. */
async function raceLoop(client: JsonRpcClient, originMs: number, deadlineMs: number): Promise<number> {
  const inFlight = new Set<Promise<void>>();
  const maxInFlight = CONCURRENCY * 16;
  const intervalMs = 1000 / RATE;
  let seq = 0;
  let answered = 0;
  while (Date.now() < deadlineMs) {
    const dueMs = originMs + seq * intervalMs;
    for (let waitMs = dueMs - performance.now(); waitMs > 1; waitMs = dueMs - performance.now()) await sleep(waitMs);
    while (inFlight.size >= maxInFlight) await Promise.race(inFlight);
    if (Date.now() >= deadlineMs) break;
    const call: Promise<void> = client
      .call(plan(seq++), dueMs)
      .then(() => {
        answered++;
      })
      .finally(() => inFlight.delete(call));
    inFlight.add(call);
  }
  await Promise.all(inFlight);
  return answered;
}

async function waiterLoop(client: JsonRpcClient, originMs: number, deadlineMs: number): Promise<number> {
  let answered = 0;
  await probeRange({
    client,
    plan,
    from: 0,
    to: Number.POSITIVE_INFINITY,
    concurrency: CONCURRENCY,
    ratePerSecond: RATE,
    scheduleOriginMs: originMs,
    deadlineMs,
    onBatch: (results) => (answered += results.length),
  });
  return answered;
}

async function child(variant: Variant): Promise<void> {
  let peakHeap = 0;
  let peakRss = 0;
  let liveHeap = 0;
  let gcCpuUs = 0;
  const sampler = setInterval(() => {
    const m = process.memoryUsage();
    peakHeap = Math.max(peakHeap, m.heapUsed);
    peakRss = Math.max(peakRss, m.rss);
  }, 100);
  const collect = global.gc;
  if (!collect) throw new Error('run with --expose-gc');
  // The forced collections' CPU is not the loop's: it is taken out of the figure.
  const collector = setInterval(() => {
    const before = process.cpuUsage();
    collect();
    const spent = process.cpuUsage(before);
    gcCpuUs += spent.user + spent.system;
    liveHeap = Math.max(liveHeap, process.memoryUsage().heapUsed);
  }, 2_000);
  collect();
  const baseHeap = process.memoryUsage().heapUsed;
  const cpu = process.cpuUsage();
  const originMs = performance.now() - BEHIND_MS;
  const deadlineMs = Date.now() + DURATION_S * 1000;
  const calls = await (variant === 'race' ? raceLoop : waiterLoop)(slowClient(), originMs, deadlineMs);
  const used = process.cpuUsage(cpu);
  clearInterval(sampler);
  clearInterval(collector);
  const m: Measurement = {
    variant,
    calls,
    baseHeapMb: baseHeap / 2 ** 20,
    liveHeapMb: liveHeap / 2 ** 20,
    peakHeapMb: peakHeap / 2 ** 20,
    endHeapMb: process.memoryUsage().heapUsed / 2 ** 20,
    peakRssMb: peakRss / 2 ** 20,
    cpuS: (used.user + used.system - gcCpuUs) / 1e6,
  };
  console.log(JSON.stringify(m));
}

function runChild(variant: Variant): Promise<Measurement> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, ['--expose-gc', '--import', 'tsx', __filename, variant], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    proc.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    // The benchmark stops itself: a variant gets its duration plus a minute at most.
    const killer = setTimeout(() => proc.kill('SIGKILL'), DURATION_S * 1000 + 60_000);
    proc.on('exit', (code) => {
      clearTimeout(killer);
      const line = out.trim().split('\n').at(-1);
      if (code !== 0 || !line) reject(new Error(`${variant} variant exited with ${code}`));
      else resolve(JSON.parse(line) as Measurement);
    });
  });
}

async function main(): Promise<void> {
  const variant = process.argv[2];
  if (variant === 'race' || variant === 'waiter') return child(variant);
  console.log(`bench:overdue — open loop ${fmt(BEHIND_MS / 1000)} s behind, ${RATE} calls/s, concurrency ${CONCURRENCY}, answers after ${fmt(ANSWER_MS)} ms, ${DURATION_S} s per variant`);
  console.log(machineLine());
  const race = await runChild('race');
  const waiter = await runChild('waiter');
  const row = (m: Measurement) => [
    m.variant === 'race' ? 'Promise.race over in-flight (before)' : 'one slot-freed waiter (probeRange)',
    fmt(m.calls),
    fmt(m.baseHeapMb, 1),
    fmt(m.liveHeapMb, 1),
    fmt(m.liveHeapMb - m.baseHeapMb, 1),
    fmt(m.peakHeapMb, 1),
    fmt(m.endHeapMb, 1),
    fmt(m.peakRssMb, 1),
    fmt(m.cpuS, 2),
    fmt((m.cpuS * 1e6) / Math.max(1, m.calls), 1),
  ];
  console.log(table(['in-flight wait', 'calls', 'base heap MB', 'live heap MB', 'live − base', 'peak heap MB', 'end heap MB', 'peak RSS MB', 'CPU s', 'CPU µs/call'], [row(race), row(waiter)]));
  const perCall = (m: Measurement) => m.cpuS / Math.max(1, m.calls);
  console.log(
    `ratios before ÷ after: live heap ${fmt(race.liveHeapMb / waiter.liveHeapMb, 1)}× (over the base ${fmt((race.liveHeapMb - race.baseHeapMb) / (waiter.liveHeapMb - waiter.baseHeapMb), 1)}×), peak heap ${fmt(race.peakHeapMb / waiter.peakHeapMb, 1)}×, peak RSS ${fmt(race.peakRssMb / waiter.peakRssMb, 1)}×, ` +
      `CPU ${fmt(race.cpuS / waiter.cpuS, 1)}×, CPU per call ${fmt(perCall(race) / perCall(waiter), 1)}×`,
  );
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
