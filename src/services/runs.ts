import { randomInt, randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError } from '@temporalio/client';
import { z } from 'zod';
import { findChain } from '../db/chains';
import { findEndpoints, type NewEndpoint } from '../db/endpoints';
import {
  findRetryHistory,
  findRun,
  findRetriesOfRuns,
  findRunTargets,
  findTargetsOfRuns,
  insertRun,
  markWorkflowStarted,
  listRuns as listRunRows,
  type RetryRow,
  type RunListRow,
  type RunRow,
  type RunTargetRow,
} from '../db/runs';
import type { Sql } from '../db/client';
import { linkIdempotencyResource, type IdempotencyReservation } from '../db/idempotency';
import { countRunSamples, countSamplesOfRuns } from '../db/samples';
import { findSuite } from '../db/suites';
import { RUN_STATUSES, TERMINAL_RUN_STATUSES } from '../domain/run-model';
import { emptyStats } from '../domain/stats';
import { baselineBranchOf, branchName, commitId, DEFAULT_BASELINE_BRANCH } from '../domain/branch';
import { redactUrl } from '../domain/redact-url';
import { boundedJsonDepth, thresholdOverridesSchema, WORKLOAD_LIMITS, type SuiteConfig } from '../domain/suite-config';
import type { ComputedVerdict } from '../domain/verdict';
import { AppError, notFound, validationError, type ErrorDetail } from '../errors';
import { SEARCH_ATTRIBUTE_KEYS, workflowIdForRun } from '../temporal/constants';
import { runWorkflow } from '../../workflows/run-workflow';
import { page, paginationQuery, type Page } from './pagination';
import { assertSameTenant, type Ctx, type Deps } from './context';
import { DASHBOARD_TOKEN_TTL_MS, signDashboardToken } from './dashboard-token';
import { adapterForChain } from './chain-support';
import { endpointFields } from './endpoints';
import { finalizeQueuedRun, finalizeRun } from './finalize-run';

/** DESIGN §6: a CI attaches build facts, not payloads; every run read (lists too) carries it. */
export const MAX_RUN_METADATA_BYTES = 16 * 1024;

/**
 * One target of a run that replaces the suite's candidates: an endpoint of the tenant by id, or an
 * endpoint given for this run only (a preview deployment), validated and guarded exactly as
 * POST /v1/endpoints validates one. One flat object rather than a union, so a bad URL is reported
 * on `targets.N.url` and not as "matches no option".
 */
export const runTargetInput = z
  .strictObject({
    endpoint_id: z.uuid().optional(),
    url: endpointFields.url.optional(),
    name: endpointFields.name.optional(),
    headers: endpointFields.headers.optional(),
  })
  .superRefine((target, ctx) => {
    if ((target.endpoint_id === undefined) === (target.url === undefined)) {
      ctx.addIssue({ code: 'custom', path: [], message: 'give either endpoint_id (an endpoint of yours) or url (an endpoint for this run only)' });
      return;
    }
    for (const field of ['name', 'headers'] as const) {
      if (target.endpoint_id !== undefined && target[field] !== undefined) {
        ctx.addIssue({ code: 'custom', path: [field], message: 'only with url: an endpoint_id target keeps its endpoint\'s own' });
      }
    }
  });

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
});

