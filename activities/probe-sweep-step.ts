import { ApplicationFailure, Context } from '@temporalio/activity';
import { findEndpoint } from '../src/db/endpoints';
import { findRun, markRunRunning } from '../src/db/runs';
import { findRunTargets, finishTarget, markTargetRunning } from '../src/db/run-targets';
import type { SampleRow } from '../src/db/samples-ingest';
import { aggregateLatency } from '../src/db/samples-stats';
import { sweepStepRows } from '../src/db/sweep-stats';
import { TERMINAL_RUN_STATUSES } from '../src/domain/run-model';
import { DEFAULT_REGION } from '../src/domain/vantage';
import { judgeStep, sweepPlanOf, sweepStops, type SweepPlan } from '../src/domain/sweep';
import { measuredStep, sweepBudget } from '../src/domain/verdict/capacity';
import { verdictRanks } from '../src/domain/verdict';
import { performanceTimeAt, probeRange, type ProbedCall } from '../src/probe/probe-range';
import { asActivityFailure, endpointClientVersion, openEndpointClient } from './endpoint-client';
import { BATCH_CALLS, BATCH_MAX_MS, CHUNK_MAX_MS, measureProber, toSampleRow, type ProbeDeps } from './probe-chunk';
import { withRetryRecording } from './retry-recording';
import { runPlanOrFail } from './run-plan';
import { sampleWriter } from './sample-writer';
import type { ProbeProgress, ProbeSweepStepInput, ProbeSweepStepResult, SweepStepJudged } from './types';

/**
 * Connections a sweep's pool may open per target (undici opens them as the load needs): a higher
 * step needs more calls in flight, and a pool too small for it would queue calls on our side.
 */
export const SWEEP_CONNECTIONS = 256;
/** Calls in flight at most per target (probeRange allows concurrency × 16). */
const SWEEP_IN_FLIGHT_CONCURRENCY = 256;
/**
 * A chunk that starts this much after its next call was due (a retry after a worker was lost, a
 * late start) re-anchors the rest of its step at its own start instead of catching up: the step
 * goes on at its rate, and the time lost is a gap between its sends, not a burst.
 */
export const SWEEP_REANCHOR_AFTER_MS = 1_000;
const HEARTBEAT_EVERY_MS = 1_000;

function sweepPlanOrFail(workload: Parameters<typeof sweepPlanOf>[0]): SweepPlan {
  const plan = sweepPlanOf(workload);
  if (!plan) throw ApplicationFailure.nonRetryable('the run has no sweep', 'NotFound');
  return plan;
}

/**
 * Probes one step of a capacity sweep on one target, from the input's seq (or, on a retry, the
 * last committed and heartbeated one) for at most CHUNK_MAX_MS: the step's warm-up calls first
 * (stored, flagged warmup, counted nowhere), then its measured ones, open loop at the step's rate
 * on the anchor the workflow chose for the step (candidate and reference alike). Samples are
 * written per batch with writeSampleChunk, idempotent per seq range, so a retried chunk neither
 * loses nor doubles one.
 */
export async function probeSweepStep(deps: ProbeDeps, input: ProbeSweepStepInput): Promise<ProbeSweepStepResult> {
  return probeStepSeqs(deps, input, null);
}

/** What a shard adds to a step's chunk: it sends every `count`-th seq, and says where it ran. */
export interface ShardOfStep {
  index: number;
  count: number;
  /** Called once the attempt knows where it resumes (after the run and step were found). */
  started(attempt: number, resumedSeq: number): Promise<void>;
  finished(attempt: number, end: { nextSeq: number; sendLagP99Us: number | null }): Promise<void>;
}

/**
 * The chunk of a step (shard null), or of one shard of it: the same probing, the shard sending
 * only its seqs (stride) on the step's anchor and writing only those.
 */
