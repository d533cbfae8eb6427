import { hostname } from 'node:os';
import type { ProberHealthSample } from '../domain/verdict';
import { loopDelayUs, startLoopDelayHistogram } from './loop-delay';

/**
 * Burns the event loop while probing: `burnMs` of busy work every `everyMs`. Only tests build
 * a worker with it (ProbeDeps.testLoopBurn); no configuration, suite or request can set it.
 */
export interface LoopBurn {
  everyMs: number;
  burnMs: number;
}

export interface ProberHealthMonitor {
  /** A paired call's send lag, µs (how late it left after it was due). */
  observeSendLag(us: number): void;
  stop(): ProberHealthSample;
}

const WORKER = `${hostname()}:${process.pid}`;

function p99(values: number[]): number | null {
  if (values.length === 0) return null;
  const sorted = Float64Array.from(values).sort();
  return sorted[Math.min(sorted.length - 1, Math.ceil(0.99 * sorted.length) - 1)]!;
}

/**
 * Starts measuring the process's event-loop delay and CPU for one probe activity. The delay is
 * the process's, not the activity's: a prober is the process, and whatever else runs in it (other
 * activities, sample writes, Temporal's polling) delays its sends and its clocks alike.
 */
export function startProberHealth(burn?: LoopBurn): ProberHealthMonitor {
  const delay = startLoopDelayHistogram();
  const cpuAtStart = process.cpuUsage();
  const startedAt = performance.now();
  const sendLags: number[] = [];
  const burner = burn
    ? setInterval(() => {
        const until = performance.now() + burn.burnMs;
        while (performance.now() < until) {
          // busy: the test's stand-in for a saturated worker
        }
      }, burn.everyMs)
    : null;
  return {
    observeSendLag(us) {
      sendLags.push(us);
    },
    stop() {
      if (burner) clearInterval(burner);
      delay.disable();
      const durationMs = performance.now() - startedAt;
      const cpu = process.cpuUsage(cpuAtStart);
      return {
        worker: WORKER,
        loopDelayP99Us: loopDelayUs(delay, delay.percentile(99)),
        loopDelayMaxUs: loopDelayUs(delay, delay.max),
        sendLagP99Us: p99(sendLags),
        cpuPct: durationMs > 0 ? ((cpu.user + cpu.system) / 1000 / durationMs) * 100 : 0,
        durationMs: Math.round(durationMs),
      };
    },
  };
}
