import type { SuiteConfig, Workload } from './suite-config';

/**
 * The classes a run's Temporal Priority puts it in (DESIGN §17), first served first. Temporal's
 * priorityKey runs from 1 (first) to 5 by default (the server's `matching.priorityLevels`): a
 * backlogged task of a lower key is dispatched before any of a higher one, on workflow and
 * activity task queues alike (activities inherit their workflow's Priority).
 *
 * - interactive: a small run triggered through the API — a CI gate someone waits on.
 * - scheduled: a small run a suite schedule fired; nobody waits on it, but it is short.
 * - campaign: a long run (duration-bound, or more calls than INTERACTIVE_MAX_CALLS).
 * - sweep: a capacity sweep, which loads the endpoint — and the worker — on purpose.
 */
export const PRIORITY_CLASSES = { interactive: 1, scheduled: 2, campaign: 4, sweep: 5 } as const;

export type PriorityClass = keyof typeof PRIORITY_CLASSES;
export const PRIORITY_CLASS_NAMES = Object.keys(PRIORITY_CLASSES) as [PriorityClass, ...PriorityClass[]];

/** Calls of a whole run (every target) up to which it counts as small: 10 targets × 1,000 calls. */
export const INTERACTIVE_MAX_CALLS = 10_000;

/** Pure: the class of a run, from how it was triggered and the size of its workload. */
export function priorityClassOf(run: {
  triggeredBy: 'api' | 'schedule';
  workload: Pick<Workload, 'sweep' | 'duration_s' | 'requests_per_target'>;
  targets: number;
}): PriorityClass {
  const { workload } = run;
  if (workload.sweep) return 'sweep';
  if (workload.duration_s !== null) return 'campaign';
  if ((workload.requests_per_target ?? 0) * run.targets > INTERACTIVE_MAX_CALLS) return 'campaign';
  return run.triggeredBy === 'schedule' ? 'scheduled' : 'interactive';
}

/**
 * Pure: a run's Temporal Priority. The fairness key is the tenant's id (≤ 64 bytes, Temporal's
 * limit): within one class, dispatch is shared between tenants by weight (default 1 each), so a
 * tenant's backlog delays its own runs, not another tenant's.
 */
export function runPriority(tenantId: string, priorityClass: PriorityClass): { priorityKey: number; fairnessKey: string } {
  return { priorityKey: PRIORITY_CLASSES[priorityClass], fairnessKey: tenantId };
}

/** How a probe activity takes part in the worker's campaign pacing (src/probe/campaign-pacer.ts). */
export type PacingRole = 'campaign' | 'interactive' | 'other';

/**
 * Pure: the pacing role of a probe activity from the priorityKey it inherited from its run.
 * Campaigns and sweeps are paced; interactive and scheduled runs are what they yield to. No key
 * (a server without priority, a run started before it): neither.
 */
export function pacingRoleOf(priorityKey: number | undefined): PacingRole {
  if (priorityKey === undefined) return 'other';
  if (priorityKey >= PRIORITY_CLASSES.campaign) return 'campaign';
  return priorityKey <= PRIORITY_CLASSES.scheduled ? 'interactive' : 'other';
}

/** Pure: the class of a run as requested, from its trigger and its config (the targets it probes and its reference). */
export function priorityClassOfRun(triggeredBy: string, config: Pick<SuiteConfig, 'workload' | 'targets' | 'reference_endpoint_id'>): PriorityClass {
  return priorityClassOf({
    triggeredBy: triggeredBy === 'schedule' ? 'schedule' : 'api',
    workload: config.workload,
    targets: config.targets.length + (config.reference_endpoint_id ? 1 : 0),
  });
}
