import type postgres from 'postgres';
import type { RunRow } from '../../db/runs';
import type { RunTargetRow } from '../../db/run-targets';
import { sweepStepRows } from '../../db/sweep-stats';
import type { RunSettings } from '../../domain/run-plan';
import { sweepPlanOf } from '../../domain/sweep';
import { verdictRanks, type SweepInput } from '../../domain/verdict';
import type { CheckInputLoader } from './check-input';

/** capacity: a sweep run's steps as measured per endpoint. */
export const sweepInput: CheckInputLoader = async ({ sql, run, settings, targets }) => {
  const sweep = await sweepOfRun(sql, run, settings, targets);
  return sweep ? { sweep } : {};
};

/** A sweep run's steps as measured per endpoint (candidates, then the reference); undefined when the run swept nothing. */
async function sweepOfRun(sql: postgres.TransactionSql, run: RunRow, settings: RunSettings, targets: readonly RunTargetRow[]): Promise<SweepInput | undefined> {
  const plan = sweepPlanOf(settings.workload.sweep);
  if (!plan) return undefined;
  const ordered = [...targets.filter((t) => t.role === 'primary'), ...targets.filter((t) => t.role === 'reference')];
  const rows = await sweepStepRows(sql, run.id, ordered.map((t) => t.id), verdictRanks);
  return {
    step_s: plan.stepS,
    warmup_s: plan.warmupS,
    rates: plan.steps.map((s) => s.rate),
    endpoints: ordered.map((t) => ({
      endpoint_id: t.endpoint_id,
      endpoint_name: t.endpoint_name,
      role: t.role,
      steps: (rows.get(t.id) ?? []).map((r) => ({ ...r, rate: plan.steps[r.step]?.rate ?? 0 })),
    })),
  };
}

