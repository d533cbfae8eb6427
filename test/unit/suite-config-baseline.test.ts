import { describe, expect, it } from 'vitest';
import { suiteConfigSchema, thresholdOverridesSchema } from '../../src/domain/suite-config';

const TARGET = { endpoint_id: '11111111-1111-4111-8111-111111111111' };
const RUN = '22222222-2222-4222-8222-222222222222';

describe('suite config: baseline and the verdict-statistics thresholds', () => {
  it('defaults a new suite to the history baseline (window 10, min_runs 5) and the new thresholds', () => {
    const config = suiteConfigSchema.parse({ targets: [TARGET] });
    expect(config.baseline).toEqual({ mode: 'history', run_id: null, window: 10, min_runs: 5, branch: 'main' });
    expect(config.thresholds).toMatchObject({ fail_on_inconclusive: false, success_rate_min_pct: 99, latency_regression_min_ms: 5 });
  });

  it('keeps a mode given explicitly (a stored suite keeps its previous_success)', () => {
    expect(suiteConfigSchema.parse({ targets: [TARGET], baseline: { mode: 'previous_success' } }).baseline.mode).toBe('previous_success');
  });

  it.each([
    { baseline: { window: 1, min_runs: 2 }, ok: false, path: 'baseline.min_runs' },
    { baseline: { window: 2, min_runs: 2 }, ok: true },
    { baseline: { window: 50, min_runs: 50 }, ok: true },
    { baseline: { window: 51 }, ok: false, path: 'baseline.window' },
    { baseline: { window: 0 }, ok: false, path: 'baseline.window' },
    { baseline: { min_runs: 1 }, ok: false, path: 'baseline.min_runs' },
    { baseline: { window: 4 }, ok: false, path: 'baseline.min_runs' }, // default min_runs 5 > window 4
    { baseline: { window: 4, min_runs: 3 }, ok: true },
    { baseline: { mode: 'run', run_id: RUN }, ok: true },
    { baseline: { mode: 'run' }, ok: false, path: 'baseline.run_id' },
    { baseline: { branch: 'master' }, ok: true },
    { baseline: { branch: 'release/v1.2' }, ok: true },
    { baseline: { branch: '' }, ok: false, path: 'baseline.branch' },
    { baseline: { branch: 'two words' }, ok: false, path: 'baseline.branch' },
    { baseline: { branch: 'line\nbreak' }, ok: false, path: 'baseline.branch' },
    { baseline: { branch: 'x'.repeat(256) }, ok: false, path: 'baseline.branch' },
  ])('baseline $baseline → ok $ok', ({ baseline, ok, path }) => {
    const result = suiteConfigSchema.safeParse({ targets: [TARGET], baseline });
    expect(result.success).toBe(ok);
    if (!ok) expect(result.error!.issues.map((i) => i.path.join('.'))).toContain(path);
  });

  it.each([
    { thresholds: { success_rate_min_pct: 100 }, ok: true },
    { thresholds: { success_rate_min_pct: 100.1 }, ok: false },
    { thresholds: { success_rate_min_pct: -1 }, ok: false },
    { thresholds: { fail_on_inconclusive: true }, ok: true },
    { thresholds: { fail_on_inconclusive: 'yes' }, ok: false },
    { thresholds: { latency_regression_min_ms: 0 }, ok: true },
    { thresholds: { latency_regression_min_ms: 10_000 }, ok: true },
    { thresholds: { latency_regression_min_ms: 10_001 }, ok: false },
    { thresholds: { latency_regression_min_ms: -1 }, ok: false },
  ])('thresholds $thresholds → ok $ok (suite and per-run override alike)', ({ thresholds, ok }) => {
    expect(suiteConfigSchema.safeParse({ targets: [TARGET], thresholds }).success).toBe(ok);
    expect(thresholdOverridesSchema.safeParse(thresholds).success).toBe(ok);
  });

  it('a per-run override leaves the new thresholds out unless given', () => {
    expect(thresholdOverridesSchema.parse({ latency_p95_max_ms: 10 })).toEqual({ latency_p95_max_ms: 10 });
  });
});