/** A run as lists show it: everything but the suite config it ran with (see presentRun). */
function presentRunSummary(run: RunListRow, targets: RunTargetRow[], retries: RetryRow[], callsDone: number) {
  const snapshot = run.config_snapshot;
  return {
    id: run.id,
    test_suite_id: run.test_suite_id,
    triggered_by: run.triggered_by,
    status: run.status,
    requested_at: run.requested_at,
    claimed_at: run.claimed_at,
    started_at: run.started_at,
    finished_at: run.finished_at,
    retry_count: retries.length,
    failure_reason: run.failure_reason,
    baseline_run_id: run.baseline_run_id,
    acknowledged_count: run.acknowledged_count,
    metadata: run.metadata,
    stats: run.stats ?? emptyStats(),
    progress: {
      // Null for a duration-bound closed-loop campaign: its call count is not known in advance.
      calls_planned: targets.some((t) => t.calls_planned === null)
        ? null
        : targets.reduce((sum, t) => sum + (t.calls_planned ?? 0), 0),
      calls_done: callsDone,
    },
    workflow_id: run.workflow_id,
    targets: targets.map((t) => ({
      id: t.id,
      endpoint_id: t.endpoint_id,
      endpoint_name: t.endpoint_name,
      role: t.role,
      order_index: t.order_index,
      status: t.status,
      metadata: t.metadata,
      endpoint_url: t.endpoint_url,
      ephemeral: t.ephemeral,
    })),
    retry_history: retries.map((r) => ({
      target_id: r.target_id,
      endpoint_id: r.endpoint_id,
      activity: r.activity,
      chunk: r.chunk_seq,
      attempt: r.attempt,
      error_type: r.error_type,
      message: r.message,
      failed_at: r.failed_at,
      next_attempt_at: r.next_attempt_at,
    })),
    branch: run.branch,
    commit: run.commit_sha,
    baseline_branch: run.baseline_branch ?? DEFAULT_BASELINE_BRANCH,
    suite: { id: snapshot.suite.id, name: snapshot.suite.name },
    chain: {
      id: snapshot.chain.id,
      name: snapshot.chain.name,
      slug: snapshot.chain.slug,
      explorer_url: snapshot.chain.explorer_url,
    },
  };
}

export type RunSummaryResponse = ReturnType<typeof presentRunSummary>;

/** The run resource: the summary plus the suite config the run executes (thresholds overridden). */
function presentRun(run: RunRow, targets: RunTargetRow[], retries: RetryRow[], callsDone: number) {
  const summary = presentRunSummary(run, targets, retries, callsDone);
  const { config } = run.config_snapshot.suite;
  return { ...summary, config_snapshot: config, suite: { ...summary.suite, config } };
}

export type RunResponse = ReturnType<typeof presentRun> & { dashboard_url: string };

async function loadRun(ctx: Ctx, runId: string): Promise<RunRow> {
  const run = await findRun(ctx.deps.sql, runId);
  if (!run) throw notFound('run');
  assertSameTenant(ctx, run);
  return run;
}

const isTerminal = (run: Pick<RunRow, 'status'>) => TERMINAL_RUN_STATUSES.includes(run.status);

/**
 * A finished run's sample count is the sum of its targets' stats; rows are counted only while
 * it runs (clients poll finished runs too, and counting a million rows each time is wasted work).
 */
function finishedCallsDone(targets: RunTargetRow[]): number {
  return targets.reduce(
    (sum, t) => sum + ((t.metadata.stats as { calls?: { total?: number } } | undefined)?.calls?.total ?? 0),
    0,
  );
}

async function present(ctx: Ctx, run: RunRow): Promise<RunResponse> {
  const { sql } = ctx.deps;
  const [targets, retries, counted] = await Promise.all([
    findRunTargets(sql, run.id),
    findRetryHistory(sql, run.id),
    isTerminal(run) ? null : countRunSamples(sql, run.id),
  ]);
  return { ...presentRun(run, targets, retries, counted ?? finishedCallsDone(targets)), dashboard_url: dashboardUrl(ctx.deps, run.id) };
}

/**
 * A read-only link to the run's dashboard page, signed afresh (valid DASHBOARD_TOKEN_TTL_MS): the
 * run resource carries it from the moment the run is triggered, so a CI log can link the live
 * page; the verdict carries one too.
 */
function dashboardUrl(deps: Pick<Deps, 'box' | 'config'>, runId: string): string {
  const token = signDashboardToken(deps.box, runId, new Date(Date.now() + DASHBOARD_TOKEN_TTL_MS));
  return `${deps.config.publicUrl}/dashboard/runs/${runId}?token=${token}`;
}

export const listRunsQuery = paginationQuery.extend({
  suite_id: z.uuid().optional(),
  status: z.enum(RUN_STATUSES).optional(),
});

