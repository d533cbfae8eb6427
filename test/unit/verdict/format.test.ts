import { describe, expect, it } from 'vitest';
import { driftPct } from '../../../src/domain/verdict';

describe('driftPct', () => {
  it.each([
    { value: 110, base: 100, expected: 10 },
    { value: 90, base: 100, expected: -10 },
    { value: 100, base: 100, expected: 0 },
    { value: 1001, base: 1000, expected: 0.1 },
    { value: 1, base: 3, expected: -66.7 },
    { value: 4, base: 3, expected: 33.3 },
    { value: 250, base: 100, expected: 150 },
    // A base of 0 ms counts as 1 ms, so a reference that answers in under a millisecond never divides by zero.
    { value: 5, base: 0, expected: 500 },
    { value: 1, base: 0, expected: 100 },
    { value: 0, base: 0, expected: 0 },
  ])('drift of $value ms against $base ms is $expected %', ({ value, base, expected }) => {
    expect(driftPct(value, base)).toBe(expected);
  });
});
