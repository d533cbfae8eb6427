import type { CheckName } from '../../domain/verdict';
import type { CheckInputLoader } from './check-input';
import { sweepInput } from './capacity';
import { correctnessInput } from './correctness';
import { freshnessInput } from './freshness-vs-reference';
import { integrityInput } from './integrity';
import { baselineInput } from './latency-vs-baseline';
import { referenceInput } from './latency-vs-reference';

export type { CheckInput, CheckInputContext, CheckInputLoader } from './check-input';

/**
 * Each check's input loader, by the check's name (src/domain/verdict/checks.ts lists the checks):
 * the compiler makes a new check name its loader here. Null: the check judges only what finalize
 * measures for every verdict (the endpoints' stats, latencies and answered seconds). Finalize runs
 * them in this order, for a successful run.
 */
export const CHECK_INPUTS: { readonly [N in CheckName]: CheckInputLoader | null } = {
  latency_vs_baseline: baselineInput,
  latency_p95: null,
  availability: null,
  latency_vs_reference: referenceInput,
  correctness: correctnessInput,
  freshness_vs_reference: freshnessInput,
  capacity: sweepInput,
  integrity: integrityInput,
};
