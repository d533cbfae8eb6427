import { setTimeout as sleep } from 'node:timers/promises';
import type { CallResult, JsonRpcClient } from './json-rpc-client';
import type { PlannedCall } from './workload';

export interface ProbeRangeOptions {
  client: JsonRpcClient;
  plan: (seq: number) => PlannedCall;
  from: number;
  /** Exclusive upper bound; Infinity for campaigns bound by time only. */
  to: number;
  concurrency: number;
  /** Open loop when set: requests are started on this schedule, however slowly the endpoint answers. */
  ratePerSecond?: number | null;
  /** No request starts at or after this Date.now() time. */
  deadlineMs?: number;
  signal?: AbortSignal;
}

export interface ProbeRangeResult {
  /** Results for seq in [from, nextSeq), ordered by seq, with no gaps. */
  results: CallResult[];
  nextSeq: number;
}

const stopped = (o: ProbeRangeOptions, seq: number) =>
  seq >= o.to || o.signal?.aborted === true || (o.deadlineMs !== undefined && Date.now() >= o.deadlineMs);

/**
 * Probes consecutive sequence numbers from `from` until `to`, the deadline or an abort. Every
 * request that was started is awaited, so the results are always a gap-free prefix.
 */
export async function probeRange(o: ProbeRangeOptions): Promise<ProbeRangeResult> {
  return o.ratePerSecond ? openLoop(o, o.ratePerSecond) : closedLoop(o);
}

/** Closed loop: `concurrency` callers each send their next request as soon as the last one answered. */
async function closedLoop(o: ProbeRangeOptions): Promise<ProbeRangeResult> {
  const results: CallResult[] = [];
  let next = o.from;
  // A thrown call (our own failure, e.g. a refused address) stops every caller, then is rethrown.
  let failure: { error: unknown } | undefined;
  const caller = async () => {
    while (!failure && !stopped(o, next)) {
      const seq = next++;
      try {
        results[seq - o.from] = await o.client.call(o.plan(seq));
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: o.concurrency }, caller));
  if (failure) throw failure.error;
  return { results, nextSeq: next };
}

/**
 * Open loop: request i is due at start + i/rate. Latency is measured from when it was due, so
 * queueing behind a slow endpoint shows up as latency (no coordinated omission). At most
 * `concurrency` × 16 requests are in flight, which bounds memory if an endpoint hangs.
 */
async function openLoop(o: ProbeRangeOptions, ratePerSecond: number): Promise<ProbeRangeResult> {
  const results: CallResult[] = [];
  const inFlight = new Set<Promise<void>>();
  const maxInFlight = o.concurrency * 16;
  const intervalMs = 1000 / ratePerSecond;
  const startMs = performance.now();
  let seq = o.from;
  let failure: { error: unknown } | undefined;
  while (!failure && !stopped(o, seq)) {
    const dueMs = startMs + (seq - o.from) * intervalMs;
    const waitMs = dueMs - performance.now();
    if (waitMs > 1) await sleep(waitMs);
    while (inFlight.size >= maxInFlight) await Promise.race(inFlight);
    const current = seq++;
    const call: Promise<void> = o.client
      .call(o.plan(current), dueMs)
      .then(
        (result) => {
          results[current - o.from] = result;
        },
        (error: unknown) => {
          failure ??= { error };
        },
      )
      .finally(() => inFlight.delete(call));
    inFlight.add(call);
  }
  await Promise.all(inFlight);
  if (failure) throw failure.error;
  return { results, nextSeq: seq };
}
