import { describe, expect, it } from 'vitest';
import {
  ANSWER_SHAPE_CAPS,
  leadingMessageId,
  MAX_ANSWER_TOKENS,
  parsedAnswersHeapPlan,
  scanJsonShape,
  type JsonShapeCaps,
} from '../../src/probe/json-shape-budget';

const caps = (maxTokens: number, maxNesting = 10): JsonShapeCaps => ({ maxTokens, maxNesting });
const answer = (result: string) => `{"jsonrpc":"2.0","id":7,"result":${result}}`;

describe('scanJsonShape', () => {
  it.each([
    // tokens = 1 + opening brackets + commas + colons outside strings
    { text: '0', caps: caps(1), verdict: 'ok' },
    { text: '[]', caps: caps(1), verdict: 'too_many_tokens' },
    { text: '[]', caps: caps(2), verdict: 'ok' },
    { text: '[1,2,3]', caps: caps(4), verdict: 'ok' },
    { text: '[1,2,3]', caps: caps(3), verdict: 'too_many_tokens' },
    { text: '{"a":1,"b":2}', caps: caps(5), verdict: 'ok' },
    { text: '{"a":1,"b":2}', caps: caps(4), verdict: 'too_many_tokens' },
    { text: '[{},{},{}]', caps: caps(7), verdict: 'ok' },
    { text: '[{},{},{}]', caps: caps(6), verdict: 'too_many_tokens' },
    // Brackets, commas and colons inside strings are text, escaped quotes included.
    { text: '["[,{:}]"]', caps: caps(2), verdict: 'ok' },
    { text: '["a\\"[,[,[,"]', caps: caps(2), verdict: 'ok' },
    { text: '["a\\\\",[]]', caps: caps(3), verdict: 'too_many_tokens' },
    { text: '"\\u005b,,,"', caps: caps(1), verdict: 'ok' },
    // Nesting
    { text: '[[[]]]', caps: caps(100, 3), verdict: 'ok' },
    { text: '[[[[]]]]', caps: caps(100, 3), verdict: 'too_deep' },
    { text: '[[],[],[]]', caps: caps(100, 2), verdict: 'ok' },
    { text: '{"a":{"b":{"c":{}}}}', caps: caps(100, 3), verdict: 'too_deep' },
    // Malformed text is counted all the same (JSON.parse refuses it afterwards).
    { text: '"open string [[[[', caps: caps(1, 1), verdict: 'ok' },
    { text: ']]]][', caps: caps(100, 1), verdict: 'ok' },
  ])('$text within $caps → $verdict', ({ text, caps: limit, verdict }) => {
    expect(scanJsonShape(text, limit)).toBe(verdict);
  });

  it('refuses 8 MiB of [{},…] (the H1 answer) and 4,000-deep nesting with the default caps, and stops early', () => {
    const dense = answer(`[${Array(2_800_000).fill('{}').join(',')}]`);
    expect(dense.length).toBeGreaterThan(8_000_000);
    expect(scanJsonShape(dense)).toBe('too_many_tokens');
    expect(scanJsonShape(answer('['.repeat(4_000) + ']'.repeat(4_000)))).toBe('too_deep');
  });

  it('admits an answer with a realistic block of 3,000 transactions, at the value cap and not past it', () => {
    const tx = (i: number) =>
      JSON.stringify({ hash: `0x${i.toString(16).padStart(64, '0')}`, from: `0x${'1'.repeat(40)}`, to: `0x${'2'.repeat(40)}`, value: '0x1', gas: '0x5208', input: '0x', nonce: `0x${i.toString(16)}`, v: '0x1', r: `0x${'3'.repeat(64)}`, s: `0x${'4'.repeat(64)}` });
    const block = answer(JSON.stringify({ number: '0x10', transactions: Array.from({ length: 3_000 }, (_, i) => JSON.parse(tx(i)) as unknown) }));
    expect(scanJsonShape(block)).toBe('ok');
    // [0,0,…]: 1 + the envelope's { and its 3 colons and 2 commas + [ + n − 1 commas = n + 7.
    const zeros = (n: number) => answer(`[${Array(n).fill('0').join(',')}]`);
    expect(scanJsonShape(zeros(MAX_ANSWER_TOKENS - 7))).toBe('ok');
    expect(scanJsonShape(zeros(MAX_ANSWER_TOKENS - 6))).toBe('too_many_tokens');
  });

  it('every value and key of what JSON.parse builds is counted: tokens ≥ values + keys', () => {
    const samples = ['[1,[2,{"a":[3,{}]}],"x",null]', '{"a":{"b":[[],[[]]]},"c":"d,e:f"}', answer('{"k":[true,false]}')];
    for (const text of samples) {
      let valuesAndKeys = 0;
      JSON.parse(text, function (key) {
        valuesAndKeys += key !== '' && !Array.isArray(this) ? 2 : 1;
        return undefined;
      });
      // A cap of one less than the values and keys is already passed.
      expect(scanJsonShape(text, caps(valuesAndKeys - 1, 100))).toBe('too_many_tokens');
    }
  });
});

describe('leadingMessageId', () => {
  it.each([
    { text: '{"jsonrpc":"2.0","id":42,"result":[{},{}]}', id: 42 },
    { text: '{ "id" : 7 , "result": []}', id: 7 },
    { text: '{"id":7}', id: 7 },
    { text: '{"result":{"id":5},"id":9,', id: 9 },
    { text: '{"result":"\\"id\\":5","id":3,', id: 3 },
    { text: '{"id":1.5,"result":[]}', id: null },
    { text: '{"id":"1","result":[]}', id: null },
    { text: '{"id":-1,"result":[]}', id: null },
    { text: '{"id":99999999999999999,"result":[]}', id: null },
    { text: `{"result":[${'0,'.repeat(300)}0],"id":1}`, id: null },
    { text: '[{"id":1}]', id: null },
  ])('$text → $id', ({ text, id }) => {
    expect(leadingMessageId(text)).toBe(id);
  });
});

describe('parsedAnswersHeapPlan', () => {
  const MiB = 2 ** 20;
  it("fits the worker's default heap (--max-old-space-size=160: a 208 MiB V8 limit) and refuses a smaller one", () => {
    expect(parsedAnswersHeapPlan(208 * MiB, 8 * MiB, ANSWER_SHAPE_CAPS)).toMatchObject({ fits: true });
    expect(parsedAnswersHeapPlan(160 * MiB, 8 * MiB, ANSWER_SHAPE_CAPS)).toMatchObject({ fits: false });
  });
});
