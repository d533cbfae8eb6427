import type { Sql } from '../../db/client';
import type { RunRow } from '../../db/runs';
import { priorityClassOfRun, runPriority } from '../../domain/run-priority';
import { SEARCH_ATTRIBUTE_KEYS } from '../../temporal/constants';
import { runWorkflow } from '../../../workflows/run-workflow';
import type { Deps } from '../context';
import { finalizeQueuedRun } from '../finalize-run';

/**
 * Starts the run's workflow (id `run-<runId>`). REJECT_DUPLICATE: a workflow id is never used
 * twice, even after its workflow closed, so the trigger and the reconciler racing to start the
 * same run (or a reconciler finding a run whose workflow already ended) cannot give it a second
 * workflow; the loser gets WorkflowExecutionAlreadyStartedError, which callers treat as done.
 */
export async function startRunWorkflow(
  deps: Pick<Deps, 'temporal' | 'config'>,
  run: Pick<RunRow, 'id' | 'tenant_id' | 'test_suite_id' | 'workflow_id' | 'config_snapshot' | 'triggered_by' | 'priority_class'>,
): Promise<void> {
  const { config } = run.config_snapshot.suite;
  const vantagePoints = config.vantage_points;
  // The run's class (as stored when it was requested; derived for runs stored before) and its
  // tenant's fairness key (DESIGN §17); its activities inherit them.
  const priorityClass = run.priority_class ?? priorityClassOfRun(run.triggered_by, config);
  await deps.temporal.workflow.start(runWorkflow, {
    workflowId: run.workflow_id,
    taskQueue: deps.config.temporal.taskQueue,
    workflowIdReusePolicy: 'REJECT_DUPLICATE',
    args: [{ runId: run.id }],
    memo: { suite_name: run.config_snapshot.suite.name, priority_class: priorityClass },
    priority: runPriority(run.tenant_id, priorityClass),
    typedSearchAttributes: [
      { key: SEARCH_ATTRIBUTE_KEYS.tenantId, value: run.tenant_id },
      { key: SEARCH_ATTRIBUTE_KEYS.suiteId, value: run.test_suite_id },
      { key: SEARCH_ATTRIBUTE_KEYS.chain, value: run.config_snapshot.chain.slug },
      { key: SEARCH_ATTRIBUTE_KEYS.status, value: 'queued' },
      // The Temporal UI filters runs by region (RvsRegions = 'eu-west'); runs without vantage_points set none.
      ...(vantagePoints ? [{ key: SEARCH_ATTRIBUTE_KEYS.regions, value: vantagePoints }] : []),
    ],
  });
}

/** Ends a run that never got a workflow, visibly; only while it is still queued (a claimed run is its workflow's). */
export async function failUnscheduledRun(sql: Sql, run: Pick<RunRow, 'id'>, failureReason: string): Promise<boolean> {
  return finalizeQueuedRun(sql, { runId: run.id, status: 'failed', failureReason });
}

export const UNSCHEDULED_RUN_REASON = 'the run could not be scheduled (workflow service unavailable)';

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
