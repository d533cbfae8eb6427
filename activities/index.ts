import type { Sql } from '../src/db/client';
import type { SecretBox } from '../src/crypto/secret-box';
import { claimRun } from './claim-run';
import { finalizeRun } from './finalize-run';
import { probeTarget } from './probe-target';
import type { FinalizeRunInput, ProbeTargetInput } from './types';

export interface ActivityDeps {
  sql: Sql;
  box: SecretBox;
  allowPrivateTargets: boolean;
}

/** Activities are built from their dependencies; workflows import only the type of this object. */
export function createActivities(deps: ActivityDeps) {
  return {
    claimRun: (input: { runId: string }) => claimRun(deps.sql, input),
    probeTarget: (input: ProbeTargetInput) => probeTarget(deps, input),
    finalizeRun: (input: FinalizeRunInput) => finalizeRun(deps.sql, input),
  };
}

export type Activities = ReturnType<typeof createActivities>;
