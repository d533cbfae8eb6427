import { randomInt, randomUUID } from 'node:crypto';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { z } from 'zod';
import { findChain } from '../../db/chains';
import { addressOf, findEndpoints, type StoredAddress } from '../../db/endpoints';
import { linkIdempotencyResource, type IdempotencyReservation } from '../../db/idempotency';
import { findRun, insertRun, markWorkflowStarted, type RunRow } from '../../db/runs';
import { type RunTargetRow } from '../../db/run-targets';
import { findSuite } from '../../db/suites';
import { baselineBranchOf, branchName, commitId } from '../../domain/branch';
import { boundedJsonDepth, integritySchema, noAddressMessage, thresholdOverridesSchema, WORKLOAD_LIMITS, type WorkloadTransport } from '../../domain/suite-config';
import { sweepPlanOf } from '../../domain/sweep';
import { AppError, validationError } from '../../errors';
import { workflowIdForRun } from '../../temporal/constants';
import { adapterForChain } from '../chain-support';
import type { Ctx } from '../context';
import { loadOwned } from '../load-owned';
import { getRun } from './get';
import { presentRun, type RunResponse } from './present';
import { resolveRunTargets, runTargetInput } from './run-targets';
import { describeCause, failUnscheduledRun, startRunWorkflow, UNSCHEDULED_RUN_REASON } from './workflow';

/** DESIGN §6: a CI attaches build facts, not payloads; every run read (lists too) carries it. */
export const MAX_RUN_METADATA_BYTES = 16 * 1024;

export const triggerRunInput = z.strictObject({
  baseline_run_id: z.uuid().nullable().default(null),
  metadata: boundedJsonDepth(z.record(z.string(), z.unknown()))
    .refine((m) => Buffer.byteLength(JSON.stringify(m)) <= MAX_RUN_METADATA_BYTES, 'must be at most 16 KiB as JSON')
    .default({}),
  thresholds: thresholdOverridesSchema.default({}),
  targets: z
    .array(runTargetInput)
    .min(1)
    .max(WORKLOAD_LIMITS.maxTargets)
    .nullable()
    .default(null)
    .describe('replaces the suite\'s candidate targets for this run only (the reference stays the suite\'s)'),
  branch: branchName.nullable().default(null).describe('the branch CI built; runs of branches other than the suite\'s baseline.branch never join its baseline'),
  commit: commitId.nullable().default(null).describe('the commit CI built (7–64 hex digits)'),
  integrity: z
    .strictObject({ trusted_block: integritySchema.shape.trusted_block.unwrap().unwrap() })
    .nullable()
    .default(null)
    .describe('this run\'s trusted block for the integrity check (from your own node or an explorer): the proofs link to it; given, the run verifies integrity even when the suite does not enable it'),
});

/** The Idempotency-Key a trigger holds, and the run a dead previous holder of it committed. */
export type TriggerIdempotency = IdempotencyReservation & { key: string; resourceId: string | null };

type TriggerInput = {
  suiteId: string;
  body: z.infer<typeof triggerRunInput>;
  idempotency?: TriggerIdempotency | null;
  /** 'api' unless a suite's schedule fired (services/schedules.ts). */
  triggeredBy?: 'api' | 'schedule';
  /** The fire that triggers it (unique per suite: a retried fire cannot make a second run). */
  scheduleFireId?: string;
};

/**
 * The trigger's first step: validates the request and commits the run row (status `queued`) with
 * its targets, linked to the request's Idempotency-Key in the same transaction; returns the rows
 * as inserted.
 * Its workflow is started only after the commit (startRunWorkflow); a process that dies in between
 * leaves a queued run without a workflow, which the run reconciler starts later
 * (services/run-reconciler.ts).
 */
