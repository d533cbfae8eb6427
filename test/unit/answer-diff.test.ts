import { CHAINS } from '../../src/chains/registry';
import { describe, expect, it } from 'vitest';
import { answerDifferences, boundedDifferences, MAX_PATH_CHARS, MAX_VALUE_CHARS, scalarAnswer, showValue } from '../../src/domain/answer-diff';

describe('answerDifferences: where two answers part', () => {
  it.each([
    { name: 'a quantity', method: 'eth_chainId', a: '0x2', b: '0x1', expected: [{ path: '$', candidate: '"0x2"', reference: '"0x1"' }] },
    {
      name: 'one field of a block, the rest equal after normalisation (hex case, leading zeros of quantities, key order)',
      method: 'eth_getBlockByNumber',
      a: { number: '0x0010', hash: '0xABC', gasUsed: '0x5', parentHash: '0x1' },
      b: { parentHash: '0x1', gasUsed: '0x6', hash: '0xabc', number: '0x10' },
      expected: [{ path: '$.gasUsed', candidate: '"0x5"', reference: '"0x6"' }],
    },
    {
      name: 'an element missing from an array, and a nested field',
      method: 'eth_getLogs',
      a: [{ logIndex: '0x0', blockNumber: '0x1', data: '0x01', topics: ['0xa'] }],
      b: [
        { logIndex: '0x0', blockNumber: '0x1', data: '0x01', topics: ['0xb'] },
        { logIndex: '0x1', blockNumber: '0x1', data: '0x02', topics: [] },
      ],
      expected: [
        { path: '$[0].topics[0]', candidate: '"0xa"', reference: '"0xb"' },
        { path: '$[1]', candidate: '(absent)', reference: '{"blockNumber":"0x1","data":"0x02","logIndex":"0x1","topics":[]}' },
      ],
    },
    {
      name: 'an ignored field (totalDifficulty of a block) is no difference',
      method: 'eth_getBlockByHash',
      a: { parentHash: '0x1', totalDifficulty: '0x5' },
      b: { parentHash: '0x1' },
      expected: [],
    },
    { name: 'a key only one side has', method: 'eth_syncing', a: { a: 1 }, b: { a: 1, 'odd key': null }, expected: [{ path: '$["odd key"]', candidate: '(absent)', reference: 'null' }] },
    { name: 'a type change', method: 'eth_call', a: '0x', b: null, expected: [{ path: '$', candidate: '"0x"', reference: 'null' }] },
  ])('$name', ({ method, a, b, expected }) => {
    expect(answerDifferences(CHAINS.evm.normalize, method, a, b)).toEqual({ differences: expected, more: false });
  });

  it('lists at most three paths and says there are more', () => {
    const a = { a: 1, b: 2, c: 3, d: 4, e: 5 };
    const b = { a: 0, b: 0, c: 0, d: 0, e: 5 };
    expect(answerDifferences(CHAINS.evm.normalize, 'x', a, b)).toEqual({
      differences: [
        { path: '$.a', candidate: '1', reference: '0' },
        { path: '$.b', candidate: '2', reference: '0' },
        { path: '$.c', candidate: '3', reference: '0' },
      ],
      more: true,
    });
  });

  it('truncates long values and redacts URLs (userinfo, path and query are where keys live)', () => {
    const long = showValue('0x'.padEnd(400, 'f'));
    expect(long).toHaveLength(MAX_VALUE_CHARS);
    expect(long.endsWith('…')).toBe(true);
    expect(showValue({ url: 'https://user:secret@rpc.example.com/v2/abcdef0123456789?key=k3y' })).toBe('{"url":"https://rpc.example.com/****"}');
    expect(showValue(['wss://node.example:8546/ws/KEY'])).toBe('["wss://node.example:8546/****"]');
  });

  it('walks a deep answer without recursion and gives the whole answers at $ when too deep to normalise', () => {
    let deep: unknown = 1;
    for (let i = 0; i < 10_000; i++) deep = [deep];
    const diff = answerDifferences(CHAINS.evm.normalize, 'x', deep, 2);
    expect(diff.differences).toHaveLength(1);
    expect(diff.differences[0]!.path).toBe('$');
    expect(diff.differences[0]!.reference).toBe('2');
  });
});

describe('a huge differing answer stays a few hundred bytes of differences', () => {
  it('cuts keys and paths a node chose: four 1 MB keys are three short paths and "more"', () => {
    const huge = (c: string) => c.repeat(1_000_000);
    const candidate = { [huge('a')]: 1, [huge('b')]: 2, [huge('c')]: 3, [`${huge('d')} odd`]: 4 };
    const diff = answerDifferences(CHAINS.evm.normalize, 'eth_syncing', candidate, {});
    expect(diff.more).toBe(true);
    expect(diff.differences.map((d) => d.path)).toEqual([`$.${'a'.repeat(47)}…`, `$.${'b'.repeat(47)}…`, `$.${'c'.repeat(47)}…`]);
    expect(JSON.stringify(diff).length).toBeLessThan(600);
    // A key that needs quoting is cut before it is quoted.
    expect(answerDifferences(CHAINS.evm.normalize, 'eth_syncing', { [`${huge('d')} odd`]: 4 }, {}).differences[0]!.path).toBe(`$["${'d'.repeat(47)}…"]`);
  });

  it('cuts a deep path to MAX_PATH_CHARS', () => {
    const nest = (depth: number, leaf: unknown): unknown => (depth === 0 ? leaf : [nest(depth - 1, leaf)]);
    const diff = answerDifferences(CHAINS.evm.normalize, 'eth_call', nest(60, 1), nest(60, 2));
    expect(diff.differences).toHaveLength(1);
    expect(diff.differences[0]!.path).toHaveLength(MAX_PATH_CHARS);
    expect(diff.differences[0]!.path.endsWith('…')).toBe(true);
  });

  it('bounds differences stored before paths were cut', () => {
    const stored = Array.from({ length: 5 }, (_, i) => ({ path: `$.${String(i).repeat(1_000_000)}`, candidate: 'x'.repeat(1_000_000), reference: '1' }));
    const bounded = boundedDifferences(stored);
    expect(bounded).toHaveLength(3);
    for (const d of bounded) {
      expect(d.path.length).toBeLessThanOrEqual(MAX_PATH_CHARS);
      expect(d.candidate.length).toBeLessThanOrEqual(MAX_VALUE_CHARS);
    }
  });
});

describe('scalarAnswer', () => {
  it('keeps a scalar result as shown (bounded, URLs redacted) and nothing of an object or array', () => {
    expect(scalarAnswer('0x1a')).toBe('"0x1a"');
    expect(scalarAnswer(5)).toBe('5');
    expect(scalarAnswer(false)).toBe('false');
    expect(scalarAnswer(null)).toBe('null');
    const long = scalarAnswer('f'.repeat(500))!;
    expect(long).toHaveLength(MAX_VALUE_CHARS);
    expect(long.endsWith('…')).toBe(true);
    expect(scalarAnswer('https://user:key@node.example/v2/secret')).toBe('"https://node.example/****"');
    expect(scalarAnswer({ a: 1 })).toBeNull();
    expect(scalarAnswer(['0x1'])).toBeNull();
  });
});