/**
 * Newest first. Targets and retries of the whole page are read in two queries, not two per run.
 * Items leave out the suite config (config_snapshot and suite.config): a page of 200 runs would
 * otherwise carry up to 200 copies of a 64 KiB config.
 */
export async function listRuns({ ctx, input }: { ctx: Ctx; input: z.infer<typeof listRunsQuery> }): Promise<Page<RunSummaryResponse>> {
  const { sql } = ctx.deps;
  const { rows, total } = await listRunRows(sql, ctx.principal.tenantId, {
    suiteId: input.suite_id ?? null,
    status: input.status ?? null,
    limit: input.limit,
    offset: input.offset,
  });
  const ids = rows.map((r) => r.id);
  const [targets, retries, done] = await Promise.all([
    findTargetsOfRuns(sql, ids),
    findRetriesOfRuns(sql, ids),
    countSamplesOfRuns(
      sql,
      rows.filter((run) => !isTerminal(run)).map((run) => run.id),
    ),
  ]);
  const data = rows.map((run) => {
    const runTargets = targets.filter((t) => t.run_id === run.id);
    const callsDone = isTerminal(run) ? finishedCallsDone(runTargets) : (done.get(run.id) ?? 0);
    return presentRunSummary(run, runTargets, retries.filter((r) => r.run_id === run.id), callsDone);
  });
  return page(data, total, input.limit, input.offset);
}

/** Asks the workflow to stop; probes stop within seconds and the run ends `cancelled`. */
export async function cancelRun({ ctx, input }: { ctx: Ctx; input: { runId: string } }): Promise<RunResponse> {
  const run = await loadRun(ctx, input.runId);
  if (isTerminal(run)) {
    throw new AppError('conflict', `run is already ${run.status}; only a queued or running run can be cancelled`);
  }
  await requestRunCancel(ctx.deps, run);
  return present(ctx, await loadRun(ctx, input.runId));
}

/**
 * The one way a run is cancelled (POST /v1/runs/:id/cancel, disabling its tenant): its workflow is
 * asked to stop, so probes stop within seconds and the run ends `cancelled`.
 */
export async function requestRunCancel(deps: Pick<Deps, 'sql' | 'temporal'>, run: Pick<RunRow, 'id' | 'workflow_id'>): Promise<void> {
  try {
    await deps.temporal.workflow.getHandle(run.workflow_id).cancel();
  } catch (error) {
    if (!(error instanceof WorkflowNotFoundError)) throw error;
    // No workflow behind the run (it could not be scheduled): end it here, the way a workflow would.
    await finalizeRun({ sql: deps.sql }, { runId: run.id, status: 'cancelled', failureReason: 'cancelled by request' });
  }
}

export async function getRun({ ctx, input }: { ctx: Ctx; input: { runId: string } }): Promise<RunResponse> {
  return present(ctx, await loadRun(ctx, input.runId));
}

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
 * The trigger's first step: validates the request and commits the run row (status `queued`),
 * linked to the request's Idempotency-Key in the same transaction.
 * Its workflow is started only after the commit (startRunWorkflow); a process that dies in between
 * leaves a queued run without a workflow, which the run reconciler starts later
 * (services/run-reconciler.ts).
 */
