import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config';
import { suiteConfigSchema } from '../../src/domain/suite-config';
import { probeTaskQueueForRegion } from '../../src/temporal/constants';

const TARGET = { endpoint_id: '33333333-3333-4333-8333-333333333333' };

describe('RVS_REGION', () => {
  it('defaults to local, whose probe queue is rvs-probe-local', () => {
    expect(loadConfig({}).region).toBe('local');
    expect(probeTaskQueueForRegion(loadConfig({}).region)).toBe('rvs-probe-local');
  });

  it.each(['eu-west', 'us-east-1', 'a', 'ap1'])('accepts %s', (region) => {
    expect(loadConfig({ RVS_REGION: region }).region).toBe(region);
  });

  it.each(['EU', 'eu_west', '-eu', 'eu-', 'eu west', 'x'.repeat(33), 'eu/west'])('refuses %j with a readable message', (region) => {
    expect(() => loadConfig({ RVS_REGION: region })).toThrow(ConfigError);
    expect(() => loadConfig({ RVS_REGION: region })).toThrow(/RVS_REGION: must be 1-32 lowercase letters, digits or hyphens/);
  });
});

describe('suite config vantage_points', () => {
  const parse = (extra: Record<string, unknown>) => suiteConfigSchema.safeParse({ targets: [TARGET], ...extra });

  it('is absent unless given (configs stored before it stay as they were)', () => {
    const parsed = parse({});
    expect(parsed.success && 'vantage_points' in parsed.data).toBe(false);
    expect(parsed.success && 'vantage_start_timeout_s' in parsed.data).toBe(false);
  });

  it('takes distinct region names and a start timeout', () => {
    const parsed = parse({ vantage_points: ['eu-west', 'us-east'], vantage_start_timeout_s: 30 });
    expect(parsed.success && parsed.data.vantage_points).toEqual(['eu-west', 'us-east']);
  });

  it.each([
    { vantage_points: [] },
    { vantage_points: ['eu', 'eu'] },
    { vantage_points: ['EU'] },
    { vantage_points: Array.from({ length: 17 }, (_, i) => `r${i}`) },
    { vantage_points: ['eu'], vantage_start_timeout_s: 0 },
    { vantage_points: ['eu'], vantage_start_timeout_s: 3_601 },
  ])('refuses %j', (extra) => {
    expect(parse(extra).success).toBe(false);
  });

  it('refuses vantage points on a capacity sweep, which runs from one place, naming the field', () => {
    const parsed = parse({ vantage_points: ['eu'], workload: { sweep: { rates: [10, 20], step_s: 5 } } });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues.map((i) => [i.path.join('.'), i.message])).toEqual([['vantage_points', expect.stringContaining('capacity sweep')]]);
    expect(parse({ workload: { sweep: { rates: [10, 20], step_s: 5 } } }).success).toBe(true);
  });
});
