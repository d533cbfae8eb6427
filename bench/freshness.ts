/**
 * npm run bench:freshness — three figures of issue 22 on a REAL node (anvil, loopback only), each
 * side by side in one sitting so the machine's drift falls on both alike:
 *
 *  (a) how well the head watch measures a known lag: anvil (`--block-time 1`) watched directly as
 *      the reference and through the tests' lag-injecting WebSocket proxy (test/helpers/
 *      ws-lag-proxy.ts) as four candidates at once, delayed 0, 50, 300 and 1,000 ms; the watch
 *      code itself (src/probe/watch-heads.ts) and the measure (src/domain/freshness.ts), no
 *      service around them. Prints each candidate's measured p50/p95 and its error vs the
 *      injected lag (the proxy's own forwarding cost is in it: 0 ms shows what that is);
 *  (b) request latency over WebSocket vs HTTP on the same node: the same calls, interleaved one by
 *      one (src/probe/ws-call-client.ts vs src/probe/json-rpc-client.ts); medians and the ratio;
 *  (c) JSON-RPC batches of 1 (none), 10 and 100 calls over one HTTP connection
 *      (src/probe/batch-client.ts): calls/s, rounds interleaved, and the ratio to no batch.
 *
 * Bounded: about a minute and a half in all with the defaults; stops by itself. BENCH_FRESHNESS_WATCH_S (80: the 72 heads a p95 needs to be bounded from above),
 * BENCH_FRESHNESS_WS_CALLS (2,000 a side) and BENCH_FRESHNESS_BATCH_CALLS (3,000 per size and round,
 * 3 rounds) change the sizes.
 */
import { CHAINS } from '../src/chains/registry';
import { measureFreshness, type HeadArrival, type WatchSegment } from '../src/domain/freshness';
import { intervalsMs } from '../src/domain/verdict/format';
import { showMsInterval } from '../src/domain/interval-display';
import type { PlannedCall } from '../src/domain/workload';
import { createBatchClient } from '../src/probe/batch-client';
import { createJsonRpcClient, type CallResult, type JsonRpcClient } from '../src/probe/json-rpc-client';
import { watchHeads, type HeadWatch } from '../src/probe/watch-heads';
import { createWsCallClient } from '../src/probe/ws-call-client';
import { startAnvil, type AnvilNode } from '../test/helpers/anvil';
import { startWsLagProxy, type WsLagProxy } from '../test/helpers/ws-lag-proxy';
import { fmt, machineLine } from './lib';

const evm = CHAINS.evm;
const INJECTED_MS = [0, 50, 300, 1_000];
const WATCH_S = Number(process.env.BENCH_FRESHNESS_WATCH_S ?? 80);
const WS_CALLS = Number(process.env.BENCH_FRESHNESS_WS_CALLS ?? 2_000);
const BATCH_CALLS = Number(process.env.BENCH_FRESHNESS_BATCH_CALLS ?? 3_000);
const BATCH_ROUNDS = 3;
/** Longer than the largest injected lag: a head 1 s late is late, not missed. */
const GRACE_MS = 3_000;
const TIMEOUT_MS = 10_000;

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)] ?? NaN;
};
const ms = (ns: bigint, zero: bigint) => Number(ns - zero) / 1e6;

