import { normalQuantile } from './statistics/distributions';
import { BASELINE_DEFAULTS } from './statistics/history-baseline';
import { fewestCallsToDecide } from './statistics/relative-difference';
import type { SuiteConfig } from './suite-config';

/** A check the suite's workload is too small to let decide; the suite is stored all the same. */
export interface SuiteWarning {
  check: 'latency_vs_reference' | 'latency_vs_baseline' | 'availability';
  field: string;
  message: string;
}

/**
 * Calls measured per target in one run (warm-up excluded): requests_per_target, or for an
 * open-loop campaign bound by time duration_s × rate_per_second; null for a closed-loop
 * campaign bound by time, whose count the endpoint's speed decides.
 */
export function measuredCallsPerTarget(workload: SuiteConfig['workload']): number | null {
  if (workload.requests_per_target !== null) return workload.requests_per_target;
  if (workload.duration_s !== null && workload.rate_per_second !== null) return Math.floor(workload.duration_s * workload.rate_per_second);
  return null;
}

/** Fewest calls at which the availability interval can pass: at 100 % success its lower bound is n/(n + z²). */
export function fewestCallsToPassAvailability(minPct: number): number | null {
  if (minPct >= 100) return null;
  const z = normalQuantile(0.975);
  return Math.ceil((z * z * minPct) / (100 - minPct));
}

const FIELD = 'config.workload.requests_per_target';

/**
 * What the suite's checks can never decide with the calls its workload makes — said when the
 * suite is created or changed, not discovered run after run as `inconclusive`. The figures are the
 * statistics' own (docs/statistics.md: fewest calls per check).
 */
export function suiteWarnings(config: SuiteConfig): SuiteWarning[] {
  const calls = measuredCallsPerTarget(config.workload);
  if (calls === null) return [];
  const { toPass, toFail } = fewestCallsToDecide(0.95);
  const warnings: SuiteWarning[] = [];
  const floor = config.thresholds.latency_regression_min_ms ?? 5;
  const latency = (check: SuiteWarning['check'], against: string, until = '') => {
    if (calls < toFail) {
      warnings.push({
        check,
        field: FIELD,
        message:
          `${calls} calls per target: ${check} can neither fail nor pass on its interval (a p95 comparison needs ${toFail} calls to fail ` +
          `and ${toPass} to pass); it passes only when the difference ${against} is under the ${floor} ms floor, and is inconclusive otherwise${until}`,
      });
    } else if (calls < toPass) {
      warnings.push({
        check,
        field: FIELD,
        message:
          `${calls} calls per target: ${check} can fail (from ${toFail} calls) but not pass on its interval (from ${toPass}); ` +
          `a difference ${against} over the ${floor} ms floor that does not fail is inconclusive${until}`,
      });
    }
  };
  if (config.reference_endpoint_id) latency('latency_vs_reference', 'from the reference');
  // The history model judges per-run p95s and needs no count; the previous run's calls do, and
  // in history mode they are only the fallback while fewer than min_runs passing runs exist.
  const until = config.baseline.mode === 'history' ? ` — until ${config.baseline.min_runs ?? BASELINE_DEFAULTS.minRuns} passing runs form a history, which then judges any count` : '';
  if (config.baseline.mode !== 'none') latency('latency_vs_baseline', 'from the baseline run', until);
  const minPct = config.thresholds.success_rate_min_pct ?? 99;
  const availability = fewestCallsToPassAvailability(minPct);
  if (availability !== null && calls < availability) {
    warnings.push({
      check: 'availability',
      field: FIELD,
      message:
        `${calls} calls per target: availability cannot pass at success_rate_min_pct ${minPct} (even 100 % success needs ` +
        `${availability} calls for its interval to clear it); it can fail, and is inconclusive otherwise`,
    });
  }
  return warnings;
}
