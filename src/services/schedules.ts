import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { z } from 'zod';
import type { Queryable } from '../db/client';
import { PG_UNIQUE_VIOLATION, pgErrorCode } from '../db/pg-errors';
import { hitRateLimit } from '../db/rate-limits';
import { findRun, markWorkflowStarted } from '../db/runs';
import {
  deleteSchedule as deleteScheduleRow,
  findActiveScheduledRun,
  findRunOfFire,
  findSchedule,
  findSchedules,
  setSchedulePaused,
  tryLockScheduleFire,
  upsertSchedule,
  type ScheduleRow,
} from '../db/schedules';
import { findSuite, type SuiteRow } from '../db/suites';
import { findTenant } from '../db/tenants';
import { AppError, conflict, validationError } from '../errors';
import { scheduleFires } from '../metrics/registry';
import {
  deleteSuiteSchedule,
  nextFireTimes,
  triggerSuiteSchedule,
  upsertSuiteSchedule,
} from '../temporal/schedules';
import { assertScope, scheduleActor, type Ctx, type Deps } from './context';
import { loadOwned } from './load-owned';
import { triggerRun, triggerRunInput } from './runs/trigger';
import { startRunWorkflow } from './runs/workflow';

/** The longest interval: a year (Temporal accepts more, but a yearly campaign is a cron job). */
const MAX_INTERVAL_S = 366 * 24 * 60 * 60;

/** Five fields (minute hour day-of-month month day-of-week), or a predefined @hourly, @daily, … */
const CRON = /^(@(yearly|annually|monthly|weekly|daily|hourly)|([0-9A-Za-z*?,/#-]+\s+){4}[0-9A-Za-z*?,/#-]+)$/;

function isTimeZone(value: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: value });
    return true;
  } catch {
    return false;
  }
}

/**
 * A suite's `schedule`: `{cron, timezone}` or `{interval_s}`, plus `paused`; null removes it.
 * The smallest interval is checked against the config by checkScheduleInterval (10 s unless
 * lowered for tests), so this request schema is the same for every deployment.
 */
export const scheduleInput = z
  .union([
    z.strictObject({
      cron: z.string().trim().max(200).regex(CRON, 'must be a cron expression of five fields (minute hour day month weekday) or @hourly, @daily, …'),
      timezone: z.string().max(100).refine(isTimeZone, 'must be an IANA time zone such as Europe/Berlin or UTC').default('UTC'),
      paused: z.boolean().default(false),
    }),
    z.strictObject({
      interval_s: z.number().int().min(1).max(MAX_INTERVAL_S).describe('at least 10 (RVS_SCHEDULE_MIN_INTERVAL_S)'),
      paused: z.boolean().default(false),
    }),
  ])
  .nullable()
  .describe('a Temporal Schedule runs the suite: {cron, timezone} or {interval_s}, plus paused; null removes it');

export type ScheduleInput = z.infer<typeof scheduleInput>;

/** The `schedule` field of a suite resource. */
export interface ScheduleResponse {
  cron?: string;
  timezone?: string;
  interval_s?: number;
  paused: boolean;
  /** The next three fire times Temporal computed; null when Temporal could not be asked. */
  next_fire_times: Date[] | null;
}

function presentSchedule(row: ScheduleRow, next: Date[] | null): ScheduleResponse {
  const spec = row.interval_s !== null ? { interval_s: row.interval_s } : { cron: row.cron!, timezone: row.timezone! };
  return { ...spec, paused: row.paused, next_fire_times: row.paused ? [] : next };
}

/** A read must not fail because Temporal is away: the fire times are then null. */
async function fireTimesOrNull(deps: Pick<Deps, 'temporal'>, suiteId: string): Promise<Date[] | null> {
  try {
    return await nextFireTimes(deps.temporal, suiteId);
  } catch {
    return null;
  }
}

/** The `schedule` field of each suite (null for a suite without one), with its next fire times. */
export async function schedulesOf(deps: Pick<Deps, 'sql' | 'temporal'>, suiteIds: readonly string[]): Promise<Map<string, ScheduleResponse>> {
  const rows = await findSchedules(deps.sql, suiteIds);
  const entries = await Promise.all(
    rows.map(async (row) => [row.suite_id, presentSchedule(row, row.paused ? [] : await fireTimesOrNull(deps, row.suite_id))] as const),
  );
  return new Map(entries);
}

