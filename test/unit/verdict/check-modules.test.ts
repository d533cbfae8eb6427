import { describe, expect, it } from 'vitest';
import { CHECKS } from '../../../src/domain/verdict';

describe('the check registry', () => {
  it('names each check once, in the order the verdict lists them', () => {
    const names = CHECKS.map((c) => c.name);
    expect(new Set(names).size).toBe(names.length);
    expect(names).toEqual(['latency_p95', 'latency_vs_reference', 'correctness', 'latency_vs_baseline', 'availability', 'freshness_vs_reference', 'capacity', 'integrity']);
  });

  it('gives every section its own place in each rendering (two sections at one rank would print in registry order by accident)', () => {
    for (const medium of ['markdown', 'text'] as const) {
      const ranks = CHECKS.flatMap((c) => (c[medium] ? [c[medium]!.rank] : []));
      expect(new Set(ranks).size, medium).toBe(ranks.length);
    }
  });
});
