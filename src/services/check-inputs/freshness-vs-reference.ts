import type postgres from 'postgres';
import { countHeadArrivals, findHeadArrivals, findWatchSegments } from '../../db/head-arrivals';
import type { RunRow } from '../../db/runs';
import type { RunTargetRow } from '../../db/run-targets';
import { runPlanOf } from '../../chains/registry';
import { maxStoredHeads, measureFreshness } from '../../domain/freshness';
import { runSettingsOf } from '../../domain/run-plan';
import type { FreshnessWatchInput } from '../../domain/verdict';
import type { CheckInputLoader } from './check-input';

/** freshness_vs_reference: the run's head watch, when it had one and a reference to watch against. */
export const freshnessInput: CheckInputLoader = async ({ sql, run, candidates, reference }) => {
  const freshness = reference ? await freshnessOfRun(sql, run, candidates, reference) : undefined;
  return freshness ? { freshness } : {};
};

/** The run's head watch measured from its stored arrivals; undefined when the suite watches no heads. */
async function freshnessOfRun(
  sql: postgres.TransactionSql,
  run: RunRow,
  candidates: readonly RunTargetRow[],
  reference: RunTargetRow,
): Promise<FreshnessWatchInput | undefined> {
  const config = runSettingsOf(run).freshness;
  if (!config) return undefined;
  const perTarget = maxStoredHeads(config.duration_s, runPlanOf(run).watchChain.fastestHeadIntervalMs);
  const [arrivals, segments, stored] = [await findHeadArrivals(sql, run.id, perTarget), await findWatchSegments(sql, run.id), await countHeadArrivals(sql, run.id)];
  // Rows beyond the bound (stored before it) are a flood too: counted as not stored, never read.
  const excess = (targetId: string, segment: number) =>
    segments.find((s) => s.target_id === targetId)?.segment === segment ? Math.max(0, (stored.get(targetId) ?? 0) - perTarget) : 0;
  const measured = measureFreshness({
    referenceTargetId: reference.id,
    candidateTargetIds: candidates.map((t) => t.id),
    arrivals: arrivals.map((a) => ({ targetId: a.target_id, number: Number(a.number), hash: a.hash, arrivalMs: a.arrival_ms, segment: a.segment })),
    segments: segments.map((s) => ({
      targetId: s.target_id,
      segment: s.segment,
      startedMs: s.started_ms,
      liveFromMs: s.live_from_ms,
      lastSeenMs: s.last_seen_ms,
      reconnects: s.reconnects,
      disconnects: s.disconnects,
      duplicates: s.duplicates,
      dropped: s.dropped,
      notStored: s.not_stored + excess(s.target_id, s.segment),
      outOfRange: s.out_of_range,
    })),
    via: config.via,
    graceMs: config.grace_ms,
    lateMs: config.late_ms,
  });
  const endpoints = Object.fromEntries([...candidates, reference].map((t) => [t.id, { endpoint_id: t.endpoint_id, endpoint_name: t.endpoint_name }]));
  return { ...config, measured, endpoints };
}

