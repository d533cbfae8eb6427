import type { IntervalHistogram } from 'node:perf_hooks';
import type { ActivitySlotInfo, CustomSlotSupplier, SlotPermit, WorkerTuner } from '@temporalio/worker';
import { loopDelayUs, startLoopDelayHistogram } from '../probe/loop-delay';

export interface EventLoopSlotOptions {
  /** Slots issued whatever the loop does: a worker always makes some progress. */
  minActivities: number;
  /** Slots never exceeded. */
  maxActivities: number;
  /** Beyond the minimum, a slot is issued only while the loop's recent delay p99 is at or under this. */
  maxLoopDelayMs: number;
}

// The loop's delay is judged over the last window: short enough to react within a second, long
// enough to hold a few dozen of the histogram's 10 ms samples.
const WINDOW_MS = 500;
const RECHECK_MS = 100;

/** The SDK takes a reservation rejected with its signal's reason as aborted (anything else it logs as an error). */
function aborted(signal: AbortSignal): unknown {
  return signal.reason ?? Object.assign(new Error('slot reservation aborted'), { name: 'AbortError' });
}

/**
 * Activity slots that follow the worker's event loop (DESIGN §17): a prober is one Node process,
 * and what saturates it is its loop, not the host's CPU or memory (which Temporal's resource-based
 * tuner watches, host-wide). Beyond `minActivities`, a new activity task is polled for only while
 * the loop's delay p99 over the last half second is within `maxLoopDelayMs`: a saturated worker
 * stops taking probe tasks — they wait on the queue for a worker with headroom — instead of
 * running them late. Slots reserved for idle pollers count too, as the SDK reserves them.
 */
export class EventLoopSlotSupplier implements CustomSlotSupplier<ActivitySlotInfo> {
  readonly type = 'custom';
  private reserved = 0;
  private recentP99Ms = 0;
  private readonly histogram: IntervalHistogram;
  private readonly sampler: NodeJS.Timeout;

  constructor(private readonly options: EventLoopSlotOptions) {
    this.histogram = startLoopDelayHistogram();
    this.sampler = setInterval(() => {
      this.recentP99Ms = loopDelayUs(this.histogram, this.histogram.percentile(99)) / 1000;
      this.histogram.reset();
    }, WINDOW_MS);
    this.sampler.unref();
  }

  /** The loop's delay p99 over the last window, ms (for metrics and tests). */
  get loopDelayP99Ms(): number {
    return this.recentP99Ms;
  }

  get reservedSlots(): number {
    return this.reserved;
  }

  private mayIssue(): boolean {
    if (this.reserved < this.options.minActivities) return true;
    return this.reserved < this.options.maxActivities && this.recentP99Ms <= this.options.maxLoopDelayMs;
  }

  async reserveSlot(_ctx: unknown, abortSignal: AbortSignal): Promise<SlotPermit> {
    while (!this.mayIssue()) {
      if (abortSignal.aborted) throw aborted(abortSignal);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, RECHECK_MS);
        function done() {
          clearTimeout(timer);
          abortSignal.removeEventListener('abort', done);
          resolve();
        }
        abortSignal.addEventListener('abort', done, { once: true });
      });
    }
    if (abortSignal.aborted) throw aborted(abortSignal);
    this.reserved++;
    return {};
  }

  tryReserveSlot(): SlotPermit | null {
    if (!this.mayIssue()) return null;
    this.reserved++;
    return {};
  }

  markSlotUsed(): void {}

  releaseSlot(): void {
    this.reserved = Math.max(0, this.reserved - 1);
  }

  close(): void {
    clearInterval(this.sampler);
    this.histogram.disable();
  }
}

/**
 * The worker's tuner: activity slots from the event loop (one supplier shared by every worker of
 * the process, so the run worker and the region's probe worker share one budget); workflow,
 * local-activity and Nexus slots fixed, at the SDK's defaults for workflow tasks.
 */
export function eventLoopTuner(activities: EventLoopSlotSupplier): WorkerTuner {
  return {
    workflowTaskSlotSupplier: { type: 'fixed-size', numSlots: 40 },
    activityTaskSlotSupplier: activities,
    localActivityTaskSlotSupplier: { type: 'fixed-size', numSlots: 20 },
    nexusTaskSlotSupplier: { type: 'fixed-size', numSlots: 10 },
  };
}
