import { describe, expect, it } from 'vitest';
import { fingerprint } from '../../src/chains/evm/answers';
import { CHAINS } from '../../src/chains/registry';
import { canonicalJson, MAX_RESULT_DEPTH } from '../../src/domain/canonical-json';
import { classifyResponse, INVALID_REASONS } from '../../src/probe/classify-response';
import { MAX_ANSWER_TOKENS } from '../../src/probe/json-shape-budget';

const HASH = /^[0-9a-f]{32}$/;
const rpc = (body: Record<string, unknown>) => JSON.stringify({ jsonrpc: '2.0', id: 1, ...body });
/** A method whose result is neither a quantity nor logs: only key order and hex case are normalised. */
const METHOD = 'eth_getTransactionByHash';

describe('classifyResponse', () => {
  it.each([
    { name: 'a string result', body: rpc({ result: '0x1234' }) },
    { name: 'an object result', body: rpc({ result: { number: '0x10', hash: '0xabc' } }) },
    { name: 'an array result', body: rpc({ result: ['0x1', '0x2'] }) },
    { name: 'a null result (e.g. unknown transaction)', body: rpc({ result: null }) },
    { name: 'a false result', body: rpc({ result: false }) },
    { name: 'a result beside "error": null', body: rpc({ result: '0x1', error: null }) },
  ])('200 with $name → ok with a response hash', ({ body }) => {
    const classified = classifyResponse(CHAINS.evm, 200, body, METHOD);
    expect(classified.outcome).toBe('ok');
    expect(classified.rpcErrorCode).toBeNull();
    expect(classified.responseHash).toMatch(HASH);
  });

  it.each([200, 201, 299])('any 2xx (%i) with a valid JSON-RPC result is ok', (status) => {
    expect(classifyResponse(CHAINS.evm, status, rpc({ result: '0x1' }), METHOD).outcome).toBe('ok');
  });

  it.each([
    { name: 'method not found', error: { code: -32601, message: 'the method does not exist' }, code: -32601 },
    { name: 'server error', error: { code: -32000, message: 'header not found' }, code: -32000 },
    { name: 'a positive code', error: { code: 3, message: 'execution reverted', data: '0x08c379a0' }, code: 3 },
    { name: 'a fractional code', error: { code: 1.5, message: 'odd' }, code: null },
    { name: 'a string code', error: { code: '-32000', message: 'odd' }, code: null },
    { name: 'no code', error: { message: 'odd' }, code: null },
    { name: 'an error that is a bare string', error: 'rate limited', code: null },
  ])('200 carrying a JSON-RPC error ($name) → rpc_error, never ok', ({ error, code }) => {
    expect(classifyResponse(CHAINS.evm, 200, rpc({ error }), METHOD)).toEqual({ outcome: 'rpc_error', rpcErrorCode: code, responseHash: null, reason: null });
  });

  it.each([
    { family: 'cometbft' as const, error: { code: -32603, message: 'Internal error', data: 'height 3 is not available, lowest height is 100' } },
    { family: 'solana' as const, error: { code: -32001, message: 'Block 3 cleaned up, does not exist on node. First available block: 100' } },
  ])('$family: an error saying the data is beyond the node\u2019s history → rpc_error with that reason (history depth)', ({ family, error }) => {
    expect(classifyResponse(CHAINS[family], 200, rpc({ error }), METHOD)).toEqual({ outcome: 'rpc_error', rpcErrorCode: error.code, responseHash: null, reason: "beyond the node's history" });
  });

  it('an error wins over a result in the same message', () => {
    const body = rpc({ result: '0x1', error: { code: -32005, message: 'limit exceeded' } });
    expect(classifyResponse(CHAINS.evm, 200, body, METHOD)).toEqual({ outcome: 'rpc_error', rpcErrorCode: -32005, responseHash: null, reason: null });
  });

  it.each([
    { status: 500, body: rpc({ result: '0x1' }) },
    { status: 502, body: '<html>Bad Gateway</html>' },
    { status: 503, body: '' },
    { status: 429, body: rpc({ error: { code: -32005, message: 'rate limited' } }) },
    { status: 404, body: 'not found' },
    { status: 400, body: rpc({ error: { code: -32700, message: 'parse error' } }) },
    // Redirects are not followed: a 3xx is a failed call whatever it points at.
    { status: 301, body: '' },
    { status: 302, body: rpc({ result: '0x1' }) },
    { status: 307, body: '' },
    { status: 101, body: '' },
  ])('HTTP $status → http_error', ({ status, body }) => {
    expect(classifyResponse(CHAINS.evm, status, body, METHOD)).toEqual({ outcome: 'http_error', rpcErrorCode: null, responseHash: null, reason: null });
  });

  it.each([
    { name: 'malformed JSON', body: '{"jsonrpc":"2.0","id":1,"result":' },
    { name: 'an empty body', body: '' },
    { name: 'HTML', body: '<html><body>maintenance</body></html>' },
    { name: 'a JSON array (batch) body', body: JSON.stringify([{ jsonrpc: '2.0', id: 1, result: '0x1' }]) },
    { name: 'a JSON string', body: '"0x1"' },
    { name: 'a JSON number', body: '42' },
    { name: 'JSON null', body: 'null' },
    { name: 'a missing jsonrpc member', body: JSON.stringify({ id: 1, result: '0x1' }) },
    { name: 'a wrong jsonrpc version', body: JSON.stringify({ jsonrpc: '1.0', id: 1, result: '0x1' }) },
    { name: 'a missing result', body: JSON.stringify({ jsonrpc: '2.0', id: 1 }) },
    { name: 'an empty object', body: '{}' },
  ])('200 with $name → invalid_response with a fixed reason', ({ body }) => {
    const classified = classifyResponse(CHAINS.evm, 200, body, METHOD);
    expect(classified).toMatchObject({ outcome: 'invalid_response', rpcErrorCode: null, responseHash: null });
    expect(Object.values(INVALID_REASONS)).toContain(classified.reason);
  });

  describe('answers too deep to compare (regression: a 4,000-deep result overflowed the stack)', () => {
    const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;
    const deepBody = (depth: number) => `{"jsonrpc":"2.0","id":1,"result":${nested(depth)}}`;

    it.each([
      { name: '4,000-deep array, fingerprinted', depth: 4_000, method: METHOD },
      { name: '4,000-deep array, quantity method', depth: 4_000, method: 'eth_getBalance' },
      { name: '4,000-deep array, log method', depth: 4_000, method: 'eth_getLogs' },
      { name: '100,000-deep array, fingerprinted', depth: 100_000, method: METHOD },
      { name: '4,000-deep array, not fingerprinted', depth: 4_000, method: null },
    ])('$name → invalid_response, never a throw', ({ depth, method }) => {
      const classified = classifyResponse(CHAINS.evm, 200, deepBody(depth), method);
      expect(classified.outcome).toBe('invalid_response');
      expect(classified.responseHash).toBeNull();
      expect(classified.reason).toBe(INVALID_REASONS.tooDeep);
    });

    it('a result exactly MAX_RESULT_DEPTH deep is still compared', () => {
      const classified = classifyResponse(CHAINS.evm, 200, deepBody(MAX_RESULT_DEPTH), METHOD);
      expect(classified.outcome).toBe('ok');
      expect(classified.responseHash).toMatch(HASH);
      expect(classifyResponse(CHAINS.evm, 200, deepBody(MAX_RESULT_DEPTH + 1), METHOD).reason).toBe(INVALID_REASONS.tooDeep);
    });
  });

  describe('answers too large to compare (review: 4,000,000 tiny values held the event loop for seconds)', () => {
    const zeros = (count: number) => `{"jsonrpc":"2.0","id":1,"result":[${new Array(count).fill(0).join(',')}]}`;

    it('an answer over the parse cap (MAX_ANSWER_TOKENS) is invalid_response before it is parsed, never fingerprinted', () => {
      // n zeros in the envelope are n + 7 tokens (json-shape-budget.test.ts).
      const classified = classifyResponse(CHAINS.evm, 200, zeros(MAX_ANSWER_TOKENS - 6), 'eth_getLogs');
      expect(classified).toEqual({ outcome: 'invalid_response', rpcErrorCode: null, responseHash: null, reason: INVALID_REASONS.tooDense });
      // The outcome does not depend on whether the run compares answers, nor on the envelope.
      expect(classifyResponse(CHAINS.evm, 200, zeros(MAX_ANSWER_TOKENS - 6), null).reason).toBe(INVALID_REASONS.tooDense);
      expect(classifyResponse(CHAINS.bitcoin, 200, zeros(MAX_ANSWER_TOKENS), null).reason).toBe(INVALID_REASONS.tooDense);
    });

    it('an answer at the parse cap is compared', () => {
      const classified = classifyResponse(CHAINS.evm, 200, zeros(MAX_ANSWER_TOKENS - 7), 'eth_getLogs');
      expect(classified.outcome).toBe('ok');
      expect(classified.responseHash).toMatch(HASH);
    });
  });

  describe('response hash', () => {
    const hashOf = (body: string, method = METHOD) => classifyResponse(CHAINS.evm, 200, body, method).responseHash;

    it.each([
      {
        name: 'object keys in another order',
        a: rpc({ result: { number: '0x10', hash: '0xabc', logs: [{ a: 1, b: 2 }] } }),
        b: rpc({ result: { logs: [{ b: 2, a: 1 }], hash: '0xabc', number: '0x10' } }),
      },
      { name: 'another id', a: JSON.stringify({ jsonrpc: '2.0', id: 1, result: '0x1' }), b: JSON.stringify({ jsonrpc: '2.0', id: 'abc', result: '0x1' }) },
      { name: 'other whitespace', a: '{"jsonrpc":"2.0","id":1,"result":{"a":1}}', b: '{ "jsonrpc": "2.0", "id": 1, "result": { "a": 1 } }' },
      { name: 'members around the result in another order', a: rpc({ result: '0x1' }), b: JSON.stringify({ result: '0x1', id: 1, jsonrpc: '2.0' }) },
    ])('is equal for equal results with $name', ({ a, b }) => {
      expect(hashOf(a)).toMatch(HASH);
      expect(hashOf(a)).toBe(hashOf(b));
    });

    it.each([
      { name: 'different values', a: '0x1', b: '0x2' },
      { name: 'array order', a: ['0x1', '0x2'], b: ['0x2', '0x1'] },
      { name: 'null against the string "null"', a: null, b: 'null' },
      { name: 'a number against its string', a: 1, b: '1' },
      { name: 'an extra member', a: { a: 1 }, b: { a: 1, b: null } },
      { name: 'a nested value', a: { block: { n: 1 } }, b: { block: { n: 2 } } },
    ])('differs for results with $name', ({ a, b }) => {
      expect(hashOf(rpc({ result: a }))).not.toBe(hashOf(rpc({ result: b })));
    });

    it.each([
      { method: 'eth_getBlockByNumber', result: { number: '0x10', hash: '0xAB', totalDifficulty: '0x1' } },
      { method: 'eth_getBalance', result: '0x0001' },
      { method: 'eth_getLogs', result: [{ logIndex: '0x1' }, { logIndex: '0x0' }] },
      { method: 'eth_call', result: '0x00ab' },
      { method: 'eth_getTransactionReceipt', result: null },
    ])('is the JSON-RPC-aware fingerprint of the $method result', ({ method, result }) => {
      expect(hashOf(rpc({ result }), method)).toBe(fingerprint(method, result));
    });

    it.each([
      { name: 'a quantity with leading zeros (eth_getBalance)', method: 'eth_getBalance', a: '0x0001', b: '0x1' },
      { name: 'a quantity in another case (eth_blockNumber)', method: 'eth_blockNumber', a: '0xAB', b: '0xab' },
      { name: 'hex data in another case (eth_getTransactionByHash)', method: 'eth_getTransactionByHash', a: { hash: '0xABCD' }, b: { hash: '0xabcd' } },
      { name: 'logs in another order (eth_getLogs)', method: 'eth_getLogs', a: [{ logIndex: '0x1' }, { logIndex: '0x0' }], b: [{ logIndex: '0x0' }, { logIndex: '0x1' }] },
      { name: 'totalDifficulty present or not (eth_getBlockByNumber)', method: 'eth_getBlockByNumber', a: { number: '0x1', totalDifficulty: '0x5' }, b: { number: '0x1' } },
    ])('is equal for semantically equal results: $name', ({ method, a, b }) => {
      expect(hashOf(rpc({ result: a }), method)).toBe(hashOf(rpc({ result: b }), method));
    });

    it('depends on the method: leading zeros of data (eth_call) matter, of a quantity do not', () => {
      expect(hashOf(rpc({ result: '0x0001' }), 'eth_call')).not.toBe(hashOf(rpc({ result: '0x1' }), 'eth_call'));
      expect(hashOf(rpc({ result: '0x0001' }), 'eth_getBalance')).toBe(hashOf(rpc({ result: '0x1' }), 'eth_getBalance'));
    });
  });
});

describe('canonicalJson', () => {
  it.each([
    { name: 'keys sorted', value: { b: 1, a: 2 }, expected: '{"a":2,"b":1}' },
    { name: 'nested keys sorted, array order kept', value: { z: [{ y: 1, x: 2 }, 3], a: null }, expected: '{"a":null,"z":[{"x":2,"y":1},3]}' },
    { name: 'a string', value: 'x"y', expected: '"x\\"y"' },
    { name: 'null', value: null, expected: 'null' },
    { name: 'an empty object', value: {}, expected: '{}' },
    { name: 'an empty array', value: [], expected: '[]' },
  ])('$name', ({ value, expected }) => {
    expect(canonicalJson(value)).toBe(expected);
  });
});
