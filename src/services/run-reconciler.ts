import { WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError } from '@temporalio/client';
import { setTimeout as sleep } from 'node:timers/promises';
import type { BaseLogger } from 'pino';
import { findUnstartedQueuedRuns, markWorkflowStarted, type RunRow } from '../db/runs';
import type { Deps } from './context';
import { describeCause, failUnscheduledRun, startRunWorkflow, UNSCHEDULED_RUN_REASON } from './runs/workflow';

/*
 * A run trigger commits the run row, then starts its workflow. An API process killed between the
 * two leaves a `queued` run that no workflow will ever claim. Every API process sweeps for such
 * orphans: a run still queued `graceMs` after it was requested (the Idempotency-Key lease, longer
 * than any request may take, so its trigger has either started the workflow or died) whose
 * workflow does not exist gets it started now; one that cannot be started any more is failed
 * with a reason. A run never gets two workflows: the workflow id is the run's and is never reused
 * (REJECT_DUPLICATE), so of two starters one gets "already started" and treats it as done.
 */

// First key of the two-key advisory lock that makes one API replica sweep at a time (the
// migration lock uses the one-key form; the finalize locks use another class).
export const RECONCILE_LOCK_CLASS = 0x4f5250; // "ORP"
/** How long stopping waits for a sweep in progress. */
const STOP_WAIT_MS = 1_000;
/** Orphans looked at per sweep; the next sweep takes the rest. */
const SWEEP_BATCH = 20;
/** Per Temporal call: a sweep holds a database connection and must not wait on an unreachable server. */
const TEMPORAL_CALL_DEADLINE_MS = 5_000;
/**
 * An orphan older than this is failed instead of started: its client has long given up on that
 * request (and may well have triggered again), so probing now would only surprise.
 */
export const ORPHAN_MAX_AGE_MS = 10 * 60_000;

export const ORPHAN_TOO_OLD_REASON =
  'the run could not be scheduled: its workflow was never started (the API stopped while triggering it) and it is too old to start now';

export interface ReconcilerDeps {
  sql: Deps['sql'];
  temporal: Deps['temporal'];
  config: Deps['config'];
  log: Pick<BaseLogger, 'info' | 'warn' | 'error'>;
}

export interface ReconcileOptions {
  /** A queued run younger than this is left alone: its trigger may still be starting it. */
  graceMs: number;
  /** A queued run without a workflow older than this is failed rather than started. */
  giveUpMs: number;
}

export interface SweepReport {
  /** False when another replica held the sweep lock: this one did nothing. */
  swept: boolean;
  started: string[];
  /** Started meanwhile by someone else (a trigger that was slow, not dead, or another sweeper). */
  alreadyStarted: string[];
  failed: string[];
  /** Left for the next sweep (Temporal unreachable). */
  deferred: string[];
}

type Outcome = 'started' | 'alreadyStarted' | 'failed' | 'deferred' | 'hasWorkflow';

