import { ApplicationFailure, Context } from '@temporalio/activity';
import type { SecretBox } from '../src/crypto/secret-box';
import type { Sql } from '../src/db/client';
import { findEndpoint, type EndpointRow } from '../src/db/endpoints';
import { countHeadArrivals, findWatchSegments, recordHeadArrivals, upsertWatchSegments, type NewHeadArrival } from '../src/db/head-arrivals';
import { findRun } from '../src/db/runs';
import { findRunTargets, type RunTargetRow } from '../src/db/run-targets';
import { MAX_HEAD_NUMBER, maxStoredHeads } from '../src/domain/freshness';
import { TERMINAL_RUN_STATUSES } from '../src/domain/run-model';
import { runSettingsOf } from '../src/domain/run-plan';
import { HeadWatchUnavailableError, openHeadWatch, type HeadWatchEndpoint } from '../src/probe/transports';
import type { HeadWatch } from '../src/probe/watch-heads';
import { asActivityFailure, decryptEndpoint } from './endpoint-client';
import { runPlanOrFail } from './run-plan';
import type { WatchFreshnessProgress, WatchFreshnessResult } from './types';

export interface WatchFreshnessDeps {
  sql: Sql;
  box: SecretBox;
  allowPrivateTargets: boolean;
}

/** Arrivals are written (and the progress heartbeated) this often: at most this much is seen again after a lost worker. */
const FLUSH_EVERY_MS = 1_000;
/** A flood of distinct heads is written at once beyond this many, so the buffer cannot grow without bound. */
const MAX_BUFFERED = 5_000;
/** Heads remembered per target to count duplicates; forgotten wholesale beyond it (a duplicate then goes uncounted, never double-stored). */
const MAX_REMEMBERED = 50_000;

function watchEndpointOf(box: SecretBox, endpoint: EndpointRow): HeadWatchEndpoint {
  return { protocol: endpoint.protocol, ...decryptEndpoint(box, endpoint), timeoutMs: endpoint.timeout_ms };
}

function currentContext(): Context | undefined {
  try {
    return Context.current();
  } catch {
    return undefined;
  }
}

/**
 * Watches the head of every target and of the reference at once for the suite's
 * freshness.duration_s, storing each arrival as ms from the watch's start. One attempt is one
 * observer segment: its arrival times share this process's monotonic clock. A retried attempt (a
 * worker lost) resumes the same watch (its start comes from the heartbeat details, else from the
 * stored segments) as the next segment and watches only what remains; what it saw again is
 * stored once, and the time nobody watched is the observer's gap between two segments.
 */
