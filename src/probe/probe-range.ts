import { setTimeout as sleep } from 'node:timers/promises';
import type { CallResult, JsonRpcClient } from './json-rpc-client';
import type { PlannedCall } from '../domain/workload';
import type { PaceGate } from './campaign-pacer';

/** A call's result, and how late it was sent after the instant the open-loop schedule intended. */
export interface ProbedCall extends CallResult {
  /** Open loop: dispatch time − intended time, µs (negative when a timer fired early); closed loop: null. */
  sendLagUs: number | null;
}

export interface ProbeRangeOptions {
  client: JsonRpcClient;
  plan: (seq: number) => PlannedCall;
  from: number;
  /** Exclusive upper bound; Infinity for campaigns bound by time only. */
  to: number;
  /**
   * Every how many seqs this range sends one (default 1): a shard of a sweep step sends from,
   * from + stride, … (seq ≡ from mod stride), each at its own instant on the whole step's
   * schedule, while the other shards send the seqs between. Results and batches hold only its seqs.
   */
  stride?: number;
  concurrency: number;
  /**
   * Calls the client sends as one batch (default 1). The calls of a batch are made in one turn:
   * a closed loop runs concurrency × batchSize callers (concurrency batches in flight), an open
   * loop makes each batch's calls together at its first member's instant.
   */
  batchSize?: number;
  /** Open loop when set: requests are started on this schedule, however slowly the endpoint answers. */
  ratePerSecond?: number | null;
  /**
   * Open loop: the performance.now() time at which seq 0 is due, so seq i is due at
   * origin + i / rate — the shared schedule of paired probing (see performanceTimeAt). Without it
   * the schedule starts when this call does: seq `from` is due at once.
   */
  scheduleOriginMs?: number;
  /** No request starts at or after this Date.now() time. */
  deadlineMs?: number;
  signal?: AbortSignal;
  /**
   * Streams the results: called with each complete, gap-free run of `batchCalls` results (and
   * once more with the rest at the end) while later requests are still being sent, so a batch
   * boundary never holds up the schedule. The returned `results` is then empty. Not called for
   * results after a thrown call; an onBatch that throws stops the range like a thrown call.
   */
  onBatch?: (results: ProbedCall[], fromSeq: number, toSeq: number) => void;
  /** Results per onBatch call (default 1,000). */
  batchCalls?: number;
  /**
   * Closed loop only: each call first passes this gate (a campaign pacing itself, CampaignPacer).
   * An open loop ignores it: its calls are due at their instants.
   */
  pace?: PaceGate;
  /**
   * A batch also ends once this long has passed since the last one (when a result arrives), so a
   * slow schedule (an open loop of 10 calls/s fills 1,000 in 100 s) still hands its results on
   * every so often: what the run's progress counts is what was committed. Default: no limit.
   */
  batchMaxMs?: number;
}

export interface ProbeRangeResult {
  /** Results for seq in [from, nextSeq), ordered by seq, with no gaps (empty when onBatch took them). */
  results: ProbedCall[];
  nextSeq: number;
}

const stride = (o: ProbeRangeOptions) => Math.max(1, Math.floor(o.stride ?? 1));

const stopped = (o: ProbeRangeOptions, seq: number) =>
  seq >= o.to || o.signal?.aborted === true || (o.deadlineMs !== undefined && Date.now() >= o.deadlineMs);

/**
 * The performance.now() time of the wall-clock instant `epochMs`. Date.now() has whole-ms
 * resolution, so the two clocks are lined up at ticks of Date.now(): a tick happened after the
 * last read that showed the old value began and before the first read showing the new one
 * ended. Of two ticks (a busy wait of at most ~2 ms per probe chunk) the narrower bracket wins, so a
 * preempted read does not skew it. Both targets' activities of a paired run then agree on the
 * shared anchor to within microseconds, not to within a millisecond each.
 */