async function reconcileRun(deps: ReconcilerDeps, run: RunRow & { age_ms: number }, options: ReconcileOptions): Promise<Outcome> {
  const { temporal, sql, log } = deps;
  const deadline = () => Date.now() + TEMPORAL_CALL_DEADLINE_MS;
  const tooOld = run.age_ms > options.giveUpMs;
  let workflowStatus: string | null;
  try {
    const description = await temporal.withDeadline(deadline(), () => temporal.workflow.getHandle(run.workflow_id).describe());
    workflowStatus = description.status.name;
  } catch (error) {
    if (!(error instanceof WorkflowNotFoundError)) return unreachable(deps, run, tooOld, error);
    workflowStatus = null;
  }
  if (workflowStatus === 'RUNNING') {
    // Its trigger started it but died before marking it (or it waits for a worker): not an orphan.
    await markWorkflowStarted(sql, run.id);
    return 'hasWorkflow';
  }
  if (workflowStatus !== null) {
    // Its workflow ended without claiming it (terminated by an operator, say): it will never run,
    // and its workflow id must not be used again.
    const reason = `the run's workflow ended (${workflowStatus.toLowerCase()}) before it started the run`;
    if (!(await failUnscheduledRun(sql, run, reason))) return 'hasWorkflow';
    log.warn({ runId: run.id, workflowStatus }, 'orphan run failed: its workflow ended');
    return 'failed';
  }
  if (tooOld) {
    if (!(await failUnscheduledRun(sql, run, ORPHAN_TOO_OLD_REASON))) return 'hasWorkflow';
    log.warn({ runId: run.id, ageMs: run.age_ms }, 'orphan run failed: too old to start');
    return 'failed';
  }
  try {
    await temporal.withDeadline(deadline(), () => startRunWorkflow(deps, run));
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) return unreachable(deps, run, tooOld, error);
    await markWorkflowStarted(sql, run.id);
    return 'alreadyStarted';
  }
  await markWorkflowStarted(sql, run.id);
  log.info({ runId: run.id, workflowId: run.workflow_id, ageMs: run.age_ms }, 'orphan run: workflow started');
  return 'started';
}

/** Temporal did not answer: try again next sweep, unless the run has waited too long already. */
async function unreachable(deps: ReconcilerDeps, run: RunRow, tooOld: boolean, error: unknown): Promise<Outcome> {
  if (tooOld && (await failUnscheduledRun(deps.sql, run, UNSCHEDULED_RUN_REASON))) {
    deps.log.warn({ runId: run.id, cause: describeCause(error) }, 'orphan run failed: workflow service unavailable');
    return 'failed';
  }
  deps.log.warn({ runId: run.id, cause: describeCause(error) }, 'orphan run: workflow service unavailable; retrying at the next sweep');
  return 'deferred';
}

/**
 * One sweep. Several API replicas sweep on their own timers; a transaction-scoped advisory lock
 * lets one of them work at a time and the others skip (they would only race for the same runs).
 */
export async function reconcileOrphanRuns(deps: ReconcilerDeps, options: ReconcileOptions): Promise<SweepReport> {
  const report: SweepReport = { swept: false, started: [], alreadyStarted: [], failed: [], deferred: [] };
  await deps.sql.begin(async (tx) => {
    const [lock] = await tx<{ locked: boolean }[]>`select pg_try_advisory_xact_lock(${RECONCILE_LOCK_CLASS}, 0) as locked`;
    if (!lock!.locked) return;
    report.swept = true;
    for (const run of await findUnstartedQueuedRuns(tx, options.graceMs, SWEEP_BATCH)) {
      const outcome = await reconcileRun(deps, run, options);
      if (outcome !== 'hasWorkflow') report[outcome].push(run.id);
      // Temporal is down: the other orphans would only wait for the same deadline.
      if (outcome === 'deferred') break;
    }
  });
  return report;
}

export interface RunReconciler {
  stop(): Promise<void>;
}

/**
 * Sweeps every `intervalMs` (with jitter, so replicas started together do not all wake at once)
 * until stopped. A failed sweep (database down) is logged and the next one tries again.
 */
export function startRunReconciler(deps: ReconcilerDeps, options: ReconcileOptions & { intervalMs: number }): RunReconciler {
  let timer: NodeJS.Timeout | undefined;
  let current: Promise<unknown> = Promise.resolve();
  let stopped = false;
  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(() => {
      current = reconcileOrphanRuns(deps, options)
        .catch((error: unknown) => deps.log.warn({ cause: describeCause(error) }, 'orphan-run sweep failed'))
        .finally(schedule);
    }, options.intervalMs * (0.75 + Math.random() / 2));
    // Never what keeps a process alive.
    timer.unref();
  };
  schedule();
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      // A sweep in progress gets a moment to finish; one stuck on an unreachable database must not
      // hold up the shutdown (ending the pool ends it, and its transaction rolls back).
      await Promise.race([current, sleep(STOP_WAIT_MS, undefined, { ref: false })]);
    },
  };
}
