import { ApplicationFailure, Context } from '@temporalio/activity';
import type { Sql } from '../src/db/client';
import type { SecretBox } from '../src/crypto/secret-box';
import { findEndpoint } from '../src/db/endpoints';
import { findRun, markRunRunning } from '../src/db/runs';
import { findRunTargets, finishTarget, markTargetRunning, recordBatchLimit } from '../src/db/run-targets';
import { recordHead } from '../src/db/run-heads';
import { TERMINAL_RUN_STATUSES } from '../src/domain/run-model';
import { DEFAULT_REGION } from '../src/domain/vantage';
import type { SampleRow } from '../src/db/samples-ingest';
import { aggregateLatency } from '../src/db/samples-stats';
import { OutboundAddressRefusedError } from '../src/net/guarded-lookup';
import { recordProberHealth } from '../src/db/prober-health';
import type { ProberHealthSample } from '../src/domain/verdict';
import type { JsonRpcClient } from '../src/probe/json-rpc-client';
import { performanceTimeAt, probeRange, type ProbedCall } from '../src/probe/probe-range';
import { startProberHealth, type LoopBurn, type ProberHealthMonitor } from '../src/probe/prober-health';
import type { PaceGate } from '../src/probe/campaign-pacer';
import { parseHead } from '../src/chains/registry';
import type { ChainAdapter } from '../src/chains/types';
import type { ClientCache } from './client-cache';
import { asActivityFailure, endpointClientVersion, openEndpointClient } from './endpoint-client';
import { withRetryRecording } from './retry-recording';
import { sampleWriter } from './sample-writer';
import type { ProbeChunkInput, ProbeChunkResult, ProbeProgress } from './types';
import { runPlanOrFail } from './run-plan';

/** A chunk — one activity execution — probes at most this many calls or for at most this long. */
export const CHUNK_MAX_CALLS = 5_000;
export const CHUNK_MAX_MS = 30_000;
/**
 * Within a chunk, samples are committed (then heartbeated) in batches of this many, or of what
 * came in BATCH_MAX_MS, whichever is first: the run's progress (and the live dashboard) counts
 * committed samples, and an open loop of 20 calls/s would otherwise show nothing until its
 * 30-second chunk ended. One small write per second per target is cheap next to the probing.
 */
export const BATCH_CALLS = 1_000;
export const BATCH_MAX_MS = 1_000;
const HEARTBEAT_EVERY_MS = 1_000;

export interface ProbeDeps {
  sql: Sql;
  box: SecretBox;
  allowPrivateTargets: boolean;
  clients: ClientCache;
  /** Tests only: burns the worker's event loop while it probes (src/probe/prober-health.ts). */
  testLoopBurn?: LoopBurn;
  /** A campaign's pacing (probe-admission.ts): what its closed loop's calls pass first. */
  pace?: PaceGate;
}

/**
 * Measures the prober's health over one probe activity attempt (DESIGN §17) and stores it once
 * the attempt's probing ended without an error: an attempt that failed is retried, and its
 * retry measures again. Every open-loop call's send lag counts (observe); closed loop has none.
 */
export function measureProber(deps: ProbeDeps, key: { runId: string; targetId: string; activity: string; fromSeq: number }) {
  const monitor: ProberHealthMonitor = startProberHealth(deps.testLoopBurn);
  const attempt = Context.current().info.attempt;
  return {
    observe(results: readonly ProbedCall[]): void {
      for (const r of results) if (r.sendLagUs !== null) monitor.observeSendLag(r.sendLagUs);
    },
    async finish(failed: boolean): Promise<ProberHealthSample> {
      const sample = monitor.stop();
      if (!failed) await recordProberHealth(deps.sql, { ...key, attempt }, sample);
      return sample;
    },
  };
}

/** A probed call as a sample row; the sweep step adds its step and warm-up flag to the same row. */
export function toSampleRow(runId: string, targetId: string, role: SampleRow['role'], r: ProbedCall, paired: boolean, region: string): SampleRow {
  return {
    run_id: runId,
    target_id: targetId,
    region,
    seq: r.seq,
    role,
    method: r.method,
    started_at: r.startedAt,
    latency_us: r.latencyUs,
    ok: r.outcome === 'ok',
    outcome: r.outcome,
    http_status: r.httpStatus,
    rpc_error_code: r.rpcErrorCode,
    response_hash: r.responseHash,
    matches_reference: null,
    reason: r.reason,
    // Only a shared anchor makes the lags of two targets comparable (null = unpaired).
    send_lag_us: paired ? r.sendLagUs : null,
    context_slot: r.answerContext ?? null,
    scalar_answer: r.scalarAnswer ?? null,
  };
}

