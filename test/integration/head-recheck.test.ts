import { CHAINS } from '../../src/chains/registry';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createJsonRpcClient, type JsonRpcClient } from '../../src/probe/json-rpc-client';
import { recheck, recheckAll, type RecheckCall } from '../../src/probe/head-recheck';
import { answers, startFakeNode, type Behaviour, type FakeNode } from '../helpers/json-rpc-node';

/*
 * The re-send of a head-moved difference through the real probe client against loopback fake
 * nodes: how each pair of answers ends, and the time budget (no call started after it).
 */

const ADDRESS = '0x00000000000000000000000000000000000000aa';

describe('head re-check: one call to both sides, its outcome from their fingerprints', () => {
  const nodes: FakeNode[] = [];
  const clients: JsonRpcClient[] = [];
  let honest: JsonRpcClient;

  async function clientOf(behaviour: Behaviour, timeoutMs = 2_000, connections = 2): Promise<{ node: FakeNode; client: JsonRpcClient }> {
    const node = await startFakeNode(behaviour);
    const client = createJsonRpcClient({ url: node.url, headers: {}, timeoutMs }, { connections, allowPrivateTargets: true, answers: CHAINS.evm, fingerprintResults: true });
    nodes.push(node);
    clients.push(client);
    return { node, client };
  }

  beforeAll(async () => {
    honest = (await clientOf(answers.ok('0x0100'))).client;
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await Promise.all(nodes.map((n) => n.close()));
  });

  const call = (candidate: JsonRpcClient | null, reference: JsonRpcClient | null): RecheckCall => ({
    seq: 7,
    method: 'eth_getBalance',
    params: [ADDRESS, '0x36'],
    candidate,
    reference,
  });

  it.each([
    { name: 'equal by value (leading zeros) → resolved', candidate: answers.ok('0x100'), outcome: 'resolved', hashes: 'equal' },
    { name: 'a different balance → confirmed', candidate: answers.ok('0x200'), outcome: 'confirmed', hashes: 'different' },
    { name: 'a JSON-RPC error → failed', candidate: answers.rpcError(), outcome: 'failed', hashes: 'candidate null' },
    { name: 'an HTTP 503 → failed', candidate: answers.httpError(503), outcome: 'failed', hashes: 'candidate null' },
    { name: 'a reset connection → failed', candidate: answers.reset(), outcome: 'failed', hashes: 'candidate null' },
    { name: 'no answer within the timeout → failed', candidate: answers.delay(1_000), timeoutMs: 200, outcome: 'failed', hashes: 'candidate null' },
  ])('$name', async ({ candidate, timeoutMs, outcome, hashes }) => {
    const { node, client } = await clientOf(candidate, timeoutMs);
    const answer = await recheck(call(client, honest));
    expect(answer.outcome).toBe(outcome);
    expect(answer.referenceHash).toMatch(/^[0-9a-f]{32}$/);
    if (hashes === 'equal') expect(answer.candidateHash).toBe(answer.referenceHash);
    if (hashes === 'different') expect(answer.candidateHash).not.toBe(answer.referenceHash);
    if (hashes === 'candidate null') expect(answer.candidateHash).toBeNull();
    // The very call, pinned params included, was sent once.
    expect(node.requests.map((r) => [r.method, r.params])).toEqual([['eth_getBalance', [ADDRESS, '0x36']]]);
  });

  it('a side that could not be opened (refused address) fails the re-check without sending anything to the other', async () => {
    const { node, client } = await clientOf(answers.ok('0x100'));
    expect(await recheck(call(null, client))).toEqual({ outcome: 'failed', candidateHash: null, referenceHash: null });
    expect(await recheck(call(client, null))).toEqual({ outcome: 'failed', candidateHash: null, referenceHash: null });
    expect(node.requests).toHaveLength(0);
  });

  it('a refused connection is thrown by the client and is a failed re-check, not an exception', async () => {
    const refusing = createJsonRpcClient(
      { url: 'http://localhost:9/', headers: {}, timeoutMs: 1_000 },
      { connections: 1, allowPrivateTargets: false, answers: CHAINS.evm, fingerprintResults: true },
    );
    clients.push(refusing);
    const answer = await recheck(call(refusing, honest));
    expect(answer.outcome).toBe('failed');
    expect(answer.candidateHash).toBeNull();
  });

  it('recheckAll answers in order, at most `concurrency` at once, and starts nothing after its deadline', async () => {
    let inFlight = 0;
    let most = 0;
    const { node, client } = await clientOf(async (req, res) => {
      most = Math.max(most, ++inFlight);
      await new Promise((resolve) => setTimeout(resolve, 20));
      inFlight--;
      await answers.ok(req.count % 2 === 0 ? '0x200' : '0x100')(req, res);
    }, 2_000, 8);
    const calls = Array.from({ length: 6 }, () => call(client, honest));
    const all = await recheckAll(calls, 2);
    expect(all.every((a) => a !== undefined && a.outcome !== 'failed')).toBe(true);
    // The client could open 8 connections: the bound of 2 is recheckAll's.
    expect(most).toBe(2);
    expect(node.requests).toHaveLength(6);

    const late = await recheckAll(calls, 2, Date.now() - 1);
    expect(late).toEqual([undefined, undefined, undefined, undefined, undefined, undefined]);
    expect(node.requests).toHaveLength(6);
  });
});
