/*
 * How many response bytes one worker process holds at once, across all its probe clients. Each
 * response may be up to MAX_RESPONSE_BYTES (8 MiB), and a worker runs up to 20 activities, each
 * with up to 256 calls in flight per target: without a shared budget a burst of large answers
 * could hold gigabytes (64 answers of 8 MiB took a worker from 138 to 379 MiB).
 *
 * A response counts its bytes as they arrive. When the worker is over budget, a response that
 * receives more bytes stops reading (its socket is paused, so the server's sends back up in TCP)
 * until enough budget is free; the latency clock and the call's deadline stop while it waits,
 * because the wait is the worker's, not the endpoint's (see JsonRpcClient). Waiting, not failing:
 * a failed sample would blame the endpoint for our memory limit.
 *
 * Deadlock freedom: the oldest response holding budget never waits, so it always completes (or
 * fails or times out) and frees what it holds; a waiting response is woken when it becomes the
 * oldest. Overshoot: the bytes of a chunk have already arrived when they are counted, so the
 * worker may hold up to the budget, plus one socket read (≤ 64 KiB) per paused response, plus
 * one response cap for the oldest holder.
 */

/** The default budget of a worker process: 64 MiB, eight answers at the 8 MiB cap. */
export const DEFAULT_RESPONSE_BUDGET_BYTES = 64 * 1024 * 1024;

/** A wake-up assumes each woken response reads about one socket read before it counts again. */
const READ_ESTIMATE_BYTES = 64 * 1024;

/** A response holding budget: told when it may read again after take() returned false. */
export interface BudgetHolder {
  heldBytes: number;
  resumeReading(): void;
}

export class ResponseBudget {
  private used = 0;
  /** Holders in the order they first took budget: the first is the oldest. */
  private readonly holders = new Set<BudgetHolder>();
  /** Paused holders, in the order they paused. */
  private readonly waiting = new Set<BudgetHolder>();
  private peak = 0;

  constructor(readonly limitBytes: number) {}

  /** Bytes held now, and the most ever held at once (for tests and the benchmark). */
  get usedBytes(): number {
    return this.used;
  }

  get peakBytes(): number {
    return this.peak;
  }

  /**
   * Counts `bytes` that `holder` has just received. True when it may go on reading; false when it
   * must pause until its resumeReading() is called.
   */
  take(holder: BudgetHolder, bytes: number): boolean {
    this.used += bytes;
    if (this.used > this.peak) this.peak = this.used;
    holder.heldBytes += bytes;
    this.holders.add(holder);
    if (this.used <= this.limitBytes || this.isOldest(holder)) return true;
    this.waiting.add(holder);
    return false;
  }

  /** Gives back everything `holder` holds (its response is complete, failed or abandoned). */
  release(holder: BudgetHolder): void {
    this.waiting.delete(holder);
    if (!this.holders.delete(holder)) return;
    this.used -= holder.heldBytes;
    holder.heldBytes = 0;
    this.wake();
  }

  private isOldest(holder: BudgetHolder): boolean {
    return this.holders.values().next().value === holder;
  }

  private wake(): void {
    if (this.waiting.size === 0) return;
    let expected = this.used;
    const woken: BudgetHolder[] = [];
    for (const holder of this.waiting) {
      if (expected + READ_ESTIMATE_BYTES > this.limitBytes) break;
      expected += READ_ESTIMATE_BYTES;
      woken.push(holder);
    }
    // The oldest holder must always read on, whoever else is woken: the others may pause again at
    // their next chunk, and then only the oldest can complete and free budget.
    const oldest = this.holders.values().next().value;
    if (oldest !== undefined && this.waiting.has(oldest) && !woken.includes(oldest)) woken.push(oldest);
    for (const holder of woken) this.waiting.delete(holder);
    // Resumed later, not here: release() runs inside another response's parser callback, and an
    // undici parser must not be resumed from within a parser callback.
    if (woken.length > 0) queueMicrotask(() => woken.forEach((holder) => holder.resumeReading()));
  }
}

/** The budget every probe client of this process shares unless given another. */
export const processResponseBudget = new ResponseBudget(DEFAULT_RESPONSE_BUDGET_BYTES);
