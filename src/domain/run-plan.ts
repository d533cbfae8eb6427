import type { TargetRole } from './run-model';
import type { RetryPolicy, SuiteConfig, Workload } from './suite-config';
import { DEFAULT_VANTAGE_START_TIMEOUT_S } from './vantage';

/**
 * What a run executes, read once from its row: the suite config as snapshotted when the run was
 * requested (thresholds overridden), the seed that fixes the request at every seq, and the block
 * its templated params were pinned to. Activities and finalize read these fields instead of
 * digging through the stored snapshot; the run's chain adapter and request planner are added to
 * it by runPlanOf (src/chains/registry.ts), which only code that plans or compares requests needs.
 */
export interface RunSettings {
  suiteName: string;
  workload: Workload;
  thresholds: SuiteConfig['thresholds'];
  retry: RetryPolicy;
  baseline: SuiteConfig['baseline'];
  seed: number;
  /** Null until planRun pinned it, and for a workload without templated params. */
  pinnedBlock: number | null;
  /** The head watch, when the suite has one. */
  freshness: SuiteConfig['freshness'] | null;
  /** The integrity step's settings, when the suite enables it (config.integrity). */
  integrity: NonNullable<SuiteConfig['integrity']> | null;
  /** The regions each target is probed from; null: the main queue only (recorded as `local`). */
  vantagePoints: string[] | null;
  /** How long a region's probe may wait for a worker before the region is vantage_unavailable. */
  vantageStartTimeoutMs: number;
}

/** The part of a run row the settings are read from (bigint columns come back as strings). */
export interface RunSettingsSource {
  config_snapshot: { suite: { name: string; config: SuiteConfig } };
  seed: string | number;
  pinned_block: string | number | null;
}

export function runSettingsOf(run: RunSettingsSource): RunSettings {
  const { name, config } = run.config_snapshot.suite;
  return {
    suiteName: name,
    workload: config.workload,
    thresholds: config.thresholds,
    retry: config.retry,
    baseline: config.baseline,
    seed: Number(run.seed),
    pinnedBlock: run.pinned_block === null ? null : Number(run.pinned_block),
    freshness: config.freshness ?? null,
    integrity: config.integrity?.enabled ? config.integrity : null,
    vantagePoints: config.vantage_points ?? null,
    vantageStartTimeoutMs: (config.vantage_start_timeout_s ?? DEFAULT_VANTAGE_START_TIMEOUT_S) * 1000,
  };
}

/** A run's targets by role: the candidates (in the given order) and its reference, if any. */
export function targetsByRole<T extends { role: TargetRole }>(targets: readonly T[]): { candidates: T[]; reference: T | undefined } {
  return { candidates: targets.filter((t) => t.role === 'primary'), reference: targets.find((t) => t.role === 'reference') };
}