/** The deployment's smallest interval (RVS_SCHEDULE_MIN_INTERVAL_S, 10 s by default). */
export function checkScheduleInterval(deps: Pick<Deps, 'config'>, input: ScheduleInput | undefined): void {
  const min = deps.config.scheduleMinIntervalS;
  if (input && 'interval_s' in input && input.interval_s < min) {
    throw validationError([{ field: 'schedule.interval_s', message: `must be at least ${min}` }]);
  }
}

/**
 * A schedule starts runs on the tenant's behalf, so whatever makes one fire — setting a schedule
 * that is not paused, resuming it, triggering it — needs `runs:write` besides `suites:write`: a
 * key that may not start runs must not start them through a schedule. Pausing or removing one
 * starts nothing and needs `suites:write` alone.
 */
export function assertMayFire(ctx: Pick<Ctx, 'principal'>, input: ScheduleInput | undefined): void {
  if (input && !input.paused) assertScope(ctx, 'runs:write');
}

const temporalUnavailable = () =>
  new AppError('service_unavailable', 'the workflow service is unavailable; the suite schedule was not changed (nothing was saved)');

/** INVALID_ARGUMENT from Temporal (a cron expression our check let through): the caller's mistake. */
function isInvalidArgument(error: unknown): boolean {
  for (let cause: unknown = error; cause; cause = (cause as { cause?: unknown }).cause) {
    if ((cause as { code?: unknown }).code === 3) return true;
  }
  return false;
}

/**
 * Writes the suite's schedule in the caller's transaction and reconciles its Temporal Schedule
 * before that transaction commits: if Temporal cannot be reached, the error (503) rolls the whole
 * suite change back, so Postgres never holds a schedule Temporal does not know of. (A commit that
 * fails after Temporal was changed leaves a schedule that reconciles itself at its next fire.)
 */
export async function applySchedule(
  deps: Pick<Deps, 'temporal' | 'config'>,
  tx: Queryable,
  suite: Pick<SuiteRow, 'id' | 'tenant_id' | 'name'>,
  input: ScheduleInput | undefined,
  log?: Ctx['log'],
): Promise<ScheduleRow | null | undefined> {
  if (input === undefined) {
    // Not given: the schedule stays; a renamed suite gets its new name in the Temporal note.
    const row = await findSchedule(tx, suite.id);
    if (row) await reconcile(deps, suite, row, log);
    return row;
  }
  if (input === null) {
    const had = await deleteScheduleRow(tx, suite.id);
    if (had) await removeFromTemporal(deps, suite.id, log);
    return null;
  }
  const spec = 'interval_s' in input ? { interval_s: input.interval_s } : { cron: input.cron, timezone: input.timezone };
  const row = await upsertSchedule(tx, { suiteId: suite.id, tenantId: suite.tenant_id, spec, paused: input.paused });
  await reconcile(deps, suite, row, log);
  return row;
}

async function reconcile(
  deps: Pick<Deps, 'temporal' | 'config'>,
  suite: Pick<SuiteRow, 'id' | 'tenant_id' | 'name'>,
  row: ScheduleRow,
  log?: Ctx['log'],
): Promise<void> {
  try {
    await upsertSuiteSchedule(deps.temporal, {
      suiteId: suite.id,
      suiteName: suite.name,
      tenantId: suite.tenant_id,
      taskQueue: deps.config.temporal.taskQueue,
      schedule: row,
    });
  } catch (error) {
    if (isInvalidArgument(error)) {
      throw validationError([{ field: 'schedule', message: 'Temporal does not accept this schedule (check the cron expression)' }]);
    }
    log?.error({ suiteId: suite.id, cause: error instanceof Error ? error.message : String(error) }, 'schedule reconcile failed');
    throw temporalUnavailable();
  }
}

async function removeFromTemporal(deps: Pick<Deps, 'temporal'>, suiteId: string, log?: Ctx['log']): Promise<void> {
  try {
    await deleteSuiteSchedule(deps.temporal, suiteId);
  } catch (error) {
    log?.error({ suiteId, cause: error instanceof Error ? error.message : String(error) }, 'schedule delete failed');
    throw temporalUnavailable();
  }
}

