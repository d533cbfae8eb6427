import { ApplicationFailure } from '@temporalio/activity';
import type { Sql } from '../src/db/client';
import { findEndpoint } from '../src/db/endpoints';
import { findRun, setPinnedBlock } from '../src/db/runs';
import { findRunTargets } from '../src/db/run-targets';
import { needsPinContext, needsPinnedBlock, parseHead } from '../src/chains/registry';
import { PinContextError, type PinCall } from '../src/chains/types';
import { runSettingsOf, targetsByRole } from '../src/domain/run-plan';
import type { SecretBox } from '../src/crypto/secret-box';
import { asActivityFailure, openEndpointClient } from './endpoint-client';
import { endpointFailure, withRetryRecording } from './retry-recording';
import type { PlanRunResult, RetrySummary } from './types';
import { runPlanOrFail } from './run-plan';

/**
 * Pins the block that templated parameters refer to: head − block_lag (the head read as the
 * run's chain family reads it, through the registry), read from the reference
 * (the trusted side) or else the first candidate; and, when the workload names them, the values
 * the family reads beside it (its pinned context: Bitcoin's block hash and txid), from the same
 * endpoint. Both are stored together. Idempotent: a pinned run keeps its block and context.
 */
export async function planRun(
  deps: { sql: Sql; box: SecretBox; allowPrivateTargets: boolean },
  input: { runId: string; retry: RetrySummary },
): Promise<PlanRunResult> {
  const { sql } = deps;
  const run = await findRun(sql, input.runId);
  if (!run) throw ApplicationFailure.nonRetryable(`run ${input.runId} not found`, 'NotFound');
  if (run.pinned_block !== null) return { pinnedBlock: Number(run.pinned_block) };
  // A workload without templated params pins nothing: no adapter needed, nothing asked.
  if (!needsPinnedBlock(runSettingsOf(run).workload)) return { pinnedBlock: null };
  const { chain, workload } = runPlanOrFail(run);
  const targets = await findRunTargets(sql, run.id);
  const source = targetsByRole(targets).reference ?? targets[0]!;
  return withRetryRecording(
    sql,
    { runId: run.id, targetId: source.id, endpointId: source.endpoint_id, activity: 'planRun', chunkSeq: null, retry: input.retry },
    async () => {
      const endpoint = (await findEndpoint(sql, source.endpoint_id))!;
      const client = openEndpointClient(deps, endpoint, { timeoutMs: workload.timeout_ms, connections: 1, chain });
      try {
        // The endpoint's failures spend the suite's retry budget (an ECONNREFUSED here is the
        // endpoint's, not our database's: marked before it could be taken for ours).
        const call: PinCall = (method, params) =>
          client.result(method, params).catch((error: unknown) => {
            const refused = asActivityFailure(error, endpoint.name);
            throw refused === error ? endpointFailure(error instanceof Error ? error.message : String(error)) : refused;
          });
        const head = parseHead(chain, await call(chain.head.method, chain.head.params));
        if (head === null) {
          throw endpointFailure(`endpoint ${endpoint.name} answered ${chain.head.method} with something that is not a block number`);
        }
        const pinned = Math.max(0, Number(head.number) - workload.block_lag);
        const context =
          needsPinContext(chain, workload)
            ? await chain.pinContext.read(call, pinned).catch((error: unknown) => {
                throw error instanceof PinContextError ? endpointFailure(`endpoint ${endpoint.name}: ${error.message}`) : error;
              })
            : null;
        const stored = await setPinnedBlock(sql, run.id, pinned, context);
        return { pinnedBlock: stored.pinnedBlock };
      } finally {
        await client.close();
      }
    },
  );
}
