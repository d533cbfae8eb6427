import { ApplicationFailure, Context } from '@temporalio/activity';
import type { Sql } from '../src/db/client';
import { findEndpoint } from '../src/db/endpoints';
import { findRun, findRunTargets, finishTarget, markRunRunning, markTargetRunning, TERMINAL_RUN_STATUSES } from '../src/db/runs';
import { aggregateLatency, insertSamples, type SampleRow } from '../src/db/samples';
import type { SecretBox } from '../src/crypto/secret-box';
import { createJsonRpcClient, OutboundAddressRefusedError, type CallResult, type JsonRpcClient } from '../src/probe/json-rpc-client';
import { probeRange } from '../src/probe/probe-range';
import { createPlanner } from '../src/probe/workload';
import { withRetryRecording } from './retry-recording';
import type { ProbeProgress, ProbeTargetInput, ProbeTargetResult } from './types';

/** A chunk is the unit of resumption: its samples are written, then its end is heartbeated. */
export const PROBE_CHUNK_CALLS = 2_000;
const HEARTBEAT_EVERY_MS = 1_000;

export interface ProbeDeps {
  sql: Sql;
  box: SecretBox;
  allowPrivateTargets: boolean;
}

export async function probeTarget(deps: ProbeDeps, input: ProbeTargetInput): Promise<ProbeTargetResult> {
  const { sql } = deps;
  const targets = await findRunTargets(sql, input.runId);
  const target = targets.find((t) => t.id === input.targetId);
  if (!target) throw ApplicationFailure.nonRetryable(`run target ${input.targetId} not found`, 'NotFound');
  return withRetryRecording(
    sql,
    { runId: input.runId, targetId: target.id, endpointId: target.endpoint_id, activity: 'probeTarget', retry: input.retry },
    async () => {
      const context = Context.current();
      const run = await findRun(sql, input.runId);
      const endpoint = await findEndpoint(sql, target.endpoint_id);
      if (!run || !endpoint) throw ApplicationFailure.nonRetryable('run or endpoint not found', 'NotFound');
      if (TERMINAL_RUN_STATUSES.includes(run.status)) return { targetId: target.id, calls: 0, failed: 0 };
      await markRunRunning(sql, run.id);
      await markTargetRunning(sql, target.id);

      const workload = run.config_snapshot.suite.config.workload;
      const plan = createPlanner(workload, Number(run.seed));
      const headers = endpoint.headers_encrypted
        ? (JSON.parse(deps.box.decrypt(endpoint.headers_encrypted)) as Record<string, string>)
        : {};
      const refused = (error: unknown) =>
        error instanceof OutboundAddressRefusedError
          ? ApplicationFailure.nonRetryable(`endpoint ${endpoint.name}: ${error.message}`, 'OutboundAddressRefused')
          : error;
      let client: JsonRpcClient;
      try {
        client = createJsonRpcClient(
          { url: deps.box.decrypt(endpoint.url_encrypted), headers, timeoutMs: workload.timeout_ms },
          { connections: workload.concurrency, allowPrivateTargets: deps.allowPrivateTargets },
        );
      } catch (error) {
        throw refused(error);
      }

      const progress = (context.info.heartbeatDetails as ProbeProgress | undefined) ?? { nextSeq: 0 };
      const signal = context.cancellationSignal;
      // Heartbeats keep flowing between chunks too, so a long chunk is not taken for a dead worker
      // and cancellation reaches us within about a second.
      const heartbeatTimer = setInterval(() => context.heartbeat(progress), HEARTBEAT_EVERY_MS);
      try {
        // Warm-up: open the keep-alive connections; never recorded, never counted.
        if (workload.warmup_requests > 0) {
          await probeRange({
            client,
            plan: (i) => ({ ...plan(i), seq: -1 - i }),
            from: 0,
            to: workload.warmup_requests,
            concurrency: workload.concurrency,
            signal,
          });
        }
        const planned = target.calls_planned;
        let pendingWrite: Promise<void> = Promise.resolve();
        for (let from = progress.nextSeq; from < planned && !signal.aborted; from += PROBE_CHUNK_CALLS) {
          const to = Math.min(planned, from + PROBE_CHUNK_CALLS);
          const results = await probeRange({ client, plan, from, to, concurrency: workload.concurrency, signal });
          if (signal.aborted) break;
          await pendingWrite;
          // Writing overlaps with probing the next chunk; progress advances only once rows are committed.
          pendingWrite = insertSamples(sql, results.map((r) => toSampleRow(run.id, target.id, target.role, r))).then(() => {
            progress.nextSeq = to;
            context.heartbeat(progress);
          });
        }
        await pendingWrite;
      } catch (error) {
        throw refused(error);
      } finally {
        clearInterval(heartbeatTimer);
        await client.close();
      }
      if (signal.aborted) {
        await finishTarget(sql, target.id, 'cancelled', {});
        throw signal.reason ?? new Error('cancelled');
      }
      const stats = await aggregateLatency(sql, run.id, [target.id]);
      await finishTarget(sql, target.id, 'success', { stats });
      return { targetId: target.id, calls: stats.calls.total, failed: stats.calls.failed };
    },
  );
}

function toSampleRow(runId: string, targetId: string, role: SampleRow['role'], r: CallResult): SampleRow {
  return {
    run_id: runId,
    target_id: targetId,
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
  };
}