export async function watchFreshness(deps: WatchFreshnessDeps, input: { runId: string }): Promise<WatchFreshnessResult> {
  const { sql } = deps;
  const run = await findRun(sql, input.runId);
  if (!run) throw ApplicationFailure.nonRetryable(`run ${input.runId} not found`, 'NotFound');
  const { freshness } = runSettingsOf(run);
  if (!freshness || TERMINAL_RUN_STATUSES.includes(run.status)) return { heads: 0, segment: null };
  const { watchChain: chain } = runPlanOrFail(run);
  const targets = await findRunTargets(sql, run.id);

  const context = currentContext();
  const prior = context?.info.heartbeatDetails as WatchFreshnessProgress | undefined;
  const stored = await findWatchSegments(sql, run.id);
  const segment = Math.max(prior?.segment ?? -1, ...stored.map((s) => s.segment)) + 1;
  const watchStartedAtMs = prior?.watchStartedAtMs ?? stored[0]?.watch_started_at.getTime() ?? Date.now();
  const watchStartedAt = new Date(watchStartedAtMs);
  const endsAtMs = watchStartedAtMs + freshness.duration_s * 1000;
  const progress: WatchFreshnessProgress = { watchStartedAtMs, segment };
  if (Date.now() >= endsAtMs) return { heads: 0, segment: null };

  // A segment's times: wall clock once, at its start (segments of different processes line up to
  // within the clocks' agreement), then this process's monotonic clock for everything it sees.
  const startedMs = Date.now() - watchStartedAtMs;
  const startedNs = process.hrtime.bigint();
  const offsetMs = (ns: bigint) => startedMs + Number(ns - startedNs) / 1e6;

  const stop = new AbortController();
  const cancelled = () => stop.abort();
  context?.cancellationSignal.addEventListener('abort', cancelled, { once: true });
  const endTimer = setTimeout(() => stop.abort(), endsAtMs - Date.now());

  // Bounded per target: beyond what the family's block rate allows over the whole watch (every
  // segment), the endpoint is flooding and its further heads are counted, not stored.
  const maxHeads = maxStoredHeads(freshness.duration_s, chain.fastestHeadIntervalMs);
  const storedBefore = await countHeadArrivals(sql, run.id);
  const watches: {
    target: RunTargetRow;
    watch: HeadWatch;
    duplicates: number;
    liveFromMs: number | null;
    /** Heads this target has stored or buffered, every segment included. */
    kept: number;
    notStored: number;
    outOfRange: number;
  }[] = [];
  try {
    for (const target of targets) {
      const endpoint = await findEndpoint(sql, target.endpoint_id);
      if (!endpoint) throw ApplicationFailure.nonRetryable('endpoint not found', 'NotFound');
      try {
        const watch = openHeadWatch(watchEndpointOf(deps.box, endpoint), chain, {
          via: freshness.via,
          pollIntervalMs: freshness.poll_interval_ms,
          allowPrivateTargets: deps.allowPrivateTargets,
          signal: stop.signal,
        });
        watches.push({ target, watch, duplicates: 0, liveFromMs: null, kept: storedBefore.get(target.id) ?? 0, notStored: 0, outOfRange: 0 });
      } catch (error) {
        if (error instanceof HeadWatchUnavailableError) {
          throw ApplicationFailure.nonRetryable(`endpoint ${endpoint.name}: ${error.message}`, 'HeadWatchUnavailable');
        }
        throw asActivityFailure(error, endpoint.name);
      }
    }

    let buffer: NewHeadArrival[] = [];
    let heads = 0;
    const flush = async () => {
      const batch = buffer;
      buffer = [];
      heads += await recordHeadArrivals(sql, run.id, freshness.via, batch);
      const lastSeenMs = offsetMs(process.hrtime.bigint());
      await upsertWatchSegments(
        sql,
        run.id,
        watches.map(({ target, watch, duplicates, liveFromMs, notStored, outOfRange }) => ({
          target_id: target.id,
          segment,
          started_ms: startedMs,
          last_seen_ms: lastSeenMs,
          live_from_ms: liveFromMs,
          reconnects: watch.stats.reconnects,
          disconnects: watch.stats.disconnects,
          duplicates,
          dropped: watch.stats.dropped,
          not_stored: notStored,
          out_of_range: outOfRange,
        })),
        watchStartedAt,
      );
      // Heartbeated only once written: a resumed attempt never skips what this one lost.
      context?.heartbeat({ ...progress });
    };
    await flush();

    let flushing: Promise<void> = Promise.resolve();
    const flushSoon = () => (flushing = flushing.then(flush));
    const flushTimer = setInterval(() => void flushSoon().catch(() => stop.abort()), FLUSH_EVERY_MS);
    try {
      const consumers = watches.map(async (entry) => {
        const seen = new Set<string>();
        for await (const event of entry.watch) {
          if (event.kind === 'connected') entry.liveFromMs ??= offsetMs(event.atMonotonicNs);
          if (event.kind !== 'head') continue;
          // A number the database cannot hold is this endpoint's finding: never in the shared batch,
          // whose failed write would drop every target's heads.
          if (event.number < 0n || event.number > MAX_HEAD_NUMBER) {
            entry.outOfRange++;
            continue;
          }
          const key = `${event.number}:${event.hash ?? ''}`;
          if (seen.has(key)) {
            entry.duplicates++;
            continue;
          }
          if (seen.size >= MAX_REMEMBERED) seen.clear();
          seen.add(key);
          if (entry.kept >= maxHeads) {
            entry.notStored++;
            continue;
          }
          entry.kept++;
          buffer.push({ targetId: entry.target.id, number: event.number, hash: event.hash, arrivalMs: offsetMs(event.receivedAtMonotonicNs), segment });
          if (buffer.length >= MAX_BUFFERED) await flushSoon();
        }
      }).map((consumer) =>
        consumer.catch((error: unknown) => {
          stop.abort();
          throw error;
        }),
      );
      const settled = await Promise.allSettled(consumers);
      // Any watch that failed (a refused address) stops the others.
      const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
      if (failed) {
        stop.abort();
        const name = (await findEndpoint(sql, watches[settled.indexOf(failed)]!.target.endpoint_id))?.name ?? 'unknown';
        throw asActivityFailure(failed.reason, name);
      }
    } finally {
      clearInterval(flushTimer);
    }
    await flushing;
    if (context?.cancellationSignal.aborted) throw context.cancellationSignal.reason;
    await flush();
    return { heads, segment };
  } finally {
    clearTimeout(endTimer);
    context?.cancellationSignal.removeEventListener('abort', cancelled);
    stop.abort();
    await Promise.allSettled(watches.map((w) => w.watch.done));
  }
}