export async function createRunRow({ ctx, input }: { ctx: Ctx; input: TriggerInput }): Promise<{ run: RunRow; targets: RunTargetRow[] }> {
  const { sql } = ctx.deps;
  const suite = await loadOwned(ctx, 'suite', findSuite, input.suiteId);
  const chain = (await findChain(sql, suite.chain_id))!;
  // The family may have been changed on the chain since the suite was stored.
  adapterForChain(chain, 'suite_id');
  const { body } = input;
  if (body.baseline_run_id) {
    const baseline = await findRun(sql, body.baseline_run_id);
    if (!baseline || baseline.tenant_id !== ctx.principal.tenantId) {
      throw validationError([{ field: 'baseline_run_id', message: 'no such run in your tenant' }]);
    }
  }
  const perRun = body.targets ? await resolveRunTargets(ctx, suite, body.targets) : null;
  const suiteConfig = {
    ...suite.config,
    thresholds: { ...suite.config.thresholds, ...body.thresholds },
    ...(perRun ? { targets: perRun.targets } : {}),
    // A run's trusted block replaces the suite's (and turns the integrity step on for this run).
    ...(body.integrity ? { integrity: { ...(suite.config.integrity ?? integritySchema.parse({})), enabled: true, trusted_block: body.integrity.trusted_block } } : {}),
  };
  const endpointIds = [
    ...suiteConfig.targets.map((t) => t.endpoint_id),
    ...(suiteConfig.reference_endpoint_id ? [suiteConfig.reference_endpoint_id] : []),
  ];
  const endpoints = await findEndpoints(sql, endpointIds);
  checkAddresses(suiteConfig.workload.transport, endpointIds, [...endpoints, ...(perRun?.ownEndpoints ?? [])], suiteConfig.targets.length, body.targets !== null);
  const names = new Map(endpoints.map((e) => [e.id, e.name]));
  for (const own of perRun?.ownEndpoints ?? []) names.set(own.id, own.name);
  const runId = randomUUID();
  const { workload } = suiteConfig;
  // A sweep plans every step's calls (an early stop probes fewer).
  const callsPlanned =
    sweepPlanOf(workload.sweep)?.callsPerTarget ??
    workload.requests_per_target ??
    (workload.rate_per_second && workload.duration_s ? Math.ceil(workload.rate_per_second * workload.duration_s) : null);
  return sql.begin(async (tx) => {
    const inserted = await insertRun(tx, {
      id: runId,
      tenantId: ctx.principal.tenantId,
      suiteId: suite.id,
      triggeredBy: input.triggeredBy ?? 'api',
      baselineRunId: body.baseline_run_id,
      metadata: body.metadata,
      configSnapshot: {
        suite: { id: suite.id, name: suite.name, config: suiteConfig, ...(perRun ? { suite_targets: suite.config.targets } : {}) },
        chain: { id: chain.id, name: chain.name, slug: chain.slug, explorer_url: chain.explorer_url, family: chain.family },
      },
      seed: randomInt(0, 2 ** 31),
      workflowId: workflowIdForRun(runId),
      ...(input.scheduleFireId === undefined ? {} : { scheduleFireId: input.scheduleFireId }),
      branch: body.branch,
      commitSha: body.commit,
      baselineBranch: baselineBranchOf(suite.config.baseline),
      ownEndpoints: (perRun?.ownEndpoints ?? []).map((own) => ({ ...own, timeoutMs: workload.timeout_ms })),
      targets: endpointIds.map((endpointId, index) => ({
        id: randomUUID(),
        endpointId,
        endpointName: names.get(endpointId) ?? 'unknown',
        role: index < suiteConfig.targets.length ? 'primary' : 'reference',
        callsPlanned,
      })),
    });
    if (input.idempotency) await linkIdempotencyResource(tx, input.idempotency, input.idempotency.key, runId);
    return inserted;
  });
}

/**
 * The workload reaches every endpoint of the run over its address of the workload's transport: one
 * without (an endpoint given for this run only has only an http address; a stored one may have
 * lost its ws address since the suite was saved) is refused before the run exists, on the field
 * that named it.
 */
function checkAddresses(
  transport: WorkloadTransport,
  endpointIds: string[],
  endpoints: { id: string; addresses: StoredAddress[] }[],
  candidates: number,
  perRun: boolean,
): void {
  const reachable = new Set(endpoints.filter((e) => addressOf(e, transport) !== undefined).map((e) => e.id));
  const details = endpointIds.flatMap((id, i) => {
    if (reachable.has(id)) return [];
    const field = i >= candidates ? 'suite.config.reference_endpoint_id' : perRun ? `targets.${i}` : `suite.config.targets.${i}.endpoint_id`;
    return [{ field, message: noAddressMessage(transport) }];
  });
  if (details.length > 0) throw validationError(details);
}

/**
 * The run an earlier request with this Idempotency-Key committed before its API process died (the
 * key's lease ran out and this retry took it over): the retry continues with it, so a key never
 * makes two runs. Same key and same request hash, so the same suite and body.
 */
async function runOfDeadRequest(ctx: Ctx, input: TriggerInput): Promise<RunRow | undefined> {
  const resourceId = input.idempotency?.resourceId;
  if (!resourceId) return undefined;
  const run = await findRun(ctx.deps.sql, resourceId);
  return run && run.tenant_id === ctx.principal.tenantId && run.test_suite_id === input.suiteId ? run : undefined;
}

/**
 * Commits the run, then starts its workflow. A new run is answered as inserted (queued, nothing
 * probed, nothing retried): it is not read back. A dead request's run is read as it is now, as before.
 */
export async function triggerRun({ ctx, input }: { ctx: Ctx; input: TriggerInput }): Promise<RunResponse> {
  const earlier = await runOfDeadRequest(ctx, input);
  // An earlier run that is no longer queued has its workflow (or has ended): answer with it as it is.
  if (earlier && earlier.status !== 'queued') return getRun({ ctx, input: { runId: earlier.id } });
  const inserted = earlier ? null : await createRunRow({ ctx, input });
  const run = earlier ?? inserted!.run;
  try {
    await startRunWorkflow(ctx.deps, run);
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) {
      // The caller only learns "unavailable"; the operator needs Temporal's reason (no such
      // namespace, nothing listening, TLS, permission…). Workflow args hold ids only, no secrets.
      ctx.log?.error({ runId: run.id, workflowId: run.workflow_id, cause: describeCause(error) }, 'workflow start failed');
      // Without a workflow nothing would ever move the run on: end it now, visibly. (Should the
      // start have reached Temporal after all, its workflow finds the run finished and stops.)
      await failUnscheduledRun(ctx.deps.sql, run, UNSCHEDULED_RUN_REASON);
      throw new AppError('service_unavailable', 'the workflow service is unavailable; the run was not started');
    }
  }
  // Should this fail (or the process die first), the reconciler finds the workflow and marks it.
  await markWorkflowStarted(ctx.deps.sql, run.id);
  return inserted ? presentRun(ctx.deps, inserted.run, inserted.targets, [], 0) : getRun({ ctx, input: { runId: run.id } });
}
