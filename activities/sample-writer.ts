import type { Sql } from '../src/db/client';
import { writeSampleChunk, type SampleRow } from '../src/db/samples-ingest';
import { recordSamples } from '../src/metrics/registry';
import type { ProbeProgress } from './types';

export type SampleBatch = Parameters<typeof writeSampleChunk>[1];

export interface SampleWriter {
  /** What the probing stops on: the activity's cancellation, or a failed write. */
  readonly signal: AbortSignal;
  /** Queues one batch's rows (probeRange's onBatch calls it once a batch is in). */
  write(batch: SampleBatch, rows: readonly SampleRow[]): void;
  /** Once the probing ended (in a finally): waits for the queued writes and rethrows a failed one. */
  close(): Promise<void>;
}

/**
 * Writes a probing activity's batches while later calls are probed (one write at a time, in
 * order); progress (what a retry resumes from) advances, and is heartbeated, only once a batch's
 * rows are committed. The range streams its batches instead of ending at each one, so a batch
 * boundary never holds up an open-loop schedule. A failed write stops the probing and is
 * rethrown by close().
 */
export function sampleWriter(
  sql: Sql,
  cancellation: AbortSignal,
  progress: ProbeProgress,
  heartbeat: (details: ProbeProgress) => void,
): SampleWriter {
  const stop = new AbortController();
  const abortProbing = () => stop.abort(cancellation.reason);
  cancellation.addEventListener('abort', abortProbing, { once: true });
  let writing: Promise<void> = Promise.resolve();
  return {
    signal: stop.signal,
    write(batch, rows) {
      // A cancelled chunk keeps what it committed before the cancel request, nothing after.
      if (cancellation.aborted) return;
      writing = writing
        .then(() => writeSampleChunk(sql, batch, rows))
        .then(() => {
          progress.nextSeq = batch.toSeq;
          heartbeat({ ...progress });
          recordSamples(rows);
        });
      // Handled here so a failure while later calls are probed is not an unhandled
      // rejection; it stops the probing and is rethrown by `await writing` in close().
      writing.catch(() => stop.abort());
    },
    async close() {
      cancellation.removeEventListener('abort', abortProbing);
      await writing;
    },
  };
}
