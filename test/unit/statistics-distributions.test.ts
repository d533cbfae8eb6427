import { describe, expect, it } from 'vitest';
import { binomialCdfTable, logGamma, normalCdf, normalQuantile, studentTQuantile } from '../../src/domain/statistics/distributions';

describe('normalQuantile', () => {
  it.each([
    [0.5, 0],
    [0.975, 1.959964],
    [0.95, 1.644854],
    [0.99, 2.326348],
    [0.005, -2.575829],
    [0.999, 3.090232],
  ])('Φ⁻¹(%s) = %s', (p, z) => {
    expect(normalQuantile(p)).toBeCloseTo(z, 5);
  });

  it('is infinite at 0 and 1 and refuses anything outside', () => {
    expect(normalQuantile(0)).toBe(-Infinity);
    expect(normalQuantile(1)).toBe(Infinity);
    expect(() => normalQuantile(1.5)).toThrow(RangeError);
  });

  it('inverts normalCdf', () => {
    for (const p of [0.01, 0.2, 0.5, 0.8, 0.99]) expect(normalCdf(normalQuantile(p))).toBeCloseTo(p, 6);
  });
});

describe('studentTQuantile (printed tables)', () => {
  it.each([
    [0.975, 1, 12.706],
    [0.975, 4, 2.776],
    [0.99, 4, 3.747],
    [0.99, 9, 2.821],
    [0.975, 9, 2.262],
    [0.95, 30, 1.697],
    [0.995, 2, 9.925],
  ])('t(%s, df %s) = %s', (p, df, t) => {
    expect(studentTQuantile(p, df)).toBeCloseTo(t, 3);
  });

  it('is symmetric', () => {
    expect(studentTQuantile(0.025, 9)).toBeCloseTo(-2.262, 3);
  });
});

describe('logGamma and binomialCdfTable', () => {
  it.each([
    [1, 0],
    [5, Math.log(24)],
    [0.5, Math.log(Math.sqrt(Math.PI))],
    [101, 363.73937555556347],
  ])('ln Γ(%s) = %s', (x, expected) => {
    expect(logGamma(x)).toBeCloseTo(expected, 9);
  });

  it.each([
    // n, p, k, P(B ≤ k)
    [1, 0.5, 0, 0.5],
    [5, 0.95, 4, 1 - 0.95 ** 5],
    [20, 0.5, 5, 0.020694],
    [1000, 0.95, 929, 0.0023303],
  ])('Binomial(%s, %s): P(B ≤ %s) = %s', (n, p, k, expected) => {
    const cdf = binomialCdfTable(n, p);
    expect(cdf[k]).toBeCloseTo(expected, 4);
    expect(cdf[n]).toBeCloseTo(1, 12);
  });
});
