/**
 * The run model's closed vocabularies, shared by every layer: database rows, services, activities,
 * workflows and the API's schemas take them from here (STYLE rule 5: shared types live in domain).
 */

export const RUN_STATUSES = ['queued', 'claimed', 'running', 'success', 'failed', 'cancelled'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];
/** A run in one of these has its verdict and never changes again. */
export const TERMINAL_RUN_STATUSES: readonly RunStatus[] = ['success', 'failed', 'cancelled'];

/** Who requested a run: an API call, or its suite's schedule firing. */
export const RUN_TRIGGERS = ['api', 'schedule'] as const;
export type RunTrigger = (typeof RUN_TRIGGERS)[number];

export const TARGET_STATUSES = ['pending', 'running', 'success', 'failed', 'cancelled'] as const;
export type TargetStatus = (typeof TARGET_STATUSES)[number];

/** `primary`: a candidate endpoint; `reference`: the trusted endpoint it is compared with. */
export const TARGET_ROLES = ['primary', 'reference'] as const;
export type TargetRole = (typeof TARGET_ROLES)[number];

/** `inconclusive`: the run could not tell (an interval straddles the limit); it fails the verdict only with fail_on_inconclusive. */
export const CHECK_STATUSES = ['pass', 'fail', 'inconclusive'] as const;
export type CheckStatus = (typeof CHECK_STATUSES)[number];
