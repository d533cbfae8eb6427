import { describe, expect, it } from 'vitest';
import { computeVerdict, judgeProber, PROBER_OVERLOAD, type ProberHealth } from '../../../src/domain/verdict';
import { check, input, previousRun, reference, stats, steady } from './fixtures';

const health = (loopDelayP99Ms: number, sendLagP99Ms: number | null = null): ProberHealth => ({
  activities: 3,
  loop_delay_p99_ms: loopDelayP99Ms,
  loop_delay_max_ms: loopDelayP99Ms * 2,
  send_lag_p99_ms: sendLagP99Ms,
  cpu_pct: 95,
});

describe('judgeProber', () => {
  it.each([
    { name: 'an idle worker', p99: 0.4, lag: null, overloaded: false },
    { name: 'exactly at the limit', p99: PROBER_OVERLOAD.loopDelayP99Ms, lag: null, overloaded: false },
    { name: 'just above the limit', p99: PROBER_OVERLOAD.loopDelayP99Ms + 0.1, lag: null, overloaded: true },
    { name: 'a saturated worker', p99: 180, lag: 3, overloaded: true },
    // Send lag is shown, not judged: an open loop queued behind a slow endpoint is late because of the endpoint.
    { name: 'a large send lag on a healthy loop', p99: 2, lag: 400, overloaded: false },
  ])('$name (loop p99 $p99 ms, send lag $lag) → overloaded $overloaded', ({ p99, lag, overloaded }) => {
    const judged = judgeProber(health(p99, lag));
    expect(judged.overloaded).toBe(overloaded);
    if (overloaded) expect(judged.reason).toBe(`the prober was overloaded: event-loop delay p99 ${p99} ms during probing (limit 50 ms)`);
    else expect(judged.reason).toBeNull();
  });
});

describe('computeVerdict with the prober\'s health', () => {
  const slowCandidate = steady(300, 2000);
  const fastReference = steady(100, 2000);
  const sameAsReference = steady(100, 2000);

  // Each latency check on samples measured by an overloaded prober: never fail; vs_reference never pass either.
  it.each([
    { check: 'latency_p95', build: () => input({ candidate: stats({ p95: 300 }) }), healthy: 'fail', overloaded: 'inconclusive' },
    { check: 'latency_p95', build: () => input({ candidate: stats({ p95: 50 }) }), healthy: 'pass', overloaded: 'pass' },
    {
      check: 'latency_vs_reference',
      build: () => input({ candidate: slowCandidate.stats, candidateLatencies: slowCandidate.latencies, reference: reference(fastReference.stats, fastReference.latencies) }),
      healthy: 'fail',
      overloaded: 'inconclusive',
    },
    {
      check: 'latency_vs_reference',
      build: () => input({ candidate: sameAsReference.stats, candidateLatencies: sameAsReference.latencies, reference: reference(fastReference.stats, fastReference.latencies) }),
      healthy: 'pass',
      overloaded: 'inconclusive',
    },
    {
      check: 'latency_vs_baseline',
      build: () => input({ candidate: slowCandidate.stats, candidateLatencies: slowCandidate.latencies, baseline: previousRun(fastReference.stats, fastReference.latencies) }),
      healthy: 'fail',
      overloaded: 'inconclusive',
    },
  ] as const)('$check: $healthy with a healthy prober → $overloaded with an overloaded one', ({ check: name, build, healthy, overloaded }) => {
    const withHealthy = computeVerdict({ ...build(), prober: health(3) });
    expect(check(withHealthy, name).status).toBe(healthy);
    expect(withHealthy.prober).toMatchObject({ overloaded: false, reason: null });
    const withOverloaded = computeVerdict({ ...build(), prober: health(180) });
    const judged = check(withOverloaded, name);
    expect(judged.status).toBe(overloaded);
    if (overloaded !== healthy) {
      expect(judged.message).toContain('inconclusive: the prober was overloaded: event-loop delay p99 180 ms during probing');
      // What was measured stays in the message.
      expect(judged.message.split(' — ')[0]).toBe(check(withHealthy, name).message.split(' — ')[0]);
    }
    expect(withOverloaded.checks.every((c) => c.status !== 'fail' || !c.name.startsWith('latency'))).toBe(true);
  });

  it('leaves the other checks alone: availability fails on failed calls however loaded the prober was', () => {
    const result = computeVerdict({ ...input({ candidate: stats({ p95: 50, calls: 1000, failed: 500 }) }), prober: health(180) });
    expect(check(result, 'availability').status).toBe('fail');
    expect(result.verdict).toBe('fail');
  });

  it('turns a verdict failed only by latency into a pass with an inconclusive check that names the prober, in the Markdown too', () => {
    const result = computeVerdict({ ...input({ candidate: stats({ p95: 300 }) }), prober: health(180) });
    expect(result.verdict).toBe('pass');
    expect(result.prober).toMatchObject({ overloaded: true, loop_delay_p99_ms: 180 });
    expect(result.markdown_summary).toContain('> **latency_p95 is inconclusive**: the prober was overloaded: event-loop delay p99 180 ms during probing');
    expect(result.markdown_summary).toContain('> **Prober overloaded**: event-loop delay p99 180 ms (max 360 ms), CPU 95 % over 3 probe activities');
  });

  it('fails the verdict with fail_on_inconclusive: the suite asked for a decision, and none was possible', () => {
    const base = input({ candidate: stats({ p95: 300 }) });
    const result = computeVerdict({ ...base, thresholds: { ...base.thresholds, fail_on_inconclusive: true }, prober: health(180) });
    expect(check(result, 'latency_p95').status).toBe('inconclusive');
    expect(result.verdict).toBe('fail');
  });

  it('has no prober section, and judges as before, for runs that recorded none', () => {
    const result = computeVerdict(input({ candidate: stats({ p95: 300 }) }));
    expect(result.prober).toBeUndefined();
    expect(check(result, 'latency_p95').status).toBe('fail');
    expect(result.markdown_summary).not.toContain('Prober');
  });
});
