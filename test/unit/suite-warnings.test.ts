import { describe, expect, it } from 'vitest';
import { suiteConfigSchema } from '../../src/domain/suite-config';
import { fewestCallsToPassAvailability, measuredCallsPerTarget, suiteWarnings } from '../../src/domain/suite-warnings';

const TARGET = '11111111-1111-4111-8111-111111111111';
const REFERENCE = '22222222-2222-4222-8222-222222222222';

function config(workload: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  return suiteConfigSchema.parse({ targets: [{ endpoint_id: TARGET }], reference_endpoint_id: REFERENCE, workload, ...extra });
}

describe('measuredCallsPerTarget', () => {
  it.each<[string, Record<string, unknown>, number | null]>([
    ['requests_per_target', { requests_per_target: 60 }, 60],
    ['the default of 100', {}, 100],
    ['open loop by duration: duration × rate', { duration_s: 30, rate_per_second: 2.5 }, 75],
    ['closed loop by duration: unknown', { duration_s: 30 }, null],
  ])('%s', (_name, workload, expected) => {
    expect(measuredCallsPerTarget(config(workload).workload)).toBe(expected);
  });
});

describe('suiteWarnings', () => {
  it.each<[string, Record<string, unknown>, Record<string, unknown>, string[]]>([
    ['30 calls: no latency comparison can decide', { requests_per_target: 30 }, {}, ['latency_vs_reference', 'latency_vs_baseline', 'availability']],
    ['60 calls: can fail, not pass', { requests_per_target: 60 }, {}, ['latency_vs_reference', 'latency_vs_baseline', 'availability']],
    ['100 calls: latency decides; availability at 99 % cannot pass', { requests_per_target: 100 }, {}, ['availability']],
    ['400 calls: every check can decide', { requests_per_target: 400 }, {}, []],
    ['100 calls, availability minimum 95 %', { requests_per_target: 100 }, { thresholds: { success_rate_min_pct: 95 } }, []],
    ['60 calls, no baseline', { requests_per_target: 60 }, { baseline: { mode: 'none' } }, ['latency_vs_reference', 'availability']],
    ['closed loop by duration: nothing to say', { duration_s: 10 }, {}, []],
  ])('%s', (_name, workload, extra, checks) => {
    expect(suiteWarnings(config(workload, extra)).map((w) => w.check)).toEqual(checks);
  });

  it('says which count each decision needs', () => {
    const [none] = suiteWarnings(config({ requests_per_target: 30 }));
    expect(none!.message).toMatch(/needs 59 calls to fail and 72 to pass/);
    const [some] = suiteWarnings(config({ requests_per_target: 60 }));
    expect(some!.message).toMatch(/can fail \(from 59 calls\) but not pass on its interval \(from 72\)/);
    expect(some!.field).toBe('config.workload.requests_per_target');
  });

  it('latency_vs_baseline in history mode: the count matters only until min_runs passing runs form a history', () => {
    const baseline = (c: ReturnType<typeof config>) => suiteWarnings(c).find((w) => w.check === 'latency_vs_baseline')!.message;
    expect(baseline(config({ requests_per_target: 30 }))).toMatch(/until 5 passing runs form a history, which then judges any count/);
    expect(baseline(config({ requests_per_target: 60 }, { baseline: { mode: 'history', window: 8, min_runs: 3 } }))).toMatch(/until 3 passing runs/);
    expect(baseline(config({ requests_per_target: 30 }, { baseline: { mode: 'previous_success' } }))).not.toMatch(/history/);
  });

  it('availability: 100 % success clears 99 % from 381 calls', () => {
    expect(fewestCallsToPassAvailability(99)).toBe(381);
  });
});
