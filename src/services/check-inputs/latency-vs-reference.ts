import type { Queryable } from '../../db/client';
import { loadPairing } from '../../db/paired-samples';
import { referenceMethodLatency } from '../../db/run-metrics';
import { type RunTargetRow } from '../../db/run-targets';
import { headIntervalMs, lastHeads, medianHeadLag } from '../../db/run-heads';
import type { CheckInputLoader } from './check-input';

/** latency_vs_reference: per-method latency of both sides, the head lag, the last heads and the pairing. */
export const referenceInput: CheckInputLoader = async ({ sql, run, settings, candidates, reference }) => {
  if (!reference) return {};
  const primaryIds = candidates.map((t) => t.id);
  return {
    reference: {
      byMethod: await referenceMethodLatency(sql, run.id, primaryIds, reference.id),
      ...(await headLag(sql, run.id, primaryIds, reference.id)),
      lastHeads: await lastHeadsOf(sql, run.id, [...candidates, reference]),
      pairing: await loadPairing(sql, { runId: run.id, openLoop: Boolean(settings.workload.rate_per_second), candidateTargetIds: primaryIds, referenceTargetId: reference.id }),
    },
  };
};

/**
 * The candidates' head lag behind the reference in blocks (slots on Solana) and in ms: the lag
 * times the reference's measured head interval over the run (ms per block or slot, from its first
 * and last head reads). The ms figure is an estimate from head reads made every probe chunk; the
 * freshness watch (config.freshness) measures arrival lag per head directly.
 */
async function headLag(sql: Queryable, runId: string, primaryIds: readonly string[], referenceId: string) {
  const headLagBlocks = await medianHeadLag(sql, runId, primaryIds, referenceId);
  const interval = headLagBlocks === null ? null : await headIntervalMs(sql, runId, referenceId);
  return { headLagBlocks, headLagMs: headLagBlocks === null || interval === null ? null : Math.round(headLagBlocks * interval) };
}

/** Each target's last head read with the block height beside it; none when no head read names a height (the head is the height). */
async function lastHeadsOf(sql: Queryable, runId: string, targets: readonly RunTargetRow[]) {
  const heads = await lastHeads(sql, runId, targets.map((t) => t.id));
  if (heads.every((h) => h.height === null)) return undefined;
  return targets.flatMap((t) => {
    const h = heads.find((x) => x.target_id === t.id);
    return h ? [{ endpoint_name: t.endpoint_name, role: t.role, head: h.head, block_height: h.height }] : [];
  });
}