export async function createRunRow({ ctx, input }: { ctx: Ctx; input: TriggerInput }): Promise<RunRow> {
  const { sql } = ctx.deps;
  const suite = await findSuite(sql, input.suiteId);
  if (!suite) throw notFound('suite');
  assertSameTenant(ctx, suite);
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
  };
  const endpointIds = [
    ...suiteConfig.targets.map((t) => t.endpoint_id),
    ...(suiteConfig.reference_endpoint_id ? [suiteConfig.reference_endpoint_id] : []),
  ];
  const names = new Map((await findEndpoints(sql, endpointIds)).map((e) => [e.id, e.name]));
  for (const own of perRun?.ownEndpoints ?? []) names.set(own.id, own.name);
  const runId = randomUUID();
  const { workload } = suiteConfig;
  const callsPlanned =
    workload.requests_per_target ??
    (workload.rate_per_second && workload.duration_s ? Math.ceil(workload.rate_per_second * workload.duration_s) : null);
  await sql.begin(async (tx) => {
    await insertRun(tx, {
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
  });
  return (await findRun(sql, runId))!;
}

type RunTargetInput = z.infer<typeof runTargetInput>;

/**
 * The candidates a trigger's `targets` name: endpoints of the tenant (its own, not another run's,
 * on the suite's chain) by id, and endpoints given for this run only, encrypted and redacted
 * exactly like POST /v1/endpoints stores them — written with the run, owned by it. Nothing is
 * written here; a bad target refuses the whole trigger.
 */
async function resolveRunTargets(
  ctx: Ctx,
  suite: { chain_id: string; config: SuiteConfig },
  targets: RunTargetInput[],
): Promise<{ targets: SuiteConfig['targets']; ownEndpoints: (Omit<NewEndpoint, 'tenantId' | 'timeoutMs'> & { id: string })[] }> {
  const { sql, box } = ctx.deps;
  const byId = targets.flatMap((t, i) => (t.endpoint_id === undefined ? [] : [{ id: t.endpoint_id, field: `targets.${i}.endpoint_id` }]));
  const found = new Map((await findEndpoints(sql, byId.map((t) => t.id))).map((e) => [e.id, e]));
  const details: ErrorDetail[] = [];
  const seen = new Set<string>();
  for (const { id, field } of byId) {
    const endpoint = found.get(id);
    if (!endpoint || endpoint.tenant_id !== ctx.principal.tenantId || endpoint.owner_run_id !== null) {
      details.push({ field, message: 'no such endpoint in your tenant' });
    } else if (endpoint.chain_id !== suite.chain_id) {
      details.push({ field, message: 'endpoint belongs to another chain than the suite' });
    } else if (id === suite.config.reference_endpoint_id) {
      details.push({ field, message: 'the suite\'s reference must not also be a target' });
    } else if (seen.has(id)) {
      details.push({ field, message: 'an endpoint may appear only once' });
    }
    seen.add(id);
  }
  if (details.length > 0) throw validationError(details);
  const ownEndpoints: (Omit<NewEndpoint, 'tenantId' | 'timeoutMs'> & { id: string })[] = [];
  const resolved = targets.map((t) => {
    if (t.endpoint_id !== undefined) return { endpoint_id: t.endpoint_id, role: 'primary' as const };
    const url = t.url!;
    const headers = t.headers ?? {};
    const headerNames = Object.keys(headers);
    const id = randomUUID();
    ownEndpoints.push({
      id,
      chainId: suite.chain_id,
      // The host (and port) is what the redacted URL shows too: never userinfo, path or query.
      name: t.name ?? new URL(url).host,
      protocol: 'json-rpc-http',
      urlRedacted: redactUrl(url),
      urlEncrypted: box.encrypt(url),
      headerNames,
      headersEncrypted: headerNames.length > 0 ? box.encrypt(JSON.stringify(headers)) : null,
    });
    return { endpoint_id: id, role: 'primary' as const };
  });
  return { targets: resolved, ownEndpoints };
}

/**
 * Starts the run's workflow (id `run-<runId>`). REJECT_DUPLICATE: a workflow id is never used
 * twice, even after its workflow closed, so the trigger and the reconciler racing to start the
 * same run (or a reconciler finding a run whose workflow already ended) cannot give it a second
 * workflow; the loser gets WorkflowExecutionAlreadyStartedError, which callers treat as done.
 */
export async function startRunWorkflow(
  deps: Pick<Deps, 'temporal' | 'config'>,
  run: Pick<RunRow, 'id' | 'tenant_id' | 'test_suite_id' | 'workflow_id' | 'config_snapshot'>,
): Promise<void> {
  await deps.temporal.workflow.start(runWorkflow, {
    workflowId: run.workflow_id,
    taskQueue: deps.config.temporal.taskQueue,
    workflowIdReusePolicy: 'REJECT_DUPLICATE',
    args: [{ runId: run.id }],
    memo: { suite_name: run.config_snapshot.suite.name },
    typedSearchAttributes: [
      { key: SEARCH_ATTRIBUTE_KEYS.tenantId, value: run.tenant_id },
      { key: SEARCH_ATTRIBUTE_KEYS.suiteId, value: run.test_suite_id },
      { key: SEARCH_ATTRIBUTE_KEYS.chain, value: run.config_snapshot.chain.slug },
      { key: SEARCH_ATTRIBUTE_KEYS.status, value: 'queued' },
    ],
  });
}

/** Ends a run that never got a workflow, visibly; only while it is still queued (a claimed run is its workflow's). */
export async function failUnscheduledRun(sql: Sql, run: Pick<RunRow, 'id'>, failureReason: string): Promise<boolean> {
  return finalizeQueuedRun(sql, { runId: run.id, status: 'failed', failureReason });
}

export const UNSCHEDULED_RUN_REASON = 'the run could not be scheduled (workflow service unavailable)';

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

export async function triggerRun({ ctx, input }: { ctx: Ctx; input: TriggerInput }): Promise<RunResponse> {
  const earlier = await runOfDeadRequest(ctx, input);
  // An earlier run that is no longer queued has its workflow (or has ended): answer with it as it is.
  if (earlier && earlier.status !== 'queued') return getRun({ ctx, input: { runId: earlier.id } });
  const run = earlier ?? (await createRunRow({ ctx, input }));
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
  return getRun({ ctx, input: { runId: run.id } });
}

interface CauseSummary {
  name: string;
  message: string;
  code?: string | number;
  cause?: CauseSummary;
}

/**
 * Name, message and code of an error and of the errors it wraps (the Temporal client wraps the
 * gRPC error that says what went wrong), at most four levels: what an operator needs and no stack.
 */
export function describeCause(error: unknown): CauseSummary {
  const chain: CauseSummary[] = [];
  for (let at: unknown = error; at !== undefined && at !== null && chain.length < 4; at = (at as { cause?: unknown }).cause) {
    if (!(at instanceof Error)) {
      chain.push({ name: typeof at, message: String(at) });
      break;
    }
    const { code } = at as { code?: unknown };
    chain.push({ name: at.name, message: at.message, ...(typeof code === 'string' || typeof code === 'number' ? { code } : {}) });
  }
  for (let i = chain.length - 2; i >= 0; i--) chain[i]!.cause = chain[i + 1];
  return chain[0]!;
}

export type VerdictResponse = ComputedVerdict & { dashboard_url: string; branch: string | null; commit: string | null; baseline_branch: string };

export const verdictQuery = z.strictObject({
  wait: z
    .string()
    .regex(/^\d+$/, 'must be a whole number of seconds')
    .transform(Number)
    .pipe(z.number().int().min(0).max(60))
    .optional(),
});

const WAIT_POLL_MS = 250;

export async function getVerdict({
  ctx,
  input,
}: {
  ctx: Ctx;
  input: { runId: string; waitSeconds?: number };
}): Promise<VerdictResponse> {
  let run = await loadRun(ctx, input.runId);
  // Long-poll: hold the request until the run is finished or the wait is over.
  const waitUntil = Date.now() + (input.waitSeconds ?? 0) * 1000;
  while (!run.verdict && Date.now() < waitUntil) {
    await sleep(Math.min(WAIT_POLL_MS, waitUntil - Date.now()));
    run = await loadRun(ctx, input.runId);
  }
  if (!isTerminal(run) || !run.verdict) {
    throw new AppError('run_not_finished', `run is ${run.status}; the verdict is available once it has finished`);
  }
  return {
    ...run.verdict,
    dashboard_url: dashboardUrl(ctx.deps, run.id),
    branch: run.branch,
    commit: run.commit_sha,
    baseline_branch: run.baseline_branch ?? baselineBranchOf(run.config_snapshot.suite.config.baseline),
  };
}
