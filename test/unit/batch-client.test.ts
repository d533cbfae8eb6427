import { createServer, type Server } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { CHAINS } from '../../src/chains/registry';
import { createBatchClient } from '../../src/probe/batch-client';
import { classifyResponse, INVALID_REASONS } from '../../src/probe/classify-response';
import { createJsonRpcClient, type CallResult, type JsonRpcClient } from '../../src/probe/json-rpc-client';
import { probeRange } from '../../src/probe/probe-range';
import { BatchUnsupportedError, transportFor } from '../../src/probe/transports';
import type { PlannedCall } from '../../src/domain/workload';

type Element = { jsonrpc: string; id: number; method: string; params: unknown[] };
/** How the loopback node answers one batch request: a status and a body (any JSON, or raw text). */
type Answer = (batch: Element[]) => { status: number; body: unknown };

const okFor = (e: Element) => ({ jsonrpc: '2.0', id: e.id, result: `0x${(e.id + 16).toString(16)}` });

/** A loopback node that reads each request as a JSON-RPC batch and records what it got. */
async function startBatchNode(answer: Answer): Promise<{ url: string; batches: Element[][]; close(): Promise<void> }> {
  const batches: Element[][] = [];
  const server: Server = createServer((req, res) => {
    let text = '';
    req.on('data', (chunk: Buffer) => (text += chunk.toString()));
    req.on('end', () => {
      const batch = JSON.parse(text) as Element[];
      batches.push(batch);
      const { status, body } = answer(batch);
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(typeof body === 'string' ? body : JSON.stringify(body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    batches,
    close: () => new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

const call = (seq: number): PlannedCall => ({ seq, method: 'eth_blockNumber', params: [] });
/** What a single call answered with `result` would be fingerprinted as. */
const hashOf = (id: number) => classifyResponse(CHAINS.evm, 200, JSON.stringify(okFor({ id } as Element)), 'eth_blockNumber').responseHash;

describe('JSON-RPC batches over HTTP', () => {
  const open: { close(): Promise<void> }[] = [];
  afterEach(async () => {
    for (const o of open.splice(0).reverse()) await o.close();
  });

  async function setup(answer: Answer, batchSize = 4) {
    const node = await startBatchNode(answer);
    open.push(node);
    const http = createJsonRpcClient({ url: node.url, headers: {}, timeoutMs: 2_000 }, { connections: 2, allowPrivateTargets: true, answers: CHAINS.evm });
    const client = createBatchClient(http, { batchSize, answers: CHAINS.evm });
    open.push(client);
    return { node, client };
  }

  const callAll = (client: JsonRpcClient, seqs: number[]): Promise<CallResult[]> => Promise.all(seqs.map((s) => client.call(call(s))));

  it('sends the calls of one turn as one array, up to batch_size per request, each call its own sample', async () => {
    const { node, client } = await setup((batch) => ({ status: 200, body: batch.map(okFor) }), 4);
    const results = await callAll(client, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(node.batches.map((b) => b.map((e) => e.id))).toEqual([[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]);
    expect(node.batches[0]![0]).toEqual({ jsonrpc: '2.0', id: 0, method: 'eth_blockNumber', params: [] });
    expect(results.map((r) => [r.seq, r.outcome, r.httpStatus])).toEqual(Array.from({ length: 10 }, (_, i) => [i, 'ok', 200]));
    expect(results.map((r) => r.responseHash)).toEqual(Array.from({ length: 10 }, (_, i) => hashOf(i)));
    // Members of a batch share its latency.
    expect(new Set(results.slice(0, 4).map((r) => r.latencyUs)).size).toBe(1);
  });

  it('matches elements by id: reordered answers land on their own calls', async () => {
    const { client } = await setup((batch) => ({ status: 200, body: batch.map(okFor).reverse() }));
    const results = await callAll(client, [10, 11, 12, 13]);
    expect(results.map((r) => [r.seq, r.outcome, r.responseHash])).toEqual([10, 11, 12, 13].map((s) => [s, 'ok', hashOf(s)]));
  });

  it('a missing element is invalid_response for that call only; a duplicate and an unknown id are ignored', async () => {
    const { client } = await setup((batch) => ({
      status: 200,
      body: [
        okFor(batch[0]!),
        // A second answer for the same id (an error) does not replace the first.
        { jsonrpc: '2.0', id: batch[0]!.id, error: { code: -32000, message: 'dup' } },
        { jsonrpc: '2.0', id: 999, result: '0x1' },
        { jsonrpc: '2.0', id: batch[2]!.id, error: { code: -32601, message: 'no such method' } },
        okFor(batch[3]!),
      ],
    }));
    const results = await callAll(client, [0, 1, 2, 3]);
    expect(results.map((r) => [r.outcome, r.rpcErrorCode, r.reason])).toEqual([
      ['ok', null, null],
      ['invalid_response', null, INVALID_REASONS.notInBatch],
      ['rpc_error', -32601, null],
      ['ok', null, null],
    ]);
  });

  it('a batch refused as a whole: every member gets that outcome (a single -32600 error, HTTP 413, a non-array answer, not JSON)', async () => {
    const cases: [Answer, [string, number | null, number | null, string | null]][] = [
      [() => ({ status: 200, body: { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'batch too large' } } }), ['rpc_error', -32600, 200, null]],
      [() => ({ status: 413, body: 'Request Entity Too Large' }), ['http_error', null, 413, null]],
      [(batch) => ({ status: 200, body: okFor(batch[0]!) }), ['invalid_response', null, 200, INVALID_REASONS.notJsonRpc]],
      [() => ({ status: 200, body: '[{"jsonrpc":"2.0",' }), ['invalid_response', null, 200, INVALID_REASONS.notJson]],
    ];
    for (const [answer, expected] of cases) {
      const { client } = await setup(answer, 3);
      const results = await callAll(client, [0, 1, 2]);
      expect(results.map((r) => [r.outcome, r.rpcErrorCode, r.httpStatus, r.reason])).toEqual([expected, expected, expected]);
    }
  });

  it("geth's refusal — one -32600 element carrying the first call's id — refuses every member; one element of another code does not", async () => {
    const tooLarge = (batch: Element[]) => ({ status: 200, body: [{ jsonrpc: '2.0', id: batch[0]!.id, error: { code: -32600, message: 'batch too large' } }] });
    const geth = await setup(tooLarge, 3);
    const refusedAll = await callAll(geth.client, [0, 1, 2]);
    expect(refusedAll.map((r) => [r.outcome, r.rpcErrorCode, r.httpStatus])).toEqual(Array.from({ length: 3 }, () => ['rpc_error', -32600, 200]));

    const other = await setup((batch) => ({ status: 200, body: [{ jsonrpc: '2.0', id: batch[0]!.id, error: { code: -32000, message: 'execution reverted' } }] }), 3);
    const oneError = await callAll(other.client, [0, 1, 2]);
    expect(oneError.map((r) => [r.outcome, r.rpcErrorCode, r.reason])).toEqual([
      ['rpc_error', -32000, null],
      ['invalid_response', null, INVALID_REASONS.notInBatch],
      ['invalid_response', null, INVALID_REASONS.notInBatch],
    ]);
    expect(await other.client.batchLimit!()).toBeNull();
  });

  it('a batch refused for its size makes the client bisect for the limit with a few extra batches (negative ids, not results)', async () => {
    // Answers up to 7 calls; more get HTTP 413, as a proxy's body limit does.
    const { node, client } = await setup((batch) => (batch.length > 7 ? { status: 413, body: 'Payload Too Large' } : { status: 200, body: batch.map(okFor) }), 10);
    const results = await callAll(client, Array.from({ length: 10 }, (_, i) => i));
    expect(results.every((r) => r.outcome === 'http_error' && r.httpStatus === 413)).toBe(true);
    expect(await client.batchLimit!()).toEqual({
      max_accepted: 7,
      min_refused: 8,
      limit: 7,
      refused_with: { outcome: 'http_error', rpc_error_code: null, http_status: 413 },
      probes: 3,
    });
    const probes = node.batches.slice(1);
    // Between 0 and 10: 5 answered, 7 answered, 8 refused.
    expect(probes.map((b) => b.length)).toEqual([5, 7, 8]);
    expect(probes.flat().every((e) => e.id < 0 && e.method === 'eth_blockNumber')).toBe(true);
    // Found once per client: a second refused batch sends no more probes.
    await callAll(client, Array.from({ length: 10 }, (_, i) => 10 + i));
    expect(node.batches).toHaveLength(5);
  });

  it('the search stops at an answer that says nothing about size (a 429), reporting the bounds it has', async () => {
    const { node, client } = await setup((batch) =>
      batch[0]!.id < 0 ? { status: 429, body: 'slow down' } : { status: 200, body: { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'batch too large' } } },
    4);
    await callAll(client, [0, 1, 2, 3]);
    expect(await client.batchLimit!()).toEqual({
      max_accepted: null,
      min_refused: 4,
      limit: null,
      refused_with: { outcome: 'rpc_error', rpc_error_code: -32600, http_status: 200 },
      probes: 1,
    });
    expect(node.batches.map((b) => b.length)).toEqual([4, 2]);
  });

  it('a result nested too deep is refused per element, as for a single call', async () => {
    // Built as text: the test's own JSON.stringify would overflow the stack on it.
    const deep = `${'['.repeat(10_000)}1${']'.repeat(10_000)}`;
    const { client } = await setup((batch) => ({ status: 200, body: '[' + [JSON.stringify(okFor(batch[0]!)), `{"jsonrpc":"2.0","id":${batch[1]!.id},"result":${deep}}`].join(',') + ']' }), 2);
    const results = await callAll(client, [0, 1]);
    expect(results.map((r) => [r.outcome, r.reason])).toEqual([['ok', null], ['invalid_response', INVALID_REASONS.tooDeep]]);
  });

  it('a closed loop keeps concurrency batches in flight, every seq once', async () => {
    const { node, client } = await setup((batch) => ({ status: 200, body: batch.map(okFor) }), 5);
    const { results, nextSeq } = await probeRange({ client, plan: call, from: 0, to: 23, concurrency: 1, batchSize: 5 });
    expect(nextSeq).toBe(23);
    expect(results.map((r) => r.seq)).toEqual(Array.from({ length: 23 }, (_, i) => i));
    expect(results.every((r) => r.outcome === 'ok')).toBe(true);
    expect(node.batches.map((b) => b.length)).toEqual([5, 5, 5, 5, 3]);
  });

  it('an open loop sends each batch at its first member\'s instant', async () => {
    const { node, client } = await setup((batch) => ({ status: 200, body: batch.map(okFor) }), 5);
    const { results } = await probeRange({ client, plan: call, from: 0, to: 20, concurrency: 1, batchSize: 5, ratePerSecond: 100 });
    expect(results.map((r) => r.seq)).toEqual(Array.from({ length: 20 }, (_, i) => i));
    expect(node.batches.map((b) => b.map((e) => e.id))).toEqual([0, 5, 10, 15].map((s) => [s, s + 1, s + 2, s + 3, s + 4]));
    // Batches due at 0, 50, 100 and 150 ms; every member of a batch is sent with its first: one
    // send lag per batch, against the first member's instant, and no batch sent early (the loop
    // sends at most 1 ms ahead). How late is the machine's business, not asserted.
    for (let first = 0; first < 20; first += 5) {
      const lags = new Set(results.slice(first, first + 5).map((r) => r.sendLagUs));
      expect(lags.size).toBe(1);
      expect([...lags][0]).toBeGreaterThanOrEqual(-1_000);
    }
  });

  it('refuses batches for a JSON-RPC 1.0 family', () => {
    const open = transportFor('json-rpc-http');
    expect(() => open({ addresses: { http: 'http://127.0.0.1:1/' }, headers: {}, timeoutMs: 1_000 }, { connections: 1, allowPrivateTargets: true, answers: CHAINS.bitcoin, batchSize: 10 })).toThrow(
      BatchUnsupportedError,
    );
  });
});