/**
 * Reads the target's chain head and records it for the verdict's head_lag_blocks and the
 * correctness check's head-moved excuse. Not a sample, and a failed or malformed answer is
 * ignored: a missing read only withholds that excuse, and the samples that follow judge the
 * endpoint's availability. Our address policy's refusal is not the endpoint's failure: it is
 * thrown, and fails the chunk as a refused probe call does.
 */
async function observeHead(sql: Sql, chain: ChainAdapter, client: JsonRpcClient, runId: string, targetId: string): Promise<void> {
  const sentAt = Date.now();
  let answer: unknown;
  try {
    answer = await client.result(chain.head.method, chain.head.params);
  } catch (error) {
    if (error instanceof OutboundAddressRefusedError) throw error;
    return;
  }
  const head = parseHead(chain, answer);
  if (head === null) return;
  // The middle of the round trip is the best estimate of when the node answered.
  const observedAt = new Date(Math.round((sentAt + Date.now()) / 2));
  await recordHead(sql, { runId, targetId, observedAt, head: head.number, height: await readHeight(chain, client) });
}

/** The block height beside a head that is not one (ChainAdapter.heightBesideHead); null when there is none or the read failed. */
async function readHeight(chain: ChainAdapter, client: JsonRpcClient): Promise<bigint | null> {
  try {
    return await chain.heightBesideHead((method, params) => client.result(method, params));
  } catch (error) {
    if (error instanceof OutboundAddressRefusedError) throw error;
    return null;
  }
}

/**
 * Probes one chunk of one target: from the input's sequence number (or, on a retry, from the
 * last committed and heartbeated one) for at most CHUNK_MAX_CALLS calls or CHUNK_MAX_MS.
 * Samples are written per batch with writeSampleChunk, which is idempotent per seq range.
 */
