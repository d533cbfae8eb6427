import { hostname } from 'node:os';
import { ApplicationFailure, Context } from '@temporalio/activity';
import type { Sql } from '../src/db/client';
import { releaseProbeLease, renewProbeLease, takeProbeLease } from '../src/db/tenant-probe-cap';
import { tenantProbeCapWaits } from '../src/metrics/pacer-metrics';
import { pacingRoleOf } from '../src/domain/run-priority';
import type { CampaignPacer, PaceGate } from '../src/probe/campaign-pacer';
import { endAttemptWaiting } from './retry-recording';

/** Probe activities one tenant may have in flight at once when its row sets no cap (RVS_TENANT_MAX_PROBE_ACTIVITIES). */
export const DEFAULT_TENANT_MAX_PROBE_ACTIVITIES = 10;
/** Error type of an attempt that found its tenant at its cap: retried at a constant pace, never the endpoint's failure. */
export const TENANT_PROBE_CAP = 'TenantProbeCap';
const OVER_CAP_RECHECK = '2 seconds';
const RENEW_EVERY_MS = 10_000;
/** An interactive probe waits at most this long for the campaigns' calls in flight to settle before it probes. */
const CAMPAIGNS_SETTLE_MAX_MS = 2_000;
const WORKER = `${hostname()}:${process.pid}`;

export interface ProbeAdmissionDeps {
  sql: Sql;
  /** Cap when tenants.max_probe_activities is null. */
  tenantMaxProbeActivities?: number;
  /** The worker's campaign pacing; absent: none (campaigns run at their concurrency). */
  pacer?: CampaignPacer;
}

/**
 * Admits one probe activity attempt (a probe chunk or a sweep step) before its body runs (DESIGN
 * §17). First the tenant's cap on probe activities in flight over every worker: over it, the
 * attempt gives its worker slot back and Temporal asks again every OVER_CAP_RECHECK — the run
 * waits, it never fails, and the waits are no retries of the endpoint (endAttemptWaiting). Then
 * the worker's campaign pacing: a campaign's closed loop gets the gate it paces its calls by; an
 * interactive run's probing makes the campaigns on this worker yield until it ends. The body gets
 * the gate (undefined for others).
 */
export async function withProbeAdmission<T>(deps: ProbeAdmissionDeps, input: { runId: string }, body: (pace: PaceGate | undefined) => Promise<T>): Promise<T> {
  const { info } = Context.current();
  const leaseKey = `${info.workflowExecution?.workflowId}/${info.workflowExecution?.runId}/${info.activityId}`;
  // Our database away: admitted without a lease, and the body's first query meets the outage,
  // which withRetryRecording records as ours (an attempt failed here would count as lost).
  const lease = await takeProbeLease(deps.sql, { runId: input.runId, leaseKey, worker: WORKER }, deps.tenantMaxProbeActivities ?? DEFAULT_TENANT_MAX_PROBE_ACTIVITIES).catch(
    () => ({ taken: true, tenantId: null }),
  );
  if (!lease.taken) {
    tenantProbeCapWaits.inc();
    endAttemptWaiting(
      ApplicationFailure.create({
        message: 'the tenant has its cap of probe activities in flight; this one waits',
        type: TENANT_PROBE_CAP,
        nextRetryDelay: OVER_CAP_RECHECK,
      }),
    );
  }
  const tenantId = lease.tenantId;
  // A renewal that fails (our database briefly away) is retried at the next tick; the lease outlives a few.
  const renewal = tenantId === null ? null : setInterval(() => void renewProbeLease(deps.sql, tenantId, leaseKey).catch(() => undefined), RENEW_EVERY_MS);
  const role = pacingRoleOf(info.priority?.priorityKey);
  const probe = deps.pacer?.enter(role);
  try {
    if (role === 'interactive') await deps.pacer?.campaignsSettled(CAMPAIGNS_SETTLE_MAX_MS);
    return await body(probe?.pace);
  } finally {
    probe?.leave();
    if (renewal) clearInterval(renewal);
    // A lease left behind (our database away right now) runs out at its expiry.
    if (tenantId !== null) await releaseProbeLease(deps.sql, tenantId, leaseKey).catch(() => undefined);
  }
}

/**
 * Runs a bookkeeping activity of a run (claim, plan, the steps after probing, finalize); one of an
 * interactive or scheduled run makes the worker's campaigns yield while it runs (CampaignPacer),
 * so a small run's whole path, not only its probing, finds the worker quiet. An attempt that
 * throws (a claim over its tenant's run cap, asked again every 2 s) lets them resume at once.
 */
export async function withInteractiveYield<T>(deps: Pick<ProbeAdmissionDeps, 'pacer'>, body: () => Promise<T>): Promise<T> {
  // No pacing, nothing to look up (tests call these activities outside an activity context too).
  if (!deps.pacer) return body();
  const role = pacingRoleOf(Context.current().info.priority?.priorityKey);
  const entered = role === 'interactive' ? deps.pacer.enter(role) : undefined;
  try {
    const result = await body();
    entered?.leave('done');
    return result;
  } catch (error) {
    entered?.leave('failed');
    throw error;
  }
}
