import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson, exceedsJsonDepth, jsonShape, MAX_RESULT_DEPTH } from '../../src/domain/canonical-json';
import { fingerprint } from '../../src/chains/evm/answers';

/*
 * Properties of the functions that walk untrusted JSON (endpoint answers): they never throw, for
 * any JSON value of any depth, and they mean what they say (key order ignored, equal for equal
 * values, different for different ones). Bounded runs: each property checks a fixed number of
 * generated values.
 */

const RUNS = { numRuns: 200 };
const METHODS = ['eth_getBlockByNumber', 'eth_getLogs', 'eth_getBalance', 'eth_call', 'eth_getTransactionReceipt'];

/** JSON as JSON.parse returns it, with hex-like strings mixed in so normalisation has work to do. */
const hexString = fc.stringMatching(/^0[xX][0-9a-fA-F]{0,12}$/);
const json = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constant(null),
    fc.boolean(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.integer(),
    fc.string(),
    hexString,
    fc.array(tie('value'), { maxLength: 5 }),
    fc.dictionary(fc.oneof(fc.string(), fc.constantFrom('logs', 'number', 'nonce', 'logIndex', 'blockNumber', 'parentHash')), tie('value'), { maxKeys: 5 }),
  ),
})).value.map((value) => JSON.parse(JSON.stringify(value)) as unknown);

/** A value nested `depth` levels, built in a loop (a recursive builder would itself overflow). */
function deep(depth: number, inner: unknown, asObject: boolean): unknown {
  let value = inner;
  for (let i = 0; i < depth; i++) value = asObject ? { k: value } : [value];
  return value;
}

/** The same value with every object's keys inserted in reverse order. */
function reverseKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reverseKeys);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).reverse()) out[key] = reverseKeys((value as Record<string, unknown>)[key]);
    return out;
  }
  return value;
}

describe('canonicalJson', () => {
  it('is valid JSON that parses back to a deep-equal value', () => {
    fc.assert(fc.property(json, (value) => {
      expect(JSON.parse(canonicalJson(value))).toEqual(value);
    }), RUNS);
  });

  it('ignores key order', () => {
    fc.assert(fc.property(json, (value) => {
      expect(canonicalJson(reverseKeys(value))).toBe(canonicalJson(value));
    }), RUNS);
  });

  it('differs for values that differ (injective on JSON values)', () => {
    fc.assert(fc.property(json, json, (a, b) => {
      const equal = JSON.stringify(reverseKeysSorted(a)) === JSON.stringify(reverseKeysSorted(b));
      expect(canonicalJson(a) === canonicalJson(b)).toBe(equal);
    }), RUNS);
  });

  it('never throws at any depth, and keeps every level', () => {
    fc.assert(fc.property(fc.integer({ min: 1, max: 50_000 }), fc.boolean(), json, (depth, asObject, inner) => {
      const text = canonicalJson(deep(depth, inner, asObject));
      expect(text.startsWith(asObject ? '{"k":'.repeat(depth) : '['.repeat(depth))).toBe(true);
    }), { numRuns: 20 });
  });
});

describe('canonicalJson across its recursive and iterative writers', () => {
  it('writes the same text for a value just below and just above the recursion limit', () => {
    // The writer switches at 64 levels; the text must not depend on which one wrote it.
    fc.assert(fc.property(fc.integer({ min: 55, max: 75 }), fc.boolean(), json, (depth, asObject, inner) => {
      const text = canonicalJson(deep(depth, inner, asObject));
      const innerText = canonicalJson(inner);
      const open = asObject ? '{"k":'.repeat(depth) : '['.repeat(depth);
      const close = (asObject ? '}' : ']').repeat(depth);
      expect(text).toBe(`${open}${innerText}${close}`);
    }), { numRuns: 100 });
  });
});