/** (a) One reference watch and one candidate watch per injected lag, all at once, for WATCH_S. */
async function measurementError(anvil: AnvilNode): Promise<void> {
  const proxies: WsLagProxy[] = [];
  for (const lag of INJECTED_MS) proxies.push(await startWsLagProxy(anvil.wsUrl, { delayMs: lag }));
  const stop = new AbortController();
  const zero = process.hrtime.bigint();
  const endpoints = [{ id: 'reference', url: anvil.wsUrl }, ...INJECTED_MS.map((lag, i) => ({ id: `lag-${lag}`, url: proxies[i]!.url }))];
  const arrivals: HeadArrival[] = [];
  const segments: WatchSegment[] = [];
  const watched = endpoints.map(async ({ id, url }) => {
    const watch: HeadWatch = watchHeads({
      target: { url, headers: {}, timeoutMs: TIMEOUT_MS },
      subscription: evm.headSubscription!,
      envelope: evm.envelope,
      allowPrivateTargets: true,
      signal: stop.signal,
      backoff: { initialMs: 100, maxMs: 1_000 },
    });
    const seen = new Set<string>();
    let liveFromMs: number | null = null;
    let duplicates = 0;
    for await (const event of watch) {
      if (event.kind === 'connected') liveFromMs ??= ms(event.atMonotonicNs, zero);
      if (event.kind !== 'head') continue;
      const key = `${event.number}:${event.hash}`;
      if (seen.has(key)) {
        duplicates++;
        continue;
      }
      seen.add(key);
      arrivals.push({ targetId: id, number: Number(event.number), hash: event.hash, arrivalMs: ms(event.receivedAtMonotonicNs, zero), segment: 0 });
    }
    await watch.done;
    const { reconnects, disconnects, dropped } = watch.stats;
    segments.push({ targetId: id, segment: 0, startedMs: 0, lastSeenMs: WATCH_S * 1000, liveFromMs, reconnects, disconnects, duplicates, dropped, notStored: 0, outOfRange: 0 });
  });
  await new Promise((resolve) => setTimeout(resolve, WATCH_S * 1000));
  stop.abort();
  await Promise.all(watched);
  await Promise.all(proxies.map((p) => p.close()));

  const measured = measureFreshness({
    referenceTargetId: 'reference',
    candidateTargetIds: INJECTED_MS.map((lag) => `lag-${lag}`),
    arrivals,
    segments,
    via: 'subscribe',
    graceMs: GRACE_MS,
    lateMs: 1_000,
  });
  console.log(`(a) measured vs injected arrival lag: anvil --block-time 1, ${WATCH_S} s watch, reference ${measured.reference.heads} heads, grace ${GRACE_MS} ms`);
  console.log('    injected   judged  missed  lag p50 [95% CI]        lag p95 [95% CI]        error p50  error p95');
  for (const [i, c] of measured.candidates.entries()) {
    const injected = INJECTED_MS[i]!;
    if (c.lagsUs.length === 0) {
      console.log(`    ${`${injected} ms`.padEnd(9)}  ${String(c.judged).padStart(6)}  ${String(c.missed).padStart(6)}  no lag measured`);
      continue;
    }
    const q = intervalsMs(c.lagsUs);
    const error = (point: number) => `${point - injected >= 0 ? '+' : ''}${(point - injected).toFixed(1)} ms`;
    console.log(
      `    ${`${injected} ms`.padEnd(9)}  ${String(c.judged).padStart(6)}  ${String(c.missed).padStart(6)}  ` +
        `${showMsInterval(q.p50).padEnd(22)}  ${showMsInterval(q.p95).padEnd(22)}  ${error(q.p50.point).padStart(9)}  ${error(q.p95.point).padStart(9)}`,
    );
  }
}

/** The same read-only calls for every side: cheap ones and a block read, answers of a few hundred bytes to a few KiB. */
const CALLS: readonly Omit<PlannedCall, 'seq'>[] = [
  { method: 'eth_blockNumber', params: [] },
  { method: 'eth_chainId', params: [] },
  { method: 'eth_getBalance', params: ['0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266', 'latest'] },
  { method: 'eth_getBlockByNumber', params: ['latest', false] },
];
const planned = (seq: number): PlannedCall => ({ seq, ...CALLS[seq % CALLS.length]! });

function failedOf(results: readonly CallResult[]): number {
  return results.filter((r) => r.outcome !== 'ok').length;
}

