import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { exceedsJsonDepth } from '../../src/domain/canonical-json';
import { findJsonProblem, formatJsonPath, MAX_BODY_DEPTH, MAX_BODY_VALUES, MAX_JSON_DEPTH } from '../../src/domain/json-bounds';

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

describe('free-form fields nest at most MAX_JSON_DEPTH levels (exceedsJsonDepth, shared with the probe)', () => {
  it.each([
    ['a number', 1, false],
    ['an empty array (one level)', [], false],
    ['32 nested arrays', nestedArrays(32), false],
    ['32 nested objects', nestedObjects(32), false],
    ['33 nested arrays', nestedArrays(33), true],
    ['a deep branch beside shallow ones', [1, { a: 2 }, nestedArrays(32)], true],
    ['200,000 levels, walked without recursing', nestedArrays(200_000), true],
  ])('%s', (_name, value, tooDeep) => {
    expect(exceedsJsonDepth(value, MAX_JSON_DEPTH)).toBe(tooDeep);
  });

  it('keeps whole bodies (MAX_BODY_DEPTH) room for a field at the cap under a few levels of structure', () => {
    expect(MAX_BODY_DEPTH).toBeGreaterThanOrEqual(MAX_JSON_DEPTH + 'config.workload.methods.0'.split('.').length);
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

  // Every value counts (the root, containers, scalars); keys do not. Past the cap the walk stops.
  it.each([
    ['an array exactly at the cap', Array(9).fill(0), 10, null],
    ['one value over the cap', Array(10).fill(0), 10, { kind: 'too_many_values', path: [] }],
    ['containers count too', [[], [], [[]], {}], 6, null],
    ['containers count too, one over', [[], [], [[]], {}, {}], 6, { kind: 'too_many_values', path: [] }],
    ['object fields count, keys do not', { a: 1, b: { c: 2 } }, 4, null],
    ['object fields count, one over', { a: 1, b: { c: 2, d: 3 } }, 4, { kind: 'too_many_values', path: [] }],
    ['a problem met before the cap is reported as itself', ['\u0000', ...Array(20).fill(0)], 10, { kind: 'nul', path: [0] }],
    ['a scalar root is one value', 'plain', 1, null],
  ])('value cap: %s', (_name, value, maxValues, problem) => {
    expect(findJsonProblem(value, MAX_BODY_DEPTH, maxValues)).toEqual(problem);
  });

  it('stops a body of MAX_BODY_VALUES + 1 numbers, and passes MAX_BODY_VALUES', () => {
    expect(findJsonProblem(Array(MAX_BODY_VALUES - 1).fill(0), MAX_BODY_DEPTH, MAX_BODY_VALUES)).toBeNull();
    expect(findJsonProblem({ a: Array(MAX_BODY_VALUES).fill(0) }, MAX_BODY_DEPTH, MAX_BODY_VALUES)).toEqual({ kind: 'too_many_values', path: [] });
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

describe('findJsonProblem, properties', () => {
  // Strings of any UTF-16 code units, weighted so NULs, both surrogate halves (alone or paired)
  // and backslashes turn up often, in values and in keys.
  const codeUnit = fc.oneof(
    fc.constantFrom('\u0000', '\ud83d', '\ude00', '\\', 'u', 'a'),
    fc.integer({ min: 0, max: 0xffff }).map((code) => String.fromCharCode(code)),
  );
  const text = fc.string({ unit: codeUnit, maxLength: 6 });
  const json = fc.letrec((tie) => ({
    value: fc.oneof(
      { depthSize: 'small' },
      fc.constant(null),
      fc.boolean(),
      fc.integer(),
      text,
      fc.array(tie('value'), { maxLength: 4 }),
      fc.dictionary(text, tie('value'), { maxKeys: 4 }),
    ),
  })).value;

  /** JSON.stringify escapes exactly NUL and lone surrogates as \\u0000 / \\udXXX (an escaped backslash before a "u" does not count). */
  const hasBadCodeUnit = (value: unknown) => /(?<!\\)(?:\\\\)*\\u(?:0000|d[89a-f][0-9a-f]{2})/i.test(JSON.stringify(value));

  const at = (value: unknown, path: (string | number)[]) =>
    path.reduce<unknown>((node, key) => (node as Record<string | number, unknown>)[key], value);

  it('finds a problem exactly when a string or key holds a NUL or a lone surrogate, and points at it', () => {
    fc.assert(
      fc.property(json, (value) => {
        const problem = findJsonProblem(value, 1_000);
        expect(problem !== null).toBe(hasBadCodeUnit(value));
        if (!problem) return;
        const key = problem.path[problem.path.length - 1];
        const named = at(value, problem.path);
        const keyIsBad = typeof key === 'string' && hasBadCodeUnit(key);
        const valueIsBad = typeof named === 'string' && hasBadCodeUnit(named);
        expect(keyIsBad || valueIsBad).toBe(true);
      }),
      { numRuns: 300 },
    );
  });
});
