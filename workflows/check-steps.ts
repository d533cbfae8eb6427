import { patched, proxyActivities } from '@temporalio/workflow';
import type { Activities, ClaimRunResult } from '../activities/types';
import type { CheckName } from '../src/domain/verdict';
import { INFRASTRUCTURE_RETRY } from './activity-options';

/** Marks executions that watch heads (config.freshness) beside the probes. */
export const FRESHNESS_WATCH_PATCH = 'freshness-watch';

/** Marks executions that run the integrity step (config.integrity) before finalize. */
export const INTEGRITY_PATCH = 'integrity';

// A head watch lasts its duration_s (at most an hour) and heartbeats every second it writes; a
// lost worker is noticed within the heartbeat timeout and the watch resumes on another.
const watching = proxyActivities<Activities>({
  startToCloseTimeout: '75 minutes',
  heartbeatTimeout: '20 seconds',
  cancellationType: 'WAIT_CANCELLATION_COMPLETED',
  retry: { ...INFRASTRUCTURE_RETRY, nonRetryableErrorTypes: ['OutboundAddressRefused', 'NotFound', 'HeadWatchUnavailable', 'UnsupportedChainFamily'] },
});

/**
 * What a check does in the run workflow before finalize judges it (STYLE rule 18): the run
 * workflow runs every check's steps and names none. Most checks have none: finalize reads what
 * they judge from the samples (src/services/check-inputs/). A change here changes the commands of
 * new executions only behind a patch, as in the run workflow.
 */
export interface CheckSteps {
  /** Started beside the probes, once per run (never again after continue-as-new); null when the run does not need it. */
  besideProbes?: (run: { runId: string; claim: ClaimRunResult }) => Promise<void> | null;
  /**
   * On a run that probed successfully, after the probes and before finalize: asks the endpoints
   * what finalize then judges, through the activities of the run's ending path (cancellable or not).
   */
  beforeFinalize?: (activities: Pick<Activities, 'recheckHeadMoved' | 'explainMismatches' | 'verifyIntegrity'>, runId: string, claim: ClaimRunResult | null) => Promise<void>;
}

/** The checks that have steps, in the order the workflow runs them. */
export const CHECK_STEPS: Readonly<Partial<Record<CheckName, CheckSteps>>> = {
  // The head watch runs beside the probes (the probes wait for it before rolling over).
  freshness_vs_reference: {
    besideProbes: ({ runId, claim }) => (claim.freshnessDurationS && patched(FRESHNESS_WATCH_PATCH) ? watching.watchFreshness({ runId }).then(() => undefined) : null),
  },
  // Re-send head-moved differences at a fixed block, then explain the listed mismatches; both
  // store what they learn and no-op when there is nothing to judge.
  correctness: {
    beforeFinalize: async (activities, runId) => {
      await activities.recheckHeadMoved({ runId });
      await activities.explainMismatches({ runId });
    },
  },
  // Ask each candidate the run's provable calls again and prove the answers: runs whose suite enables it (config.integrity).
  integrity: {
    beforeFinalize: async (activities, runId, claim) => {
      if (claim?.integrity && patched(INTEGRITY_PATCH)) await activities.verifyIntegrity({ runId });
    },
  },
};
