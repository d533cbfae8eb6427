import { describe, expect, it } from 'vitest';
import { findJsonProblem, formatJsonPath, jsonDepth, MAX_BODY_DEPTH, MAX_JSON_DEPTH } from '../../src/domain/json-bounds';

/** `levels` nested arrays around `inner`, built without recursion. */
function nestedArrays(levels: number, inner: unknown = 1): unknown {
  let value = inner;
  for (let i = 0; i < levels; i++) value = [value];
  return value;
}

function nestedObjects(levels: number, key = 'a', inner: unknown = 1): unknown {
  let value = inner;
  for (let i = 0; i < levels; i++) value = { [key]: value };
  return value;
}

describe('jsonDepth', () => {
  it.each([
    ['a number', 1, 0],
    ['a string', 'x', 0],
    ['null', null, 0],
    ['an empty array', [], 1],
    ['an empty object', {}, 1],
    ['[[1]]', [[1]], 2],
    ['an object in an array', [{ a: 1 }], 2],
    ['the deepest branch counts', [1, [2, [3]], [4]], 3],
    ['objects and arrays mixed', { a: [{ b: [] }] }, 4],
    ['32 levels', nestedArrays(32), 32],
  ])('%s', (_name, value, depth) => {
    expect(jsonDepth(value)).toBe(depth);
  });

  it.each([
    ['within the cap', nestedArrays(5), 5, 5],
    ['one over the cap', nestedArrays(6), 5, 6],
    ['far over the cap stops at cap + 1', nestedArrays(10_000), 5, 6],
  ])('stopAbove: %s', (_name, value, stopAbove, depth) => {
    expect(jsonDepth(value, stopAbove)).toBe(depth);
  });

  it('walks 200,000 levels without recursing (a recursive walk overflows the stack long before)', () => {
    expect(jsonDepth(nestedArrays(200_000))).toBe(200_000);
    expect(jsonDepth(nestedObjects(200_000))).toBe(200_000);
  });

  it('terminates on a cyclic object when given a cap', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(jsonDepth(cyclic, MAX_JSON_DEPTH)).toBe(MAX_JSON_DEPTH + 1);
  });
});

describe('findJsonProblem', () => {
  it.each([
    ['a clean body', { name: 'x', list: [1, 'two', { three: null }] }, 4, null],
    ['a scalar', 'plain', 4, null],
    ['NUL in a top-level string', { name: 'a\u0000b' }, 4, { kind: 'nul', path: ['name'] }],
    ['NUL in a nested string', { a: [{ b: 'ok' }, { c: '\u0000' }] }, 4, { kind: 'nul', path: ['a', 1, 'c'] }],
    ['NUL in a key', { meta: { 'k\u0000': 1 } }, 4, { kind: 'nul', path: ['meta', 'k\u0000'] }],
    ['NUL in a key whose value is clean', { 'x\u0000y': 'clean' }, 4, { kind: 'nul', path: ['x\u0000y'] }],
    ['NUL in a root string', '\u0000', 4, { kind: 'nul', path: [] }],
    ['the first problem in document order', { a: 'ok', b: ['\u0000'], c: '\u0000' }, 4, { kind: 'nul', path: ['b', 0] }],
    ['a key before its own deep value', { 'k\u0000': nestedArrays(10) }, 4, { kind: 'nul', path: ['k\u0000'] }],
    ['depth exactly at the cap', { a: { b: { c: [] } } }, 4, null],
    ['one level over the cap', { a: { b: { c: [[]] } } }, 4, { kind: 'too_deep', path: ['a', 'b', 'c', 0] }],
    ['a deep array', nestedArrays(100_000), MAX_BODY_DEPTH, { kind: 'too_deep', path: Array(MAX_BODY_DEPTH).fill(0) }],
    ['a cap of 0 allows only scalars', [], 0, { kind: 'too_deep', path: [] }],
    ['a lone high surrogate', { a: ['x\ud800'] }, 4, { kind: 'lone_surrogate', path: ['a', 0] }],
    ['a lone low surrogate in a key', { '\udc00': 1 }, 4, { kind: 'lone_surrogate', path: ['\udc00'] }],
    ['a reversed pair is two lone surrogates', { a: '\udc00\ud800' }, 4, { kind: 'lone_surrogate', path: ['a'] }],
    ['a well-formed pair is fine', { a: '\u{1F600}', '\u{1F601}': 'ok' }, 4, null],
  ])('%s', (_name, value, maxDepth, problem) => {
    expect(findJsonProblem(value, maxDepth)).toEqual(problem);
  });

  it('walks 200,000 levels without recursing', () => {
    expect(findJsonProblem(nestedObjects(200_000), 200_001)).toBeNull();
  });
});

describe('formatJsonPath', () => {
  it.each([
    ['a dotted path with indices', ['config', 'workload', 'methods', 0, 'params'], undefined, 'config.workload.methods.0.params'],
    ['under a prefix', ['k'], 'metadata', 'metadata.k'],
    ['the prefix alone for an empty path', [], 'query', 'query'],
    ['an empty path without prefix', [], undefined, ''],
    ['a NUL in a key is escaped, not echoed', ['k\u0000ey'], undefined, 'k\\u0000ey'],
    ['other control characters too', ['a\nb\u007f'], undefined, 'a\\u000ab\\u007f'],
    ['a lone surrogate is escaped, a pair kept', ['\ud800-\u{1F600}'], undefined, '\\ud800-\u{1F600}'],
    ['a long key is cut', ['x'.repeat(100)], undefined, `${'x'.repeat(64)}…`],
    ['a long path is cut', Array(20).fill('a'), undefined, `${Array(12).fill('a').join('.')}.…`],
  ])('%s', (_name, path, prefix, formatted) => {
    expect(formatJsonPath(path as (string | number)[], prefix)).toBe(formatted);
  });
});