/** For a suite delete, in its transaction: the schedule row goes with the suite, the Temporal Schedule first. */
export async function removeSchedule(deps: Pick<Deps, 'temporal'>, tx: Queryable, suiteId: string, log?: Ctx['log']): Promise<void> {
  if (await deleteScheduleRow(tx, suiteId)) await removeFromTemporal(deps, suiteId, log);
}

async function loadScheduledSuite(ctx: Ctx, suiteId: string): Promise<{ suite: SuiteRow; schedule: ScheduleRow }> {
  const suite = await loadOwned(ctx, 'suite', findSuite, suiteId);
  const schedule = await findSchedule(ctx.deps.sql, suiteId);
  if (!schedule) throw conflict('the suite has no schedule; set one with PATCH /v1/suites/:suiteId {"schedule": …}');
  return { suite, schedule };
}

/** POST /v1/suites/:suiteId/schedule/pause and …/resume: the stored state first, Temporal in the same transaction. */
export async function setPaused({ ctx, input }: { ctx: Ctx; input: { suiteId: string; paused: boolean } }): Promise<ScheduleResponse> {
  if (!input.paused) assertScope(ctx, 'runs:write');
  const { suite } = await loadScheduledSuite(ctx, input.suiteId);
  const row = await ctx.deps.sql.begin(async (tx) => {
    const updated = await setSchedulePaused(tx, suite.id, input.paused);
    if (!updated) throw conflict('the suite has no schedule');
    await reconcile(ctx.deps, suite, updated, ctx.log);
    return updated;
  });
  return presentSchedule(row, row.paused ? [] : await fireTimesOrNull(ctx.deps, suite.id));
}

/**
 * POST /v1/suites/:suiteId/schedule/trigger: one fire now, through the same path as every fire.
 * A paused schedule's fire would only be skipped, so it is refused (409) rather than reported as
 * triggered.
 */
export async function triggerNow({ ctx, input }: { ctx: Ctx; input: { suiteId: string } }): Promise<{ triggered: true }> {
  assertScope(ctx, 'runs:write');
  const { suite, schedule } = await loadScheduledSuite(ctx, input.suiteId);
  if (schedule.paused) throw conflict('the schedule is paused, and a paused schedule starts no run; resume it first (POST /v1/suites/:suiteId/schedule/resume)');
  try {
    await triggerSuiteSchedule(ctx.deps.temporal, suite.id);
  } catch (error) {
    // The stored schedule is the truth: a Temporal Schedule that went missing is recreated.
    try {
      await reconcile(ctx.deps, suite, schedule, ctx.log);
      await triggerSuiteSchedule(ctx.deps.temporal, suite.id);
    } catch {
      ctx.log?.error({ suiteId: suite.id, cause: error instanceof Error ? error.message : String(error) }, 'schedule trigger failed');
      throw new AppError('service_unavailable', 'the workflow service is unavailable; the schedule was not triggered');
    }
  }
  return { triggered: true };
}

export type ScheduledTriggerOutcome = { outcome: 'started'; runId: string } | { outcome: 'skipped'; reason: string };

/**
 * Fires of this process that hold a pooled connection for their fire lock at once. A fire holds
 * one while its trigger queries on others, so with as many holders as the pool has connections
 * (10; the worker runs up to 20 activities) every trigger would wait for a connection for good.
 */
const MAX_LOCKED_FIRES = 4;
let lockedFires = 0;
const waitingFires: (() => void)[] = [];

async function withFireSlot<T>(fn: () => Promise<T>): Promise<T> {
  if (lockedFires < MAX_LOCKED_FIRES) lockedFires++;
  else await new Promise<void>((resolve) => waitingFires.push(resolve));
  try {
    return await fn();
  } finally {
    // The slot passes straight to the next waiter, so a new fire cannot overtake it.
    const next = waitingFires.shift();
    if (next) next();
    else lockedFires--;
  }
}

/** A fire's run that its trigger committed but may not have started (it died in between): started now. */
async function runOfEarlierAttempt(deps: Deps, run: { id: string; status: string }): Promise<ScheduledTriggerOutcome> {
  if (run.status === 'queued') {
    const row = await findRun(deps.sql, run.id);
    try {
      if (row) await startRunWorkflow(deps, row);
    } catch (error) {
      if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
    }
    if (row) await markWorkflowStarted(deps.sql, row.id);
  }
  return { outcome: 'started', runId: run.id };
}

