import { once } from 'node:events';
import { finished } from 'node:stream/promises';
import type { Sql } from './client';
import type { TargetRole } from '../domain/run-model';
import type { SampleOutcome } from '../domain/sample-outcome';
import { DEFAULT_REGION } from '../domain/vantage';
import { LEGACY_WEEK, samplePartitionName } from './sample-partitions';

/*
 * Writing a run's samples: one row per probe call, written per batch with COPY while the probe
 * goes on. What is computed from them is in samples-stats.ts (latency) and samples-correctness.ts
 * (comparison with the reference); samples.ts reads them back for the API.
 */

export interface SampleRow {
  run_id: string;
  target_id: string;
  seq: number;
  role: TargetRole;
  method: string;
  started_at: Date;
  latency_us: number;
  ok: boolean;
  outcome: SampleOutcome;
  http_status: number | null;
  rpc_error_code: number | null;
  response_hash: string | null;
  matches_reference: boolean | null;
  /** invalid_response only: a fixed text from the probe (INVALID_REASONS), never answer bytes. */
  reason?: string | null;
  /** Paired open loop only: actual send time − intended instant, µs (migration 014); else null. */
  send_lag_us?: number | null;
  /** The vantage point that sent the call (migration 023); absent: 'local'. */
  region?: string;
  /** The answer context (AnswerComparison.answerContext; the column's name is migration 024's); else null. */
  context_slot?: number | null;
  /** Capacity sweeps only: the step (migration 025) and whether the call was the step's warm-up; else null. */
  sweep_step?: number | null;
  warmup?: boolean | null;
  /** An ok scalar answer's value as shown (answer-diff scalarAnswer, migration 033); else null. */
  scalar_answer?: string | null;
}

export const SAMPLE_COLUMNS = [
  'run_id',
  'target_id',
  'seq',
  'role',
  'method',
  'started_at',
  'latency_us',
  'ok',
  'outcome',
  'http_status',
  'rpc_error_code',
  'response_hash',
  'matches_reference',
  'reason',
  'send_lag_us',
  'region',
  'context_slot',
  'sweep_step',
  'warmup',
  'scalar_answer',
] as const;

// COPY text format: tab-separated, \N for NULL; backslash, tab and line breaks escaped.
function copyField(value: unknown): string {
  if (value === null || value === undefined) return '\\N';
  // Fast paths first: numbers never need escaping, and most strings hold nothing to escape.
  if (typeof value === 'number') return String(value);
  if (typeof value === 'boolean') return value ? 't' : 'f';
  if (value instanceof Date) return value.toISOString();
  const text = typeof value === 'string' ? value : String(value);
  if (!/[\\\t\n\r]/.test(text)) return text;
  return text.replace(/[\\\t\n\r]/g, (c) => (c === '\\' ? '\\\\' : c === '\t' ? '\\t' : c === '\n' ? '\\n' : '\\r'));
}

/**
 * Writes the samples of one chunk — seq in [fromSeq, toSeq) of one target (every stride-th of them
 * for a shard) — with COPY (about four times faster than a multi-row INSERT). Idempotent: the
 * chunk's range is deleted first in the same transaction, so a retried chunk replaces its rows and
 * nothing is ever counted twice.
 */
export async function writeSampleChunk(
  sql: Sql,
  chunk: { runId: string; targetId: string; fromSeq: number; toSeq: number; region?: string; stride?: number },
  samples: readonly SampleRow[],
): Promise<void> {
  // A chunk is one region's: another region's rows of the same seqs are not this chunk's to replace.
  const region = chunk.region ?? DEFAULT_REGION;
  // A shard's chunk (stride > 1) holds every stride-th seq from fromSeq: the seqs between are
  // other shards', written by their own activities, and not this chunk's to replace either.
  const stride = Math.max(1, chunk.stride ?? 1);
  await sql.begin(async (tx) => {
    const ownSeqs = stride > 1 ? tx`and mod(seq - ${chunk.fromSeq}, ${stride}) = 0` : tx``;
    // The run's partition week (migration 041). The delete and the COPY then name that week's table
    // (or the legacy table) itself: planning a statement on the parent would plan every partition,
    // and a row written through the parent is routed one by one.
    const [{ week }] = await tx<[{ week: string }]>`
      select to_char(coalesce((select samples_week from runs where id = ${chunk.runId}), ${LEGACY_WEEK}::date), 'YYYY-MM-DD') as week`;
    const table = week === LEGACY_WEEK ? 'run_samples_legacy' : samplePartitionName(week);
    await tx`
      delete from ${tx(table)}
      where run_id = ${chunk.runId} and target_id = ${chunk.targetId} and seq >= ${chunk.fromSeq} and seq < ${chunk.toSeq}
        and region = ${region} ${ownSeqs}`;
    if (samples.length === 0) return;
    const stream = await tx`copy ${tx(table)} (${tx.unsafe(SAMPLE_COLUMNS.join(', '))}, run_week) from stdin`.writable();
    let buffer = '';
    for (const s of samples) {
      // One template literal per row (in SAMPLE_COLUMNS order) instead of map/join: no per-row arrays.
      buffer +=
        `${copyField(s.run_id)}\t${copyField(s.target_id)}\t${copyField(s.seq)}\t${copyField(s.role)}\t` +
        `${copyField(s.method)}\t${copyField(s.started_at)}\t${copyField(s.latency_us)}\t${copyField(s.ok)}\t` +
        `${copyField(s.outcome)}\t${copyField(s.http_status)}\t${copyField(s.rpc_error_code)}\t` +
        `${copyField(s.response_hash)}\t${copyField(s.matches_reference)}\t${copyField(s.reason)}\t${copyField(s.send_lag_us)}\t${copyField(s.region ?? region)}\t` +
        `${copyField(s.context_slot)}\t${copyField(s.sweep_step)}\t${copyField(s.warmup)}\t${copyField(s.scalar_answer)}\t${week}\n`;
      if (buffer.length > 256 * 1024) {
        if (!stream.write(buffer)) await once(stream, 'drain');
        buffer = '';
      }
    }
    stream.end(buffer);
    await finished(stream);
  });
}
