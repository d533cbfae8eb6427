import { describe, expect, it } from 'vitest';
import { emptyStats } from '../../../src/domain/run-stats';
import { computeVerdict, type Thresholds, type VerdictInput } from '../../../src/domain/verdict';

const THRESHOLDS: Thresholds = {
  latency_p95_max_ms: 200,
  latency_regression_max_pct: 10,
  latency_vs_reference_max_pct: 20,
  correctness_min_pct: 99.9,
  correctness_enabled: false,
};

const input = (source: VerdictInput['source']): VerdictInput => ({
  run: { id: '11111111-1111-4111-8111-111111111111', status: 'failed', failure_reason: 'gone' },
  suiteName: 'smoke',
  thresholds: THRESHOLDS,
  candidate: emptyStats(),
  reference: null,
  baseline: null,
  source,
});

const secondLine = (source: VerdictInput['source']) => computeVerdict(input(source)).markdown_summary.split('\n')[4];

describe('the verdict\'s Markdown names the branch and commit it judged', () => {
  it('names a pull request\'s branch, its commit and the baseline branch it was compared with', () => {
    expect(secondLine({ branch: 'feature/x', commit: 'abcdef0123456789', baselineBranch: 'main' })).toBe(
      'Branch `feature/x` @ `abcdef012345` · baseline branch `main` (compared with it; never joins it)',
    );
    expect(secondLine({ branch: 'main', commit: null, baselineBranch: 'main' })).toBe('Branch `main` · baseline branch `main`');
    expect(secondLine({ branch: null, commit: 'abcdef0', baselineBranch: 'trunk' })).toBe('No branch @ `abcdef0` · baseline branch `trunk`');
  });

  it('adds nothing when the trigger named neither', () => {
    const markdown = computeVerdict(input({ branch: null, commit: null, baselineBranch: 'main' })).markdown_summary;
    expect(markdown).toBe(computeVerdict(input(undefined)).markdown_summary);
    expect(markdown).not.toContain('baseline branch');
  });

  it('keeps a branch name from becoming markup in a pull-request comment', () => {
    expect(secondLine({ branch: 'x`[pwn](http://evil)`', commit: null, baselineBranch: 'main' })).toBe(
      "Branch `x'[pwn](http://evil)'` · baseline branch `main` (compared with it; never joins it)",
    );
  });
});