/**
 * One fire of a suite's schedule (the scheduled trigger workflow's activity). `fireId` names the
 * fire (the fire workflow's id, which carries its fire time) and is stored on the run it starts,
 * unique per suite: an attempt retried after its worker died answers with the run the first
 * attempt started, never a second run.
 *
 * The suite in Postgres decides: no suite or no schedule → the orphaned Temporal Schedule is
 * deleted; paused → the Temporal Schedule is paused too. A fire of a disabled tenant's suite is
 * skipped (the Temporal Schedule stays: re-enabling the tenant resumes it as it was). A fire while
 * the previous scheduled run is unfinished is skipped (overlap policy skip), and so is one past the
 * tenant's schedule quota (`schedule-fires:tenant:<id>`, RVS_SCHEDULE_FIRE_LIMIT_PER_MINUTE) —
 * a quota of its own, so schedules never use up the trigger quota CI keys count in. Otherwise the
 * run is triggered by the service verb POST /v1/suites/:id/runs uses, with triggered_by "schedule".
 *
 * The overlap check and the run it lets through are atomic: both happen under the suite's fire
 * lock, held until the run's row is committed (triggerRun writes it on its own connection), so of
 * two fires landing together (a manual trigger and a scheduled one) the second is skipped.
 */
export async function fireSchedule(deps: Deps, input: { suiteId: string; fireId: string }): Promise<ScheduledTriggerOutcome> {
  const skipped = (reason: string): ScheduledTriggerOutcome => {
    scheduleFires.inc({ outcome: 'skipped' });
    return { outcome: 'skipped', reason };
  };
  // Before anything else: a retried attempt of a fire that already started its run reports that run.
  const earlier = await findRunOfFire(deps.sql, input.suiteId, input.fireId);
  if (earlier) return runOfEarlierAttempt(deps, earlier);
  const suite = await findSuite(deps.sql, input.suiteId);
  const schedule = suite ? await findSchedule(deps.sql, input.suiteId) : undefined;
  if (!suite || !schedule) {
    await deleteSuiteSchedule(deps.temporal, input.suiteId);
    return skipped(suite ? 'the suite has no schedule any more' : 'the suite was deleted');
  }
  if (schedule.paused) {
    await upsertSuiteSchedule(deps.temporal, {
      suiteId: suite.id,
      suiteName: suite.name,
      tenantId: suite.tenant_id,
      taskQueue: deps.config.temporal.taskQueue,
      schedule,
    });
    return skipped('the schedule is paused');
  }
  const tenant = await findTenant(deps.sql, suite.tenant_id);
  if (!tenant || tenant.disabled_at !== null) return skipped('the tenant is disabled');
  return withFireSlot(() =>
    deps.sql.begin(async (tx): Promise<ScheduledTriggerOutcome> => {
      if (!(await tryLockScheduleFire(tx, suite.id))) return skipped('another fire of this schedule is in progress');
      // An earlier attempt of this fire may have committed its run since the check above.
      const mine = await findRunOfFire(tx, suite.id, input.fireId);
      if (mine) return runOfEarlierAttempt(deps, mine);
      const active = await findActiveScheduledRun(tx, suite.id);
      if (active) return skipped(`the previous scheduled run ${active.id} has not finished`);
      const { count } = await hitRateLimit(deps.sql, `schedule-fires:tenant:${suite.tenant_id}`);
      if (count > deps.config.rateLimits.tenantScheduleFiresPerMinute) return skipped('rate limit exceeded for schedule fires of this tenant');
      const ctx: Ctx = {
        // The schedule acts for the suite's tenant, as itself (not as an API key).
        principal: scheduleActor(suite),
        deps,
      };
      try {
        const run = await triggerRun({
          ctx,
          input: { suiteId: suite.id, body: triggerRunInput.parse({}), triggeredBy: 'schedule', scheduleFireId: input.fireId },
        });
        scheduleFires.inc({ outcome: 'started' });
        return { outcome: 'started', runId: run.id };
      } catch (error) {
        // The unique (suite, fire) index: another attempt of this fire committed its run first.
        if (pgErrorCode(error) !== PG_UNIQUE_VIOLATION) throw error;
        const winner = await findRunOfFire(deps.sql, suite.id, input.fireId);
        if (!winner) throw error;
        return runOfEarlierAttempt(deps, winner);
      }
    }),
  );
}
