import { z } from 'zod';

/**
 * The branch a suite's baselines are kept on when its config names none. Runs that name no branch
 * (schedules, triggers from before branches existed, a caller outside CI) count as this branch.
 */
export const DEFAULT_BASELINE_BRANCH = 'main';

/**
 * A branch as CI names it (GITHUB_HEAD_REF, GITHUB_REF_NAME, CI_COMMIT_REF_NAME): bounded, and
 * printable (it is shown on the dashboard and in Markdown), otherwise as given — git allows far more
 * than any rule we could write here.
 */
export const branchName = z
  .string()
  .min(1)
  .max(255)
  .regex(/^[^\s\p{Cc}]+$/u, 'must be a branch name: no spaces or control characters');

/** A commit id: hex, 7 (abbreviated) to 64 (SHA-256) digits; stored lower-case. */
export const commitId = z
  .string()
  .regex(/^[0-9a-fA-F]{7,64}$/, 'must be a commit id: 7 to 64 hex digits')
  .transform((sha) => sha.toLowerCase());

/** The baseline branch of a suite config as stored (configs stored before branches have none). */
export function baselineBranchOf(baseline: { branch?: string | null }): string {
  return baseline.branch ?? DEFAULT_BASELINE_BRANCH;
}

/** Whether a run of `branch` joins (and reads) the baseline of `baselineBranch`. */
export function isBaselineBranch(branch: string | null, baselineBranch: string): boolean {
  return branch === null || branch === baselineBranch;
}