export function performanceTimeAt(epochMs: number): number {
  let best = { width: Number.POSITIVE_INFINITY, perfAtTick: performance.now(), wallAtTick: Date.now() + 0.5 };
  for (let tick = 0; tick < 2; tick++) {
    let before = performance.now();
    let wall = Date.now();
    const first = wall;
    const giveUpAt = before + 3;
    let lastOldReadStart = before;
    let after = performance.now();
    while (wall === first && after < giveUpAt) {
      lastOldReadStart = before;
      before = performance.now();
      wall = Date.now();
      after = performance.now();
    }
    // No tick within 3 ms (a frozen clock): keep the estimate of the middle of the millisecond.
    if (wall === first) continue;
    const width = after - lastOldReadStart;
    if (width < best.width) best = { width, perfAtTick: (lastOldReadStart + after) / 2, wallAtTick: wall };
  }
  return best.perfAtTick + (epochMs - best.wallAtTick);
}

/** Collects results by seq and hands on the gap-free prefix, batch by batch. */
class Prefix {
  private pending: (ProbedCall | undefined)[] = [];
  private ready = 0;
  private base: number;
  readonly collected: ProbedCall[] = [];

  private lastEmitMs = performance.now();

  constructor(
    from: number,
    private readonly batchCalls: number,
    private readonly onBatch: ProbeRangeOptions['onBatch'],
    private readonly batchMaxMs = Number.POSITIVE_INFINITY,
    private readonly stride = 1,
  ) {
    this.base = from;
  }

  put(result: ProbedCall): void {
    this.pending[(result.seq - this.base) / this.stride] = result;
    while (this.pending[this.ready] !== undefined) this.ready++;
    // One late answer can complete several batches at once.
    while (this.onBatch && this.ready >= this.batchCalls) this.emit(this.batchCalls);
    if (this.onBatch && this.ready > 0 && performance.now() - this.lastEmitMs >= this.batchMaxMs) this.emit(this.ready);
  }

  /** Hands on everything collected (a gap-free prefix once every started call has settled). */
  flush(): void {
    if (this.ready > 0) this.emit(this.ready);
  }

  private emit(count: number): void {
    const batch = this.pending.splice(0, count) as ProbedCall[];
    this.lastEmitMs = performance.now();
    const from = this.base;
    this.base += count * this.stride;
    this.ready -= count;
    if (this.onBatch) this.onBatch(batch, from, this.base);
    else for (const r of batch) this.collected.push(r);
  }
}

/**
 * Probes consecutive sequence numbers from `from` until `to`, the deadline or an abort. Every
 * request that was started is awaited, so the results are always a gap-free prefix.
 */
export async function probeRange(o: ProbeRangeOptions): Promise<ProbeRangeResult> {
  const prefix = new Prefix(o.from, o.onBatch ? (o.batchCalls ?? 1_000) : Number.POSITIVE_INFINITY, o.onBatch, o.batchMaxMs, stride(o));
  const nextSeq = o.ratePerSecond ? await openLoop(o, o.ratePerSecond, prefix) : await closedLoop(o, prefix);
  prefix.flush();
  return { results: prefix.collected, nextSeq };
}

/** Closed loop: `concurrency` callers each send their next request as soon as the last one answered. */
async function closedLoop(o: ProbeRangeOptions, prefix: Prefix): Promise<number> {
  let next = o.from;
  // A thrown call (our own failure, e.g. a refused address) stops every caller, then is rethrown.
  let failure: { error: unknown } | undefined;
  const halted = () => failure !== undefined || stopped(o, next);
  const caller = async () => {
    while (!halted()) {
      const release = o.pace ? await o.pace.acquire(halted) : null;
      if (o.pace && !release) break;
      const seq = next;
      next += stride(o);
      try {
        const result = (await o.client.call(o.plan(seq))) as ProbedCall;
        result.sendLagUs = null;
        if (!failure) prefix.put(result);
      } catch (error) {
        failure ??= { error };
      } finally {
        release?.();
      }
    }
  };
  await Promise.all(Array.from({ length: o.concurrency * Math.max(1, o.batchSize ?? 1) }, caller));
  if (failure) throw failure.error;
  return next;
}

/**
 * Behind its schedule, an open loop sends at most this many times its rate until it has caught up:
 * a backlog (a late or retried chunk, an outage, a slow endpoint) drains without a burst.
 */