export async function probeStepSeqs(deps: ProbeDeps, input: ProbeSweepStepInput, shard: ShardOfStep | null): Promise<ProbeSweepStepResult> {
  const { sql } = deps;
  const activity = shard ? 'probeSweepShard' : 'probeSweepStep';
  const stride = shard?.count ?? 1;
  // A shard keeps a pool of its own: two shards of one target on one worker neither share its
  // connections nor close them under each other (a failed chunk drops its pool).
  const clientKey = shard ? `${input.targetId}#shard${shard.index}` : input.targetId;
  return withRetryRecording(
    sql,
    { runId: input.runId, targetId: input.targetId, endpointId: null, activity, chunkSeq: input.fromSeq, retry: input.retry },
    async (heartbeat) => {
      const context = Context.current();
      const targets = await findRunTargets(sql, input.runId);
      const target = targets.find((t) => t.id === input.targetId);
      if (!target) throw ApplicationFailure.nonRetryable(`run target ${input.targetId} not found`, 'NotFound');
      const run = await findRun(sql, input.runId);
      const endpoint = await findEndpoint(sql, target.endpoint_id);
      if (!run || !endpoint) throw ApplicationFailure.nonRetryable('run or endpoint not found', 'NotFound');
      const { workload, thresholds, chain, requestAt } = runPlanOrFail(run);
      const step = sweepPlanOrFail(workload.sweep).steps[input.step];
      if (!step) throw ApplicationFailure.nonRetryable(`sweep step ${input.step} not planned`, 'NotFound');
      if (TERMINAL_RUN_STATUSES.includes(run.status)) return { nextSeq: step.toSeq, done: true };
      await markRunRunning(sql, run.id);
      await markTargetRunning(sql, target.id);

      const resumed = (context.info.heartbeatDetails as ProbeProgress | undefined)?.nextSeq ?? 0;
      // A shard's seqs are input.fromSeq + k × stride: what it committed ends on one of them.
      const progress: ProbeProgress = { nextSeq: Math.max(input.fromSeq, resumed, step.fromSeq) };
      const attempt = context.info.attempt;
      await shard?.started(attempt, progress.nextSeq);
      const intervalMs = 1000 / step.rate;
      // Seq i of the step is due at anchor + (i − fromSeq) / rate, unless this chunk starts too late for that.
      const dueEpochMs = input.anchorMs + (progress.nextSeq - step.fromSeq) * intervalMs;
      const reanchored = Date.now() - dueEpochMs > SWEEP_REANCHOR_AFTER_MS;
      const originMs = reanchored ? undefined : performanceTimeAt(input.anchorMs) - step.fromSeq * intervalMs;
      const deadlineMs = Date.now() + CHUNK_MAX_MS;
      const signal = context.cancellationSignal;
      const heartbeatTimer = setInterval(() => heartbeat({ ...progress }), HEARTBEAT_EVERY_MS);
      const prober = measureProber(deps, {
        runId: run.id,
        targetId: target.id,
        activity: shard ? `probeSweepShard/${input.step}.${shard.index}` : 'probeSweepStep',
        fromSeq: input.fromSeq,
      });
      let failed = true;
      try {
        const transport = workload.transport ?? 'http';
        const observeReference = targets.some((t) => t.role === 'reference');
        const { client } = deps.clients.get(clientKey, endpointClientVersion(endpoint, transport), () =>
          openEndpointClient(deps, endpoint, {
            timeoutMs: workload.timeout_ms,
            connections: Math.max(workload.concurrency, SWEEP_CONNECTIONS),
            transport,
            batchSize: workload.batch_size ?? 1,
            chain,
            fingerprintResults: observeReference && thresholds.correctness_enabled,
          }),
        );
        const writer = sampleWriter(sql, signal, progress, heartbeat);
        const warmupEnd = step.fromSeq + step.warmupCalls;
        // The engine's own lateness is always on record in a sweep (paired): a step whose prober fell behind says so.
        // No answer context: a sweep measures load, not correctness at one context.
        const toRow = (r: ProbedCall): SampleRow => ({
          ...toSampleRow(run.id, target.id, target.role, r, true, DEFAULT_REGION),
          context_slot: null,
          sweep_step: step.step,
          warmup: r.seq < warmupEnd,
        });
        try {
          if (progress.nextSeq < step.toSeq && !signal.aborted) {
            await probeRange({
              client,
              plan: requestAt,
              from: progress.nextSeq,
              to: step.toSeq,
              stride,
              concurrency: SWEEP_IN_FLIGHT_CONCURRENCY,
              batchSize: workload.batch_size ?? 1,
              ratePerSecond: step.rate,
              scheduleOriginMs: originMs,
              deadlineMs,
              signal: writer.signal,
              batchCalls: BATCH_CALLS,
              batchMaxMs: BATCH_MAX_MS,
              onBatch: (results, fromSeq, toSeq) => {
                prober.observe(results);
                return writer.write({ runId: run.id, targetId: target.id, fromSeq, toSeq, stride }, results.map(toRow));
              },
            });
          }
        } finally {
          await writer.close();
        }
        failed = false;
      } catch (error) {
        await deps.clients.drop(clientKey);
        throw asActivityFailure(error, endpoint.name);
      } finally {
        clearInterval(heartbeatTimer);
        const health = await prober.finish(failed);
        if (!failed) await shard?.finished(attempt, { nextSeq: progress.nextSeq, sendLagP99Us: health.sendLagP99Us });
      }
      if (signal.aborted) {
        await deps.clients.drop(clientKey);
        await finishTarget(sql, target.id, 'cancelled', { stats: await aggregateLatency(sql, run.id, [target.id]) });
        throw signal.reason ?? new Error('cancelled');
      }
      return { nextSeq: progress.nextSeq, done: progress.nextSeq >= step.toSeq };
    },
  );
}

/**
 * After every target probed a step: judges the candidates' step against the budget and says
 * whether the sweep stops (each candidate broke it by a clear margin, or its prober fell
 * behind). When it stops, or after the last planned step, the targets are finished with their stats.
 */
export async function judgeSweepStep(deps: ProbeDeps, input: { runId: string; step: number }): Promise<SweepStepJudged> {
  const { sql } = deps;
  const run = await findRun(sql, input.runId);
  if (!run) throw ApplicationFailure.nonRetryable(`run ${input.runId} not found`, 'NotFound');
  const { workload, thresholds } = runPlanOrFail(run);
  const plan = sweepPlanOrFail(workload.sweep);
  const targets = await findRunTargets(sql, run.id);
  const candidates = targets.filter((t) => t.role === 'primary');
  const measured = await sweepStepRows(sql, run.id, candidates.map((t) => t.id), verdictRanks, input.step);
  const rate = plan.steps[input.step]?.rate ?? 0;
  const none = { step: input.step, calls: 0, successful: 0, rate_limited: 0, errors: {}, achieved_rps: null, interruptions: 0, send_lag_p50_us: null, send_lag_p99_us: null, send_lag_max_us: null, latencies: [] };
  const judged = candidates.map((t) => judgeStep(measuredStep({ ...(measured.get(t.id)?.[0] ?? none), rate }), sweepBudget(thresholds)));
  const stop = sweepStops(judged) || input.step >= plan.steps.length - 1;
  if (stop) {
    for (const t of targets) {
      await deps.clients.drop(t.id);
      await finishTarget(sql, t.id, 'success', { stats: await aggregateLatency(sql, run.id, [t.id]) });
    }
  }
  return { stop, statuses: judged.map((j) => j.status) };
}
