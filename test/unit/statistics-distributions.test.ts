import { describe, expect, it } from 'vitest';
import { binomialCdfTable, logGamma, noncentralTUpperTail, normalCdf, normalQuantile, studentTQuantile } from '../../src/domain/statistics/distributions';

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

describe('noncentralTUpperTail (power of a one-sided t test)', () => {
  it('with no shift it is the test\'s level', () => {
    expect(noncentralTUpperTail(studentTQuantile(0.99, 31), 31, 0)).toBeCloseTo(0.01, 6);
    expect(noncentralTUpperTail(studentTQuantile(0.95, 4), 4, 0)).toBeCloseTo(0.05, 6);
  });

  it('with many degrees of freedom it tends to the normal power Φ(ncp − t)', () => {
    expect(noncentralTUpperTail(2, 5000, 2.5)).toBeCloseTo(normalCdf(0.5), 2);
  });

  it('matches a seeded Monte Carlo of (Z + ncp) / √(χ²₃₁ / 31) at bench:verdict\'s bound', () => {
    let state = 12345;
    const uniform = () => {
      state = (state * 16807) % 2147483647;
      return state / 2147483647;
    };
    const normal = () => Math.sqrt(-2 * Math.log(uniform())) * Math.cos(2 * Math.PI * uniform());
    const t = studentTQuantile(0.99, 31);
    const draws = 100_000;
    let above = 0;
    for (let i = 0; i < draws; i++) {
      let chi2 = 0;
      for (let j = 0; j < 31; j++) chi2 += normal() ** 2;
      if ((normal() + 2.659) / Math.sqrt(chi2 / 31) > t) above++;
    }
    // 100,000 draws: sd of the estimate ≈ 0.0016, so 4 sd is 0.0064.
    expect(Math.abs(above / draws - noncentralTUpperTail(t, 31, 2.659))).toBeLessThan(0.0064);
  });
});
