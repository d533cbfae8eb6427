import { availability } from './availability';
import { capacity } from './capacity';
import { correctness } from './correctness';
import { freshnessVsReference } from './freshness-vs-reference';
import { integrity } from './integrity';
import { latencyP95 } from './latency-p95';
import { latencyVsBaseline } from './latency-vs-baseline';
import { latencyVsReference } from './latency-vs-reference';

/**
 * Every check of the verdict, in the order the verdict lists them. A new check is a module
 * exporting a CheckModule (check-module.ts: its judgement and presentation) and one line here,
 * plus its input loader on the service side (src/services/check-inputs/); its name and details
 * join the Check union below on their own.
 */
export const CHECKS = [latencyP95, latencyVsReference, correctness, latencyVsBaseline, availability, freshnessVsReference, capacity, integrity] as const;

/** A judged check: a union keyed by `name`, so each check's `details` has its own type. */
export type Check = NonNullable<ReturnType<(typeof CHECKS)[number]['judge']>>['check'];

export type CheckName = Check['name'];
