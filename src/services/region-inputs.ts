import type postgres from 'postgres';
import type { RunTargetRow } from '../db/run-targets';
import { aggregateLatency, answeredSecondShare, successfulOrderStatistics } from '../db/samples-stats';
import { findUnavailableRegions } from '../db/vantage';
import { emptyStats } from '../domain/run-stats';
import { verdictRanks, type RegionInput, type VerdictInput } from '../domain/verdict';

/**
 * The verdict input restricted to each vantage point's samples (the run's checks are judged per
 * region on these). What judges the run as a whole — baseline, correctness, the head watch, the
 * per-method and pairing figures — is not repeated per region.
 */
export async function regionInputs(
  sql: postgres.TransactionSql,
  runId: string,
  vantagePoints: readonly string[],
  run: VerdictInput,
  t: { primaryDone: readonly RunTargetRow[]; reference: RunTargetRow | undefined; targets: readonly RunTargetRow[] },
): Promise<RegionInput[]> {
  const primaryIds = t.primaryDone.map((p) => p.id);
  const unavailable = await findUnavailableRegions(sql, runId);
  const names = new Map(t.targets.map((target) => [target.id, target.endpoint_name]));
  const out: RegionInput[] = [];
  for (const region of vantagePoints) {
    const measured = await aggregateLatency(sql, runId, primaryIds, region);
    const targetLatencies = [];
    for (const p of t.primaryDone) {
      targetLatencies.push({
        endpoint_id: p.endpoint_id,
        endpoint_name: p.endpoint_name,
        stats: (await aggregateLatency(sql, runId, [p.id], region)).calls,
        latencies: await successfulOrderStatistics(sql, runId, [p.id], verdictRanks, region),
      });
    }
    const ref = t.reference;
    out.push({
      region,
      unavailableEndpoints: (unavailable.get(region) ?? []).map((id) => names.get(id) ?? id),
      input: {
        ...run,
        candidate: { ...measured, tests: run.candidate.tests },
        candidateLatencies: await successfulOrderStatistics(sql, runId, primaryIds, verdictRanks, region),
        targets: targetLatencies,
        candidateAnsweredShare: await answeredSecondShare(sql, runId, primaryIds, region),
        reference:
          ref && run.reference
            ? {
                endpoint_id: ref.endpoint_id,
                endpoint_name: ref.endpoint_name,
                stats: { ...emptyStats(), ...(await aggregateLatency(sql, runId, [ref.id], region)) },
                latencies: await successfulOrderStatistics(sql, runId, [ref.id], verdictRanks, region),
                answeredShare: await answeredSecondShare(sql, runId, [ref.id], region),
              }
            : null,
      },
    });
  }
  return out;
}