/** (b) One call at a time, alternating HTTP and WebSocket (which goes first alternates too). */
async function wsVsHttp(anvil: AnvilNode): Promise<void> {
  const options = { connections: 1, allowPrivateTargets: true, answers: evm, fingerprintResults: true };
  const http = createJsonRpcClient({ url: anvil.httpUrl, headers: {}, timeoutMs: TIMEOUT_MS }, options);
  const ws = createWsCallClient({ url: anvil.wsUrl, headers: {}, timeoutMs: TIMEOUT_MS }, { ...options, sockets: 1 });
  const sides: [string, JsonRpcClient][] = [
    ['HTTP', http],
    ['WebSocket', ws],
  ];
  const results = new Map<string, CallResult[]>(sides.map(([name]) => [name, []]));
  const warmUp = 50;
  for (let seq = 0; seq < WS_CALLS + warmUp; seq++) {
    const order = seq % 2 === 0 ? sides : [...sides].reverse();
    for (const [name, client] of order) {
      const result = await client.call(planned(seq));
      if (seq >= warmUp) results.get(name)!.push(result);
    }
  }
  await http.close();
  await ws.close();
  console.log(`(b) request latency, same node, ${fmt(WS_CALLS)} calls a side interleaved one by one (${CALLS.map((c) => c.method).join(', ')} in turn), one connection each:`);
  const medians = new Map<string, number>();
  for (const [name] of sides) {
    const rs = results.get(name)!;
    const m = median(rs.map((r) => r.latencyUs / 1000));
    medians.set(name, m);
    const byMethod = CALLS.map((c) => `${c.method} ${median(rs.filter((r) => r.method === c.method).map((r) => r.latencyUs / 1000)).toFixed(3)}`).join(', ');
    console.log(`    ${name.padEnd(9)}  median ${m.toFixed(3)} ms (failed ${failedOf(rs)}); by method, ms: ${byMethod}`);
  }
  console.log(`    WebSocket ÷ HTTP median latency: ${(medians.get('WebSocket')! / medians.get('HTTP')!).toFixed(2)}×`);
}

/** (c) One HTTP connection, one request in flight: batches of `size` calls back to back. */
async function batchThroughput(anvil: AnvilNode): Promise<void> {
  const sizes = [1, 10, 100];
  const rates = new Map<number, number[]>(sizes.map((s) => [s, []]));
  const failed = new Map<number, number>(sizes.map((s) => [s, 0]));
  const options = { connections: 1, allowPrivateTargets: true, answers: evm, fingerprintResults: true };
  for (let round = 0; round < BATCH_ROUNDS; round++) {
    const order = round % 2 === 0 ? sizes : [...sizes].reverse();
    for (const size of order) {
      const http = createJsonRpcClient({ url: anvil.httpUrl, headers: {}, timeoutMs: TIMEOUT_MS }, options);
      // Size 1 is no batch at all (the plain client: one object per request), as batch_size 1 means.
      const client = size === 1 ? http : createBatchClient(http, { batchSize: size, answers: evm });
      await Promise.all(Array.from({ length: size }, (_, i) => client.call(planned(i))));
      const started = performance.now();
      for (let seq = 0; seq < BATCH_CALLS; seq += size) {
        // Made in one turn of the event loop: one batch of `size` calls.
        const results = await Promise.all(Array.from({ length: Math.min(size, BATCH_CALLS - seq) }, (_, i) => client.call(planned(seq + i))));
        failed.set(size, failed.get(size)! + failedOf(results));
      }
      rates.get(size)!.push(BATCH_CALLS / ((performance.now() - started) / 1000));
      await client.close();
    }
  }
  console.log(`(c) JSON-RPC batch throughput, one HTTP connection, one request in flight, ${fmt(BATCH_CALLS)} calls per size and round, ${BATCH_ROUNDS} rounds interleaved:`);
  const base = median(rates.get(1)!);
  for (const size of sizes) {
    const m = median(rates.get(size)!);
    const label = size === 1 ? '1 (none)' : String(size);
    console.log(
      `    batch ${label.padEnd(8)}  ${fmt(Math.round(m)).padStart(7)} calls/s (rounds ${rates.get(size)!.map((r) => fmt(Math.round(r))).join(', ')}; failed ${failed.get(size)})  ÷ no batch ${(m / base).toFixed(2)}×`,
    );
  }
}

async function main(): Promise<void> {
  console.log(machineLine());
  const started = performance.now();
  const anvil = await startAnvil({ blockTimeS: 1 });
  try {
    await measurementError(anvil);
    await wsVsHttp(anvil);
    await batchThroughput(anvil);
  } finally {
    await anvil.close();
  }
  console.log(`wall time: ${((performance.now() - started) / 1000).toFixed(1)} s`);
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
