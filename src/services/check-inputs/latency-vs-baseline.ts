import type { Queryable } from '../../db/client';
import { findRunOfTenant, type RunRow } from '../../db/runs';
import { findRunTargets } from '../../db/run-targets';
import { findPassingHistory, findPreviousSuccessfulRun } from '../../db/run-history';
import { successfulOrderStatistics } from '../../db/samples-stats';
import type { RunSettings } from '../../domain/run-plan';
import { BASELINE_DEFAULTS, historyRunsToRead } from '../../domain/statistics/history-baseline';
import { verdictRanks, type BaselineInput } from '../../domain/verdict';
import type { CheckInputLoader } from './check-input';

/** latency_vs_baseline: the earlier runs the suite's baseline mode compares with. */
export const baselineInput: CheckInputLoader = async ({ sql, run, settings }) => ({ baseline: await resolveBaseline(sql, run, settings.baseline) });

/**
 * What the baseline check compares with. Baseline ids come from the tenant (trigger body, suite
 * config): they are looked up within the run's tenant, so a suite stored before the API checked
 * them cannot read another tenant's run; the history and the previous run are the tenant's too,
 * and only runs whose verdict passed qualify.
 */
async function resolveBaseline(sql: Queryable, run: RunRow, config: RunSettings['baseline']): Promise<BaselineInput | null> {
  const explicit = run.baseline_run_id ?? (config.mode === 'run' ? config.run_id : null);
  if (explicit) {
    const chosen = await findRunOfTenant(sql, explicit, run.tenant_id);
    return { mode: 'run', previous: chosen?.stats ? await baselineRun(sql, chosen) : null };
  }
  if (config.mode === 'previous_success') {
    const previous = await findPreviousSuccessfulRun(sql, run);
    return { mode: 'previous_success', previous: previous?.stats ? await baselineRun(sql, previous) : null };
  }
  if (config.mode !== 'history') return null;
  const window = config.window ?? BASELINE_DEFAULTS.window;
  const minRuns = config.min_runs ?? BASELINE_DEFAULTS.minRuns;
  const lookback = await findPassingHistory(sql, run, historyRunsToRead(window));
  const history = lookback.slice(0, window);
  // Below min_runs the newest passing run of the history is compared sample by sample.
  const newest = history.length > 0 && history.length < minRuns ? await findRunOfTenant(sql, history[0]!.run_id, run.tenant_id) : undefined;
  return { mode: 'history', minRuns, window, history, lookback, previous: newest?.stats ? await baselineRun(sql, newest) : null };
}

async function baselineRun(sql: Queryable, baseline: RunRow) {
  const primaries = (await findRunTargets(sql, baseline.id)).filter((t) => t.role === 'primary').map((t) => t.id);
  return {
    run_id: baseline.id,
    stats: baseline.stats!,
    latencies: await successfulOrderStatistics(sql, baseline.id, primaries, verdictRanks),
  };
}
