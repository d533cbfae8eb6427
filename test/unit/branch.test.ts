import { describe, expect, it } from 'vitest';
import { baselineBranchOf, branchName, commitId, isBaselineBranch } from '../../src/domain/branch';

describe('branches and commits of a run', () => {
  it.each([
    ['main', true],
    ['feature/x-1', true],
    ['dependabot/npm_and_yarn/undici-6.21.1', true],
    ['ünïcode', true],
    ['', false],
    ['a b', false],
    ['tab\there', false],
    ['x'.repeat(255), true],
    ['x'.repeat(256), false],
  ])('branch %j valid: %s', (branch, ok) => {
    expect(branchName.safeParse(branch).success).toBe(ok);
  });

  it('takes a commit id of 7 to 64 hex digits and stores it lower-case', () => {
    expect(commitId.parse('ABCDEF0')).toBe('abcdef0');
    expect(commitId.parse('a'.repeat(40))).toBe('a'.repeat(40));
    expect(commitId.safeParse('abc12').success).toBe(false);
    expect(commitId.safeParse('g'.repeat(40)).success).toBe(false);
    expect(commitId.safeParse('a'.repeat(65)).success).toBe(false);
  });

  it('counts a run without a branch as the baseline branch, which is main unless the suite names one', () => {
    expect(baselineBranchOf({})).toBe('main');
    expect(baselineBranchOf({ branch: 'master' })).toBe('master');
    expect(isBaselineBranch(null, 'main')).toBe(true);
    expect(isBaselineBranch('main', 'main')).toBe(true);
    expect(isBaselineBranch('feature', 'main')).toBe(false);
    expect(isBaselineBranch('main', 'master')).toBe(false);
  });
});
