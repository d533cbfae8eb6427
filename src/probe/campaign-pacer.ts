import type { IntervalHistogram } from 'node:perf_hooks';
import { loopDelayUs, startLoopDelayHistogram } from './loop-delay';

/**
 * What a campaign's closed loop awaits before each call (probeRange's `pace`): a release to call
 * once the call settled, or null when `stopped()` turned true while it waited.
 */
export interface PaceGate {
  acquire(stopped: () => boolean): Promise<(() => void) | null>;
}

/** One probe activity attempt on this worker, from admission to its end. */
export interface PacedProbe {
  /** Set for campaign-class activities: the gate their closed-loop calls pass. */
  pace: PaceGate | undefined;
  /**
   * The attempt ended. `failed`: it threw (a claim over its tenant's cap, a failure Temporal
   * retries): no run step follows it at once, so an interactive one's campaigns resume without
   * the linger — else a queued run asking every 2 s would pause the campaigns half the time.
   */
  leave(ended?: 'done' | 'failed'): void;
}

export interface CampaignPacerOptions {
  /** Campaign calls in flight are halved whenever the loop's delay p99 over a window exceeds this. */
  maxLoopDelayMs: number;
  /** How long campaigns stay paused after an interactive activity ended (default INTERACTIVE_LINGER_MS). */
  interactiveLingerMs?: number;
  /** Tests only: false leaves the windows to observeLoopDelay alone (the loop is not sampled). */
  sampleLoop?: boolean;
}

// Windows short enough to react within a quarter second, long enough for ~25 of the histogram's
// 10 ms samples. Waiters recheck at least once a window, so a stop (deadline, cancel) is seen.
const WINDOW_MS = 250;
/** Campaigns stay paused this long after the last interactive activity on the worker ended. */
export const INTERACTIVE_LINGER_MS = 1_000;
/** Campaign calls in flight at most on one worker: far above any suite's concurrency sum, it only bounds growth. */
const MAX_LIMIT = 100_000;

/**
 * Campaigns that pace themselves (DESIGN §17). One per worker process, shared by every activity
 * on it. An interactive or scheduled run's activity (its probe, its claim, plan and finalize) that
 * runs here makes every campaign-class closed loop on the worker yield: calls in flight finish, no
 * new one starts until INTERACTIVE_LINGER_MS after the last such activity ended, so small runs
 * measure their endpoint on a prober with headroom (their latency is what it would be on an idle
 * worker, not the campaign's queueing) and their bookkeeping does not queue behind a campaign's
 * answers and sample writes. The rest of
 * the time the campaigns' calls in flight follow the loop's delay, additive increase and
 * multiplicative decrease: halved (down to 1) after a window whose delay p99 exceeded
 * `maxLoopDelayMs`, grown by an eighth after a window under half of it, so the loop keeps room
 * for bookkeeping, heartbeats and Temporal's polling.
 *
 * Closed loops only: an open loop's calls are due at their instants, and holding them back would
 * be measured as the prober's send lag (and as latency) — its load is the rate its tenant chose,
 * bounded by the tenant's probe-activity cap and the worker's slots. A paused campaign sends
 * fewer calls in its chunk; its latencies stay true (a closed loop has no schedule to fall behind).
 */
export class CampaignPacer {
  private interactive = 0;
  private campaigns = 0;
  private inFlight = 0;
  private limit = MAX_LIMIT;
  private readonly waiters = new Set<() => void>();
  private histogram: IntervalHistogram | null = null;
  private sampler: NodeJS.Timeout | null = null;

  constructor(private readonly options: CampaignPacerOptions) {}

  /** Campaign calls in flight on this worker now, and at most (for metrics and tests). */
  get state(): { interactive: number; campaigns: number; inFlight: number; limit: number } {
    return { interactive: this.interactive, campaigns: this.campaigns, inFlight: this.inFlight, limit: this.limit };
  }

  /**
   * A probe activity starts here: a campaign's is paced, an interactive one's makes the campaigns
   * yield until it leaves (pacingRoleOf in src/domain/run-priority.ts says which is which).
   */
  enter(role: 'campaign' | 'interactive' | 'other'): PacedProbe {
    let left = false;
    if (role === 'interactive') this.interactive++;
    if (role === 'campaign' && this.campaigns++ === 0) this.startSampling();
    return {
      pace: role === 'campaign' ? this.gate : undefined,
      leave: (ended = 'done') => {
        if (left) return;
        left = true;
        if (role === 'interactive' && ended === 'failed') this.interactive--;
        else if (role === 'interactive') {
          // The campaigns resume only after a short linger: the run's next activity (its finalize
          // after its probe) follows within a workflow task, and should find the worker as quiet.
          setTimeout(() => {
            this.interactive--;
            this.wake();
          }, this.options.interactiveLingerMs ?? INTERACTIVE_LINGER_MS).unref();
        }
        if (role === 'campaign' && --this.campaigns === 0) this.stopSampling();
        this.wake();
      },
    };
  }

  /**
   * Resolves once no campaign call is in flight on the worker any more, or after `maxMs`: an
   * interactive probe that just entered starts measuring once the campaigns' last calls have
   * settled, not while their answers still crowd the loop.
   */
  async campaignsSettled(maxMs: number): Promise<void> {
    const deadline = performance.now() + maxMs;
    const timer = setTimeout(() => this.wake(), maxMs);
    try {
      while (this.inFlight > 0 && performance.now() < deadline) await new Promise<void>((resolve) => this.waiters.add(resolve));
    } finally {
      clearTimeout(timer);
    }
  }

  private readonly gate: PaceGate = {
    acquire: async (stopped) => {
      while (!this.mayCall()) {
        if (stopped()) return null;
        await new Promise<void>((resolve) => this.waiters.add(resolve));
      }
      if (stopped()) return null;
      this.inFlight++;
      let released = false;
      return () => {
        if (released) return;
        released = true;
        this.inFlight--;
        this.wake();
      };
    },
  };

  private mayCall(): boolean {
    return this.interactive === 0 && this.inFlight < this.limit;
  }

  private wake(): void {
    const waiters = [...this.waiters];
    this.waiters.clear();
    for (const resolve of waiters) resolve();
  }

  /** One window's judgement (exposed for tests): the loop's delay p99 over it, ms. */
  observeLoopDelay(p99Ms: number): void {
    if (p99Ms > this.options.maxLoopDelayMs) {
      this.limit = Math.max(1, Math.floor(Math.min(this.limit, Math.max(1, this.inFlight)) / 2));
    } else if (p99Ms <= this.options.maxLoopDelayMs / 2 && this.limit < MAX_LIMIT) {
      this.limit = Math.min(MAX_LIMIT, this.limit + Math.max(1, Math.ceil(this.limit / 8)));
    }
    this.wake();
  }

  private startSampling(): void {
    if (this.options.sampleLoop === false) return;
    const histogram = startLoopDelayHistogram();
    this.histogram = histogram;
    this.sampler = setInterval(() => {
      this.observeLoopDelay(loopDelayUs(histogram, histogram.percentile(99)) / 1000);
      histogram.reset();
    }, WINDOW_MS);
    this.sampler.unref();
  }

  private stopSampling(): void {
    if (this.sampler) clearInterval(this.sampler);
    this.histogram?.disable();
    this.sampler = null;
    this.histogram = null;
    // The next campaign starts unthrottled; the first loaded window halves it again.
    this.limit = MAX_LIMIT;
  }
}
