import type { SampleOutcome } from '../domain/sample-outcome';
import type { PlannedCall } from '../domain/workload';
import type { Classified, SampleReason } from './classify-response';

/*
 * How every call client (HTTP, HTTP batches, WebSocket) accounts for a call: when its latency
 * starts, what it comes to, the one CallResult it settles as, and the order calls wait in for a
 * free connection or slot. One module, so a sample means the same thing whichever transport took it.
 */

export interface CallResult {
  seq: number;
  method: string;
  startedAt: Date;
  latencyUs: number;
  outcome: SampleOutcome;
  httpStatus: number | null;
  rpcErrorCode: number | null;
  responseHash: string | null;
  /** Where an ok answer says it was read (its family's answer context); absent or null: none. */
  answerContext?: number | null;
  /** An ok scalar answer's value as shown (Classified.scalarAnswer); absent or null: none. */
  scalarAnswer?: string | null;
  /** Why the answer was invalid_response: a fixed text, never bytes of the answer. */
  reason: SampleReason | null;
}

/**
 * The performance.now() time a call's latency counts from: the instant an open-loop schedule meant
 * to send it, when that has passed, else now. Waiting behind a stalled endpoint (for a connection,
 * a socket or a slot) is then the endpoint's latency: a stall cannot hide itself.
 */
export function latencyStartMs(intendedStartMs: number | undefined, now: number = performance.now()): number {
  return intendedStartMs !== undefined && intendedStartMs < now ? intendedStartMs : now;
}

export interface CallTiming {
  /** Wall-clock time of the start. */
  startedAt: Date;
  latencyUs: number;
}

/**
 * A call from `startMs` to `endMs` (performance.now() times). `pausedMs`, the time its response
 * waited for the worker's response budget, is the worker's wait and not the endpoint's: it is left
 * out of the latency, not out of the start.
 */
export function callTiming(startMs: number, pausedMs = 0, endMs: number = performance.now()): CallTiming {
  return {
    latencyUs: Math.round((endMs - startMs - pausedMs) * 1000),
    startedAt: new Date(Date.now() - (endMs - startMs)),
  };
}

/** A call that got an answer, as the chain family's rules classified it. */
export function answeredResult(
  planned: Pick<PlannedCall, 'seq' | 'method'>,
  timing: CallTiming,
  classified: Classified,
  httpStatus: number | null,
): CallResult {
  return {
    seq: planned.seq,
    method: planned.method,
    startedAt: timing.startedAt,
    latencyUs: timing.latencyUs,
    outcome: classified.outcome,
    httpStatus,
    rpcErrorCode: classified.rpcErrorCode,
    responseHash: classified.responseHash,
    answerContext: classified.answerContext ?? null,
    scalarAnswer: classified.scalarAnswer ?? null,
    reason: classified.reason,
  };
}

/** A call that got no answer (timeout, dropped connection, an answer too large or not HTTP). */
export function failedResult(
  planned: Pick<PlannedCall, 'seq' | 'method'>,
  timing: CallTiming,
  outcome: SampleOutcome,
  reason: SampleReason | null,
): CallResult {
  return {
    seq: planned.seq,
    method: planned.method,
    startedAt: timing.startedAt,
    latencyUs: timing.latencyUs,
    outcome,
    httpStatus: null,
    rpcErrorCode: null,
    responseHash: null,
    reason,
  };
}

/**
 * Calls waiting for a connection or slot, first in first out. A queue with a moving head whose
 * taken front is dropped now and then, so an open loop that keeps calls waiting for hours neither
 * grows it without bound nor pays Array.shift's copy on every call.
 */
export class WaitQueue<T> {
  private items: T[] = [];
  private head = 0;

  get length(): number {
    return this.items.length - this.head;
  }

  push(item: T): void {
    this.items.push(item);
  }

  /** The longest-waiting item, or undefined when none waits. */
  shift(): T | undefined {
    if (this.head >= this.items.length) return undefined;
    const item = this.items[this.head++]!;
    if (this.head >= 1024 || this.head === this.items.length) {
      this.items.splice(0, this.head);
      this.head = 0;
    }
    return item;
  }
}
