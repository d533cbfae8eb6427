import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHAINS, fingerprintAnswer, parseHead, planRequests } from '../../src/chains/registry';
import { PLAIN_HOOKS } from '../../src/chains/plain';
import type { ChainAdapter } from '../../src/chains/types';
import { PINNED_BLOCK_TEMPLATE } from '../../src/domain/workload';
import { createJsonRpcClient } from '../../src/probe/json-rpc-client';
import { toyHeadRead } from '../helpers/toy-chain';

/*
 * The probe client over loopback with a throwaway family registered beside EVM: a node that
 * speaks JSON-RPC 1.0 as Bitcoin Core < 28 does (every answer has result, error and id; an RPC
 * error comes with HTTP 500, an unknown method with 404). What is sent, how the answer is read and
 * how it is fingerprinted all come from the adapter the client is given.
 */
const toy: ChainAdapter = {
  ...PLAIN_HOOKS,
  ...CHAINS.evm,
  family: 'toy',
  envelope: 'json-rpc-1.0',
  head: toyHeadRead,
  renderPinned: (pinned) => pinned ?? -1,
  normalize: (_method, result) => (Array.isArray(result) ? [...result].map(String).sort() : result),
};

describe('a chain family’s envelope through the probe client', () => {
  let server: Server;
  let url: string;
  const seen: { jsonrpc: unknown; method: unknown; params: unknown }[] = [];
  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        const request = JSON.parse(body) as { jsonrpc: unknown; id: unknown; method: string; params: unknown[] };
        seen.push({ jsonrpc: request.jsonrpc, method: request.method, params: request.params });
        const reply = (status: number, payload: unknown) => {
          res.writeHead(status, { 'content-type': 'application/json' });
          res.end(JSON.stringify(payload));
        };
        if (request.method === 'getblockchaininfo') return reply(200, { result: { blocks: 840_000, bestblockhash: '00ab' }, error: null, id: request.id });
        if (request.method === 'listbanned') return reply(200, { result: ['b', 'a'], error: null, id: request.id });
        if (request.method === 'getblockhash') return reply(500, { result: null, error: { code: -8, message: 'Block height out of range' }, id: request.id });
        return reply(404, { result: null, error: { code: -32601, message: 'Method not found' }, id: request.id });
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  const clientFor = (chain: ChainAdapter) =>
    createJsonRpcClient({ url, headers: {}, timeoutMs: 2_000 }, { connections: 1, allowPrivateTargets: true, answers: chain, fingerprintResults: true });

  it('frames, reads and fingerprints under the registered family, and EVM reads the same bytes as no answer', async () => {
    const client = clientFor(toy);
    const evm = clientFor(CHAINS.evm);
    try {
      const head = parseHead(toy, await client.result(toy.head.method, toy.head.params));
      expect(head).toEqual({ number: 840_000n, hash: '00ab' });

      const plan = planRequests(toy, { methods: [{ method: 'getblockhash', params: [PINNED_BLOCK_TEMPLATE], weight: 1 }] }, 1, 839_990);
      const failed = await client.call(plan(0));
      expect(failed).toMatchObject({ outcome: 'rpc_error', httpStatus: 500, rpcErrorCode: -8 });
      expect(seen.at(-1)).toEqual({ jsonrpc: '1.0', method: 'getblockhash', params: [839_990] });

      expect(await client.call({ seq: 1, method: 'nosuchmethod', params: [] })).toMatchObject({ outcome: 'rpc_error', httpStatus: 404, rpcErrorCode: -32601 });
      const ok = await client.call({ seq: 2, method: 'listbanned', params: [] });
      expect(ok).toMatchObject({ outcome: 'ok', responseHash: fingerprintAnswer(toy, 'listbanned', ['a', 'b']) });

      expect(await evm.call({ seq: 3, method: 'listbanned', params: [] })).toMatchObject({ outcome: 'invalid_response', reason: 'not a JSON-RPC 2.0 response object' });
      expect(await evm.call({ seq: 4, method: 'getblockhash', params: [1] })).toMatchObject({ outcome: 'http_error', httpStatus: 500 });
      expect(seen.at(-1)).toMatchObject({ jsonrpc: '2.0' });
    } finally {
      await client.close();
      await evm.close();
    }
  });
});