export async function probeChunk(deps: ProbeDeps, input: ProbeChunkInput): Promise<ProbeChunkResult> {
  const { sql } = deps;
  // Everything, the first query included, runs inside the recording: a chunk attempt that failed
  // because our database was down is on record too.
  return withRetryRecording(
    sql,
    {
      runId: input.runId,
      targetId: input.targetId,
      endpointId: null,
      // A vantage point's chunk is its own execution: its attempts are told apart from another region's of the same seqs.
      activity: input.region === undefined ? 'probeChunk' : `probeChunk@${input.region}`,
      chunkSeq: input.fromSeq,
      retry: input.retry,
    },
    async (heartbeat) => {
      const context = Context.current();
      const targets = await findRunTargets(sql, input.runId);
      const target = targets.find((t) => t.id === input.targetId);
      // Head lag is measured against the reference, so heads are read only when the run has one.
      const observeHeads = targets.some((t) => t.role === 'reference');
      if (!target) throw ApplicationFailure.nonRetryable(`run target ${input.targetId} not found`, 'NotFound');
      const run = await findRun(sql, input.runId);
      const endpoint = await findEndpoint(sql, target.endpoint_id);
      if (!run || !endpoint) throw ApplicationFailure.nonRetryable('run or endpoint not found', 'NotFound');
      if (TERMINAL_RUN_STATUSES.includes(run.status)) return { targetId: target.id, nextSeq: input.fromSeq, done: true };
      await markRunRunning(sql, run.id);
      await markTargetRunning(sql, target.id);

      const { workload, thresholds, chain, requestAt: plan } = runPlanOrFail(run);
      const planned = target.calls_planned ?? Number.POSITIVE_INFINITY;
      const resumed = (context.info.heartbeatDetails as ProbeProgress | undefined)?.nextSeq ?? 0;
      const progress: ProbeProgress = { nextSeq: Math.max(input.fromSeq, resumed) };
      const chunkEnd = Math.min(planned, progress.nextSeq + CHUNK_MAX_CALLS);
      const deadlineMs = Math.min(Date.now() + CHUNK_MAX_MS, input.campaignEndsAtMs ?? Number.POSITIVE_INFINITY);
      const signal = context.cancellationSignal;
      // Heartbeats keep flowing during a batch too, so a slow endpoint is not taken for a dead
      // worker, and a cancel request reaches this attempt within about a second.
      const heartbeatTimer = setInterval(() => heartbeat({ ...progress }), HEARTBEAT_EVERY_MS);
      const prober = measureProber(deps, { runId: run.id, targetId: target.id, activity: input.region === undefined ? 'probeChunk' : `probeChunk@${input.region}`, fromSeq: input.fromSeq });
      let failed = true;
      try {
        // Snapshots of runs triggered before the workload had a transport are HTTP runs.
        const transport = workload.transport ?? 'http';
        const { client, fresh } = deps.clients.get(target.id, endpointClientVersion(endpoint, transport), () =>
          openEndpointClient(deps, endpoint, {
            timeoutMs: workload.timeout_ms,
            connections: workload.concurrency,
            transport,
            // Snapshots of runs triggered before batches existed send single calls.
            batchSize: workload.batch_size ?? 1,
            chain,
            // Answers are fingerprinted only when finalize will compare them with the reference.
            fingerprintResults: observeHeads && thresholds.correctness_enabled,
            ...(input.region === undefined ? {} : { vantage: input.region }),
          }),
        );
        // Warm-up opens the keep-alive connections of a new pool; it is never recorded or counted.
        if (fresh && workload.warmup_requests > 0) {
          await probeRange({
            client,
            plan: (i) => ({ ...plan(i), seq: -1 - i }),
            from: 0,
            to: workload.warmup_requests,
            concurrency: workload.concurrency,
            signal,
          });
        }
        if (observeHeads && !signal.aborted) await observeHead(sql, chain, client, run.id, target.id);
        const writer = sampleWriter(sql, signal, progress, heartbeat);
        // A shared anchor (paired open loop) also puts each call's send lag on record.
        const paired = typeof input.scheduleAnchorMs === 'number' && Boolean(workload.rate_per_second);
        // The task queue it came from is the region's (the workflow routes by vantage point).
        const region = input.region ?? DEFAULT_REGION;
        try {
          if (progress.nextSeq < chunkEnd && Date.now() < deadlineMs && !signal.aborted) {
            await probeRange({
              client,
              plan,
              from: progress.nextSeq,
              to: chunkEnd,
              concurrency: workload.concurrency,
              batchSize: workload.batch_size ?? 1,
              ratePerSecond: workload.rate_per_second,
              scheduleOriginMs: paired ? performanceTimeAt(input.scheduleAnchorMs as number) : undefined,
              deadlineMs,
              signal: writer.signal,
              batchCalls: BATCH_CALLS,
              batchMaxMs: BATCH_MAX_MS,
              pace: deps.pace,
              onBatch: (results, fromSeq, toSeq) => {
                prober.observe(results);
                return writer.write(
                  { runId: run.id, targetId: target.id, region, fromSeq, toSeq },
                  results.map((r) => toSampleRow(run.id, target.id, target.role, r, paired, region)),
                );
              },
            });
          }
        } finally {
          await writer.close();
        }
        // A batch refused for its size made the client look for the endpoint's limit: on record for the report.
        const batchLimit = signal.aborted ? null : await client.batchLimit?.();
        if (batchLimit) await recordBatchLimit(sql, target.id, batchLimit);
        // A head read after the chunk too: the correctness check excuses a head-dependent
        // mismatch only when the head moved between the reads around the sample.
        if (observeHeads && !signal.aborted) await observeHead(sql, chain, client, run.id, target.id);
        failed = false;
      } catch (error) {
        await deps.clients.drop(target.id);
        throw asActivityFailure(error, endpoint.name);
      } finally {
        clearInterval(heartbeatTimer);
        await prober.finish(failed);
      }
      if (signal.aborted) {
        await deps.clients.drop(target.id);
        // Its stats are kept like a finished target's: they are what the run's progress counts.
        await finishTarget(sql, target.id, 'cancelled', { stats: await aggregateLatency(sql, run.id, [target.id]) });
        throw signal.reason ?? new Error('cancelled');
      }
      const campaignOver = input.campaignEndsAtMs !== null && Date.now() >= input.campaignEndsAtMs;
      const done = progress.nextSeq >= planned || campaignOver;
      if (done) {
        await deps.clients.drop(target.id);
        const stats = await aggregateLatency(sql, run.id, [target.id]);
        await finishTarget(sql, target.id, 'success', { stats });
      }
      return { targetId: target.id, nextSeq: progress.nextSeq, done };
    },
  );
}
