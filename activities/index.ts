import { claimRun } from './claim-run';
import { deliverWebhook, enqueueWebhooks, markWebhookDeliveryFailed } from './deliver-webhook';
import { ClientCache } from './client-cache';
import { expireSamples } from './expire-samples';
import { explainRunMismatches } from './explain-mismatches';
import { finalizeRun } from './finalize-run';
import { planRun } from './plan-run';
import { probeChunk } from './probe-chunk';
import { withInteractiveYield, withProbeAdmission } from './probe-admission';
import { judgeSweepStep, probeSweepStep } from './probe-sweep-step';
import { planSweepShards, probeSweepShard } from './probe-sweep-shard';
import { recheckHeadMoved } from './recheck-head-moved';
import { verifyIntegrity } from './verify-integrity';
import { triggerScheduledRun } from './scheduled-trigger';
import { recordVantageUnavailable } from '../src/db/vantage';
import { TenantAttempts } from './tenant-attempts';
import { watchFreshness } from './watch-freshness';
import type { ActivityDeps } from './deps';
import type { Activities } from './types';

export { activityDepsFromConfig, type ActivityDeps } from './deps';
export type { Activities } from './types';

/** Activities are built from their dependencies; workflows import only their interface (./types). */
export function createActivities(deps: ActivityDeps, clients: ClientCache = new ClientCache()): Activities {
  const probeDeps = { ...deps, clients };
  const webhookDeps = { ...deps, tenantAttempts: new TenantAttempts(deps.webhookAttemptsPerTenant) };
  return {
    claimRun: (input) => withInteractiveYield(deps, () => claimRun(deps.sql, input, deps.config?.tenantMaxRunningRuns)),
    planRun: (input) => withInteractiveYield(deps, () => planRun(deps, input)),
    // Admitted by the tenant's probe cap and the worker's campaign pacing first (DESIGN §17).
    probeChunk: (input) => withProbeAdmission(deps, input, (pace) => probeChunk({ ...probeDeps, pace }, input)),
    probeSweepStep: (input) => withProbeAdmission(deps, input, () => probeSweepStep(probeDeps, input)),
    judgeSweepStep: (input) => judgeSweepStep(probeDeps, input),
    planSweepShards: (input) => planSweepShards(probeDeps, input),
    probeSweepShard: (input) => withProbeAdmission(deps, input, () => probeSweepShard(probeDeps, input)),
    watchFreshness: (input) => watchFreshness(deps, input),
    recheckHeadMoved: (input) => withInteractiveYield(deps, () => recheckHeadMoved(deps, input)),
    explainMismatches: (input) => withInteractiveYield(deps, () => explainRunMismatches(deps, input)),
    verifyIntegrity: (input) => withInteractiveYield(deps, () => verifyIntegrity(deps, input)),
    finalizeRun: (input) => withInteractiveYield(deps, () => finalizeRun(deps, input)),
    recordVantageUnavailable: (input) => recordVantageUnavailable(deps.sql, input),
    enqueueWebhooks: (input) => enqueueWebhooks(deps, input),
    deliverWebhook: (input) => deliverWebhook(webhookDeps, input),
    markWebhookDeliveryFailed: (input) => markWebhookDeliveryFailed(deps, input),
    triggerScheduledRun: (input) => triggerScheduledRun(deps, input),
    expireSamples: () => expireSamples(deps),
  };
}
