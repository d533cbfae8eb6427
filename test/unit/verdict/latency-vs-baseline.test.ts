import { describe, expect, it } from 'vitest';
import { computeVerdict, driftPct, type BaselineInput } from '../../../src/domain/verdict';
import { BASELINE_RUN_ID, check, historyDetails, input, noSuccess, previousRun, RUN_ID, runModelDetails, stats, steady } from './fixtures';

describe('small suites decide what the data can decide', () => {
  it('a 60-call run slowed from 50 to 600 ms against the previous run fails, even with the run-drift allowance', () => {
    const cand = steady(600, 60);
    const base = steady(50, 60);
    const c = check(computeVerdict(input({ candidate: cand.stats, candidateLatencies: cand.latencies, baseline: previousRun(base.stats, base.latencies) })), 'latency_vs_baseline');
    expect(c.status).toBe('fail');
    expect(runModelDetails(c).fail_bound).toBe('one_sided');
  });
});

describe('computeVerdict: latency_vs_baseline', () => {
  const runId = (i: number) => `44444444-4444-4444-8444-${String(i).padStart(12, '0')}`;
  const historyOf = (p95sMs: number[]) => p95sMs.map((ms, i) => ({ run_id: runId(i), p95_us: ms * 1000 }));
  const steadyHistory = (k: number) => historyOf([100, 102, 98, 101, 99, 100, 103, 97, 100, 101].slice(0, k));
  const previousOf = (p95: number): BaselineInput['previous'] => {
    const s = steady(p95);
    return { run_id: runId(0), stats: s.stats, latencies: s.latencies };
  };

  it.each([
    { runs: 0, model: null },
    { runs: 1, model: 'previous_run' },
    { runs: 4, model: 'previous_run' },
    { runs: 5, model: 'history' },
    { runs: 10, model: 'history' },
  ])('history mode with $runs passing runs (min_runs 5) → model $model', ({ runs, model }) => {
    const c = steady(150);
    const history = steadyHistory(runs);
    const result = computeVerdict(
      input({
        candidate: c.stats,
        candidateLatencies: c.latencies,
        baseline: { mode: 'history', minRuns: 5, history, previous: runs > 0 ? previousOf(100) : null },
      }),
    );
    if (model === null) {
      expect(result.checks.map((x) => x.name)).not.toContain('latency_vs_baseline');
      expect(result.baseline_comparison).toBeNull();
      return;
    }
    const vsBaseline = check(result, 'latency_vs_baseline');
    // A 50 % slower candidate fails under either model.
    expect(vsBaseline.status).toBe('fail');
    expect(vsBaseline.details.model).toBe(model);
    expect(result.baseline_comparison).toMatchObject({ model, status: 'fail', message: vsBaseline.message });
    if (model === 'history') {
      expect(result.baseline_comparison?.run_ids).toEqual(history.map((h) => h.run_id));
      expect(result.baseline_comparison?.limits).toMatchObject({ max_pct: 10, floor_ms: 5, history_median_ms: 100, upper_boundary: 0.995 });
      expect(vsBaseline.message).toContain(`history of ${runs} passing runs`);
    } else {
      expect(result.baseline_comparison?.run_ids).toEqual([runId(0)]);
      expect(vsBaseline.message).toContain(`only ${runs} passing run${runs === 1 ? '' : 's'} in the history (min_runs 5)`);
      expect(result.baseline_comparison?.limits).toMatchObject({ max_pct: 10, floor_ms: 5, run_drift_sd: 0.0953 });
    }
  });

  it('honours a smaller min_runs (never below 2)', () => {
    const c = steady(150);
    const decided = (minRuns: number, k: number) =>
      computeVerdict(input({ candidate: c.stats, candidateLatencies: c.latencies, baseline: { mode: 'history', minRuns, history: steadyHistory(k), previous: previousOf(100) } }))
        .baseline_comparison?.model;
    expect(decided(3, 3)).toBe('history');
    expect(decided(3, 2)).toBe('previous_run');
    expect(decided(1, 1)).toBe('previous_run');
  });

  it.each([
    { name: 'within the band of a steady history', cand: 103, history: [100, 102, 98, 101, 99], status: 'pass', reason: 'within_band' },
    { name: '50 % slower than a steady history', cand: 150, history: [100, 102, 98, 101, 99], status: 'fail', reason: 'above_band' },
    { name: '50 % slower than a drifting history (inside a band too wide to catch max_pct)', cand: 150, history: [60, 150, 80, 200, 100], status: 'inconclusive', reason: 'band_too_wide' },
    { name: 'above a constant history, under max_pct', cand: 109, history: [100, 100, 100, 100, 100], status: 'pass', reason: 'under_pct' },
    { name: 'above a constant history, over max_pct, under the floor', cand: 12, history: [10, 10, 10, 10, 10], status: 'pass', reason: 'under_floor' },
    { name: 'above a constant history by more than max_pct and the floor', cand: 116, history: [100, 100, 100, 100, 100], status: 'fail', reason: 'above_band' },
  ])('history: $name → $status ($reason)', ({ cand, history, status, reason }) => {
    const c = steady(cand);
    const result = computeVerdict(
      input({ candidate: c.stats, candidateLatencies: c.latencies, baseline: { mode: 'history', minRuns: 5, history: historyOf(history), previous: null } }),
    );
    expect(check(result, 'latency_vs_baseline')).toMatchObject({ status, details: { model: 'history', reason, candidate_p95_ms: cand } });
    expect(result.verdict).toBe(status === 'fail' ? 'fail' : 'pass');
  });

  it('history: a band too wide to catch max_pct is inconclusive, saying how wide and how many runs would do (issue 32)', () => {
    // Five passing runs on a noisy machine; the candidate 6.8× the median sits inside the band.
    const c = steady(612);
    const result = computeVerdict(
      input({ candidate: c.stats, candidateLatencies: c.latencies, baseline: { mode: 'history', minRuns: 5, history: historyOf([50, 150, 70, 200, 90]), previous: null } }),
    );
    const baseline = check(result, 'latency_vs_baseline');
    expect(baseline).toMatchObject({ status: 'inconclusive', details: { reason: 'band_too_wide' } });
    expect(baseline.message).toMatch(/— inconclusive: 5 runs of history: the band spans ×\d+, so a regression of \+10% would pass inside it; at this run-to-run spread no history/);
    expect(historyDetails(baseline).limits).toMatchObject({ history_runs_needed: null });
    // A quieter history: the message names how many runs would do.
    const quiet = computeVerdict(
      input({ candidate: steady(100).stats, candidateLatencies: steady(100).latencies, baseline: { mode: 'history', minRuns: 5, history: historyOf([97, 103, 100, 105, 95]), previous: null } }),
    );
    const needed = historyDetails(check(quiet, 'latency_vs_baseline')).limits.history_runs_needed;
    expect(needed).toBeGreaterThan(5);
    expect(check(quiet, 'latency_vs_baseline').message).toContain(`5 runs of history: the band spans ×1.`);
    expect(check(quiet, 'latency_vs_baseline').message).toContain(`; about ${needed} runs are needed`);
  });

  it('history: a regression one run hid fails once it persists, naming the runs and where the streak starts', () => {
    // Thirty passing runs around 100 ms (±9 %), then two that passed the band at ~128 ms.
    const earlier = Array.from({ length: 30 }, (_, i) => [100, 88, 114, 93, 108, 90, 112, 96, 104, 95][i % 10]!);
    const slow = [127, 129];
    const lookback = historyOf([...slow, ...earlier]);
    const history = lookback.slice(0, 10);
    const c = steady(128);
    const result = computeVerdict(input({ candidate: c.stats, candidateLatencies: c.latencies, baseline: { mode: 'history', minRuns: 5, history, lookback, previous: null } }));
    const baseline = check(result, 'latency_vs_baseline');
    expect(baseline.status).toBe('fail');
    expect(baseline.details.reason).toBe('persisting');
    expect(baseline.message).toContain(`regression persisting over 3 runs since run ${lookback[1]!.run_id}`);
    expect(historyDetails(baseline).limits.persisting).toMatchObject({ status: 'fail', reason: 'persisting', run_ids: [RUN_ID, lookback[0]!.run_id, lookback[1]!.run_id], reference_runs: 30 });
    // Without the pooled runs' evidence (no lookback beyond the window) the same run passes the band.
    const alone = computeVerdict(input({ candidate: c.stats, candidateLatencies: c.latencies, baseline: { mode: 'history', minRuns: 5, history: historyOf([...earlier.slice(0, 10)]), previous: null } }));
    expect(check(alone, 'latency_vs_baseline').status).toBe('inconclusive');
  });

  it('history: one run the 10-run band passes fails against the long lookback, and says so', () => {
    // A hundred passing runs around 100 ms (±9 %), then eight at 118 ms that lift the band's centre, then two normal ones.
    const earlier = Array.from({ length: 100 }, (_, i) => [100, 88, 114, 93, 108, 90, 112, 96, 104, 95][i % 10]!);
    const lookback = historyOf([100, 100, ...Array<number>(8).fill(118), ...earlier]);
    const history = lookback.slice(0, 10);
    const c = steady(135);
    const result = computeVerdict(input({ candidate: c.stats, candidateLatencies: c.latencies, baseline: { mode: 'history', minRuns: 5, history, lookback, previous: null } }));
    const baseline = check(result, 'latency_vs_baseline');
    expect(baseline.status).toBe('fail');
    expect(baseline.details.reason).toBe('persisting');
    expect(baseline.message).toContain('over the median of the 100 passing runs before the two newest');
    expect(baseline.message).toContain('against its 10-run window alone it was inconclusive: 10 runs of history: the band spans ×1.3');
    expect(historyDetails(baseline).limits.persisting).toMatchObject({ status: 'fail', reason: 'persisting', run_ids: [RUN_ID], reference_runs: 100 });
  });

  it('history: a candidate with no successful call is inconclusive', () => {
    const result = computeVerdict(
      input({ candidate: noSuccess(100), baseline: { mode: 'history', minRuns: 5, history: steadyHistory(5), previous: null } }),
    );
    expect(check(result, 'latency_vs_baseline')).toMatchObject({ status: 'inconclusive', details: { reason: 'no_samples' } });
  });

  // previous_success and run: the previous run's samples under the interval rule, with the 10 % run-drift allowance.
  it.each([
    { name: 'faster than the baseline', base: 100, cand: 90, status: 'pass', reason: 'under_floor' },
    { name: 'equal', base: 100, cand: 100, status: 'pass', reason: 'under_floor' },
    { name: '30 % slower: within the drift allowance the run cannot tell', base: 100, cand: 130, status: 'inconclusive', reason: 'straddles_limit' },
    { name: '60 % slower: beyond any drift', base: 100, cand: 160, status: 'fail', reason: 'above_limit' },
    { name: '60 % slower but under the floor', base: 5, cand: 8, status: 'pass', reason: 'under_floor' },
  ])('previous_success: $name ($cand ms vs $base ms) → $status', ({ base, cand, status, reason }) => {
    const c = steady(cand);
    const b = steady(base);
    const result = computeVerdict(input({ candidate: c.stats, candidateLatencies: c.latencies, baseline: previousRun(b.stats, b.latencies) }));
    const vsBaseline = check(result, 'latency_vs_baseline');
    expect(vsBaseline).toMatchObject({
      status,
      details: { baseline_run_id: BASELINE_RUN_ID, candidate_p95_ms: cand, baseline_p95_ms: base, vs_baseline_pct: driftPct(cand, base), max_pct: 10, model: 'previous_run', reason },
    });
    expect(result.baseline_comparison).toMatchObject({
      run_id: BASELINE_RUN_ID,
      candidate_p95_ms: cand,
      baseline_p95_ms: base,
      status,
      message: vsBaseline.message,
      model: 'previous_run',
      run_ids: [BASELINE_RUN_ID],
    });
    expect(vsBaseline.message).not.toContain('min_runs');
  });

  it('run mode names the chosen run as its model', () => {
    const b = steady(100);
    const result = computeVerdict(input({ baseline: previousRun(b.stats, b.latencies, 'run') }));
    expect(result.baseline_comparison?.model).toBe('run');
  });

  it('is inconclusive when the baseline run has no successful calls', () => {
    const result = computeVerdict(input({ candidate: stats({ p95: 150 }), baseline: previousRun(noSuccess(100)) }));
    const vsBaseline = check(result, 'latency_vs_baseline');
    expect(vsBaseline.status).toBe('inconclusive');
    expect(vsBaseline.message).toMatch(/no successful calls on the candidate or the baseline run/);
    expect(result.markdown_summary).toContain(
      '> **latency_vs_baseline is inconclusive**: nothing to compare (this does not fail the verdict).',
    );
    expect(result.verdict).toBe('pass');
  });

  it('has a null baseline_comparison without a baseline, or when the mode finds no run', () => {
    expect(computeVerdict(input()).baseline_comparison).toBeNull();
    expect(computeVerdict(input({ baseline: { mode: 'previous_success', previous: null } })).baseline_comparison).toBeNull();
  });
});
