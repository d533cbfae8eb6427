import { describe, expect, it } from 'vitest';
import { suiteConfigSchema } from '../../src/domain/suite-config';

const TARGET = { endpoint_id: '11111111-1111-4111-8111-111111111111' };
const REFERENCE = '33333333-3333-4333-8333-333333333333';

describe('suite config: freshness', () => {
  it('is absent unless given, so stored configs keep their shape', () => {
    const config = suiteConfigSchema.parse({ targets: [TARGET] });
    expect('freshness' in config).toBe(false);
    expect('head_lag_p95_max_ms' in config.thresholds).toBe(false);
  });

  it('fills the watch defaults', () => {
    const config = suiteConfigSchema.parse({ targets: [TARGET], reference_endpoint_id: REFERENCE, freshness: { duration_s: 10 } });
    expect(config.freshness).toEqual({ duration_s: 10, via: 'subscribe', poll_interval_ms: 250, grace_ms: 2_000, late_ms: 1_000 });
  });

  it.each([
    { freshness: { duration_s: 0 }, path: 'freshness.duration_s' },
    { freshness: { duration_s: 3_601 }, path: 'freshness.duration_s' },
    { freshness: { duration_s: 10, via: 'push' }, path: 'freshness.via' },
    { freshness: { duration_s: 10, poll_interval_ms: 49 }, path: 'freshness.poll_interval_ms' },
    { freshness: { duration_s: 10, grace_ms: -1 }, path: 'freshness.grace_ms' },
    { freshness: { duration_s: 10, extra: 1 }, path: 'freshness' },
    { thresholds: { missed_heads_max_pct: 101 }, path: 'thresholds.missed_heads_max_pct' },
    { thresholds: { stall_max_s: -1 }, path: 'thresholds.stall_max_s' },
  ])('refuses $path out of bounds', ({ path, ...rest }) => {
    const result = suiteConfigSchema.safeParse({ targets: [TARGET], reference_endpoint_id: REFERENCE, ...rest });
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((i) => i.path.join('.'))).toContain(path);
  });

  it('needs a reference to measure against', () => {
    const result = suiteConfigSchema.safeParse({ targets: [TARGET], freshness: { duration_s: 10 } });
    expect(result.error?.issues.map((i) => i.path.join('.'))).toEqual(['freshness']);
  });
});