describe('jsonShape (table)', () => {
  it.each([
    { name: 'a scalar', value: 5, maxDepth: 1, maxValues: 1, shape: 'ok' },
    { name: 'empty array at depth 1', value: [], maxDepth: 1, maxValues: 1, shape: 'ok' },
    { name: 'nested array over depth 1', value: [[]], maxDepth: 1, maxValues: 10, shape: 'too_deep' },
    { name: 'root plus 3 elements within 4', value: [1, 2, 3], maxDepth: 5, maxValues: 4, shape: 'ok' },
    { name: 'root plus 4 elements over 4', value: [1, 2, 3, 4], maxDepth: 5, maxValues: 4, shape: 'too_many_values' },
    { name: 'object fields count', value: { a: 1, b: { c: 2 } }, maxDepth: 5, maxValues: 3, shape: 'too_many_values' },
    { name: 'object fields within', value: { a: 1, b: { c: 2 } }, maxDepth: 5, maxValues: 4, shape: 'ok' },
  ] as const)('$name → $shape', ({ value, maxDepth, maxValues, shape }) => {
    expect(jsonShape(value, maxDepth, maxValues)).toBe(shape);
  });
});

/** Keys sorted recursively, for an independent equality check (small generated values only). */
function reverseKeysSorted(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reverseKeysSorted);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) out[key] = reverseKeysSorted((value as Record<string, unknown>)[key]);
    return out;
  }
  return value;
}

describe('exceedsJsonDepth', () => {
  it('is true exactly above the limit, at any depth', () => {
    fc.assert(fc.property(fc.integer({ min: 0, max: 20_000 }), fc.integer({ min: 0, max: 200 }), fc.boolean(), (depth, limit, asObject) => {
      expect(exceedsJsonDepth(deep(depth, 1, asObject), limit)).toBe(depth > limit);
    }), { numRuns: 50 });
  });
});

describe('fingerprint', () => {
  const method = fc.constantFrom(...METHODS);

  it('never throws, for any JSON value and any method', () => {
    fc.assert(fc.property(method, json, (m, value) => {
      const hash = fingerprint(m, value);
      expect(hash === null || /^[0-9a-f]{32}$/.test(hash)).toBe(true);
    }), RUNS);
  });

  it('never throws for very deep values: null above MAX_RESULT_DEPTH, a hash up to it', () => {
    fc.assert(fc.property(method, fc.integer({ min: 0, max: 20_000 }), fc.boolean(), json, (m, depth, asObject, inner) => {
      const value = deep(depth, inner, asObject);
      const hash = fingerprint(m, value);
      if (exceedsJsonDepth(value, MAX_RESULT_DEPTH)) expect(hash).toBeNull();
      else expect(hash).toMatch(/^[0-9a-f]{32}$/);
    }), { numRuns: 50 });
  });

  it('ignores key order and is equal for equal values', () => {
    fc.assert(fc.property(method, json, (m, value) => {
      expect(fingerprint(m, reverseKeys(value))).toBe(fingerprint(m, value));
      expect(fingerprint(m, structuredClone(value))).toBe(fingerprint(m, value));
    }), RUNS);
  });

  it('differs for different non-hex strings (only hex case and quantity zeros are folded)', () => {
    const plain = fc.string().filter((s) => !/^0x/i.test(s));
    fc.assert(fc.property(method, plain, plain, (m, a, b) => {
      fc.pre(a !== b);
      expect(fingerprint(m, { field: [a] })).not.toBe(fingerprint(m, { field: [b] }));
    }), RUNS);
  });

  it('differs for hex data that differs by value (eth_call)', () => {
    fc.assert(fc.property(fc.bigInt({ min: 0n, max: 2n ** 64n }), fc.bigInt({ min: 0n, max: 2n ** 64n }), (a, b) => {
      fc.pre(a !== b);
      expect(fingerprint('eth_call', `0x${a.toString(16)}`)).not.toBe(fingerprint('eth_call', `0x${b.toString(16)}`));
    }), RUNS);
  });
});
