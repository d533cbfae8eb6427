import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';

// 10 ms sampling: fine enough to see a 50 ms limit crossed, cheap enough to leave on in every activity.
const RESOLUTION_MS = 10;

/** An enabled event-loop delay histogram sampling every RESOLUTION_MS. */
export function startLoopDelayHistogram(): IntervalHistogram {
  const histogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  histogram.enable();
  return histogram;
}

/**
 * A value the histogram recorded (ns) as the loop's delay in µs: the histogram records the
 * interval between its timer's runs, so the delay is what exceeds the resolution; 0 before any
 * sample.
 */
export function loopDelayUs(histogram: IntervalHistogram, ns: number): number {
  return histogram.count > 0 ? Math.max(0, Math.round(ns / 1000) - RESOLUTION_MS * 1000) : 0;
}