export const CATCH_UP_FACTOR = 2;

/**
 * Open loop: request i is due at origin + i/rate. Latency is measured from when it was due, so
 * queueing behind a slow endpoint shows up as latency (no coordinated omission). At most
 * `concurrency` × 16 requests are in flight, which bounds memory if an endpoint hangs. A request
 * whose instant has passed (a late start, a retried chunk, the in-flight cap) is sent late — its
 * send lag and its latency show it — but a backlog goes out at CATCH_UP_FACTOR × the rate at most,
 * never all at once (docs/statistics.md, "Behind the schedule: catch-up, and the coordinated-omission
 * correction").
 */
async function openLoop(o: ProbeRangeOptions, ratePerSecond: number, prefix: Prefix): Promise<number> {
  const batchSize = Math.max(1, o.batchSize ?? 1);
  const every = stride(o);
  const slots = new Slots(o.concurrency * 16 * batchSize);
  const intervalMs = 1000 / ratePerSecond;
  // A batch goes out at its first member's instant, the next batchSize × stride intervals later.
  const catchUpMs = (intervalMs * batchSize * every) / CATCH_UP_FACTOR;
  // Seq 0's instant: the shared anchor, or (unpaired) whatever puts `from` at now.
  const originMs = o.scheduleOriginMs ?? performance.now() - o.from * intervalMs;
  // When the previous call was let go: the next goes no sooner than catchUpMs after it. Never
  // more than 1 ms in the past (the most a send may be early), so time spent waiting for a slot
  // does not turn into a burst once slots free up.
  let releaseMs = Number.NEGATIVE_INFINITY;
  let seq = o.from;
  let failure: { error: unknown } | undefined;
  while (!failure && !stopped(o, seq)) {
    const dueMs = originMs + seq * intervalMs;
    releaseMs = Math.max(dueMs, releaseMs + catchUpMs, performance.now() - 1);
    // Timers may fire a little early: sleep again rather than send more than 1 ms ahead.
    for (let waitMs = releaseMs - performance.now(); waitMs > 1; waitMs = releaseMs - performance.now()) await sleep(waitMs);
    if (slots.full()) await slots.free();
    if (failure || stopped(o, seq)) break;
    const sentMs = performance.now();
    for (let member = 0; member < batchSize && !stopped(o, seq); member++) {
      send(seq, dueMs, sentMs);
      seq += every;
    }
  }
  await slots.allFree();
  if (failure) throw failure.error;
  return seq;

  function send(current: number, dueMs: number, sentMs: number): void {
    slots.take();
    o.client
      .call(o.plan(current), dueMs)
      .then(
        (result) => {
          const probed = result as ProbedCall;
          probed.sendLagUs = Math.round((sentMs - dueMs) * 1000);
          try {
            if (!failure) prefix.put(probed);
          } catch (error) {
            failure ??= { error };
          }
        },
        (error: unknown) => {
          failure ??= { error };
        },
      )
      .finally(slots.give);
  }
}

/**
 * The open loop's in-flight slots. One waiter at a time, woken by the call that frees a slot: O(1)
 * per call. (A Promise.race over the calls in flight attached a reaction to each of up to
 * 16 × concurrency promises on every send — quadratic memory and CPU once the cap was reached.)
 */
class Slots {
  private used = 0;
  private waiter: (() => void) | null = null;

  constructor(private readonly size: number) {}

  full(): boolean {
    return this.used >= this.size;
  }

  take(): void {
    this.used++;
  }

  readonly give = (): void => {
    this.used--;
    const waiter = this.waiter;
    this.waiter = null;
    waiter?.();
  };

  /** Resolves once a slot is free (the caller is the only one waiting). */
  async free(): Promise<void> {
    while (this.full()) await new Promise<void>((resolve) => (this.waiter = resolve));
  }

  /** Resolves once every call has given its slot back. */
  async allFree(): Promise<void> {
    while (this.used > 0) await new Promise<void>((resolve) => (this.waiter = resolve));
  }
}
