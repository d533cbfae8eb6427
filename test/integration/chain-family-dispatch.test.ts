import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHAINS, chainOfRun, fingerprintAnswer, needsPinnedBlock, parseHead, planRequests } from '../../src/chains/registry';
import { PLAIN_HOOKS } from '../../src/chains/plain';
import type { ChainAdapter, ChainRegistry } from '../../src/chains/types';
import { judgeCorrectness } from '../../src/domain/correctness';
import { PINNED_BLOCK_TEMPLATE, type PlannedCall } from '../../src/domain/workload';
import { createJsonRpcClient } from '../../src/probe/json-rpc-client';
import { tallyOfPairs, type Pair } from '../helpers/correctness-pairs';
import { startFakeNode, type FakeNode } from '../helpers/json-rpc-node';
import { toyHeadRead } from '../helpers/toy-chain';

/*
 * A throwaway family registered in a test-only registry, probed over loopback: two fake nodes
 * (candidate one block ahead of the reference) speak its JSON-RPC 1.0 dialect. Probing (the head
 * read, the planned requests and their params), pinning (the re-check's params), comparison
 * (fingerprints) and the verdict (the correctness tally) each go through the toy adapter the
 * registry returns for the run, and EVM's rules on the same answers judge differently.
 */
const toy: ChainAdapter = {
  ...PLAIN_HOOKS,
  family: 'toy',
  envelope: 'json-rpc-1.0',
  fastestHeadIntervalMs: 1_000,
  head: toyHeadRead,
  // Heights are plain numbers; -1 asks for the tip.
  renderPinned: (pinned) => pinned ?? -1,
  isHeadDependent: (method, params) => method === 'getblockstats' && Array.isArray(params) && params[0] === -1,
  pinForRecheck: (method, params, block) =>
    method === 'getblockstats' && Array.isArray(params) && params[0] === -1 ? [Number(block), ...params.slice(1)] : null,
  // Ban lists are sets of case-insensitive names: order and case carry no meaning.
  normalize: (_method, result) => (Array.isArray(result) ? result.map((v) => String(v).toLowerCase()).sort() : result),
  methodName: { pattern: /^[a-z]+$/, message: 'must be a lower-case RPC name' },
  defaultMethods: [{ method: 'getblockcount', params: [], weight: 1 }],
  presets: { chains: [], workloads: [] },
};
const registry: ChainRegistry = { ...CHAINS, toy };
const run = { config_snapshot: { chain: { id: 'c', name: 'Toy', slug: 'toy', explorer_url: null, family: 'toy' } } };

/** A toy node whose tip is `tip`; getblockstats answers the stats of the height asked (-1: the tip). */
function toyNode(tip: number, banned: string[]) {
  let node: FakeNode | undefined;
  const reply = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  return async () =>
    (node = await startFakeNode((req, res) => {
      const params = node!.requests[req.count - 1]!.params as unknown[];
      if (req.method === 'getblockchaininfo') return reply(res, 200, { result: { blocks: tip, bestblockhash: `hash${tip}` }, error: null, id: req.id });
      if (req.method === 'getblockstats') {
        const height = params[0] === -1 ? tip : Number(params[0]);
        return reply(res, 200, { result: { height, txs: height % 7 }, error: null, id: req.id });
      }
      if (req.method === 'listbanned') return reply(res, 200, { result: banned, error: null, id: req.id });
      return reply(res, 404, { result: null, error: { code: -32601, message: 'Method not found' }, id: req.id });
    }));
}

describe('a throwaway chain family: probing, pinning, comparison and verdict dispatch through its adapter', () => {
  let candidate: FakeNode;
  let reference: FakeNode;
  beforeAll(async () => {
    candidate = await toyNode(840_001, ['B', 'a'])();
    reference = await toyNode(840_000, ['a', 'b'])();
  });
  afterAll(async () => {
    await candidate.close();
    await reference.close();
  });

  it('judges a toy run by the toy rules end to end', async () => {
    const chain = chainOfRun(run, registry);
    expect(chain).toBe(toy);
    const clientOf = (node: FakeNode) =>
      createJsonRpcClient({ url: node.url, headers: {}, timeoutMs: 2_000 }, { connections: 1, allowPrivateTargets: true, answers: chain, fingerprintResults: true });
    const clients = { candidate: clientOf(candidate), reference: clientOf(reference) };
    try {
      // Probing: the head is read with the family's request and parser.
      const head = parseHead(chain, await clients.reference.result(chain.head.method, chain.head.params));
      expect(head).toEqual({ number: 840_000n, hash: 'hash840000' });
      expect(reference.requests.at(-1)).toMatchObject({ method: 'getblockchaininfo', params: [] });

      // Probing: the planned requests carry the family's rendering (unpinned: the tip).
      const workload = {
        methods: [
          { method: 'getblockstats', params: [PINNED_BLOCK_TEMPLATE, ['txs']], weight: 1 },
          { method: 'listbanned', params: [], weight: 1 },
        ],
      };
      expect(needsPinnedBlock(workload)).toBe(true);
      const plan = planRequests(chain, workload, 3, null);
      const calls: PlannedCall[] = Array.from({ length: 20 }, (_, seq) => plan(seq));
      expect(new Set(calls.map((c) => JSON.stringify([c.method, c.params])))).toEqual(
        new Set([JSON.stringify(['getblockstats', [-1, ['txs']]]), JSON.stringify(['listbanned', []])]),
      );
      expect(planRequests(chain, workload, 3, 839_995)(calls.findIndex((c) => c.method === 'getblockstats')).params).toEqual([839_995, ['txs']]);

      // Comparison: both sides answered; fingerprints are the family's.
      const pairs: Pair[] = [];
      for (const call of calls) {
        const [c, r] = [await clients.candidate.call(call), await clients.reference.call(call)];
        expect([c.outcome, r.outcome]).toEqual(['ok', 'ok']);
        const headDependent = chain.isHeadDependent(call.method, call.params);
        let recheck: Pair['recheck'];
        if (headDependent && c.responseHash !== r.responseHash) {
          // Pinning: the re-check asks both sides at the reference's head, in the family's params.
          const params = chain.pinForRecheck(call.method, call.params, head!.number);
          expect(params).toEqual([840_000, ['txs']]);
          const pinned = { seq: call.seq, method: call.method, params: params! };
          const [pc, pr] = [await clients.candidate.call(pinned), await clients.reference.call(pinned)];
          expect(candidate.requests.at(-1)!.params).toEqual([840_000, ['txs']]);
          recheck = { outcome: pc.responseHash === pr.responseHash ? 'resolved' : 'confirmed', params, candidateHash: pc.responseHash, referenceHash: pr.responseHash };
        }
        pairs.push({ method: call.method, params: call.params, candidateHash: c.responseHash, referenceHash: r.responseHash, headDependent, recheck });
      }
      const banned = pairs.filter((p) => p.method === 'listbanned');
      const stats = pairs.filter((p) => p.method === 'getblockstats');
      expect(banned.length).toBeGreaterThan(0);
      expect(stats.length).toBeGreaterThan(0);
      // ['B', 'a'] and ['a', 'b'] are one ban list under the toy rules, two different answers under EVM's.
      for (const p of banned) expect(p.candidateHash).toBe(fingerprintAnswer(chain, 'listbanned', ['b', 'a']));
      expect(fingerprintAnswer(CHAINS.evm, 'listbanned', ['B', 'a'])).not.toBe(fingerprintAnswer(CHAINS.evm, 'listbanned', ['a', 'b']));
      for (const p of stats) expect(p.candidateHash).not.toBe(p.referenceHash);

      // Verdict: ban lists match, tip stats differed because the head moved and matched at a fixed height.
      const tally = tallyOfPairs(pairs);
      expect(tally).toMatchObject({ matched: banned.length, mismatched: 0, inconclusive: stats.length, recheck: { resolved: stats.length, confirmed: 0, failed: 0 } });
      expect(judgeCorrectness(tally, 100)).toMatchObject({ status: 'pass', details: { compared: banned.length, match_rate_pct: 100 } });

      // The same answers under EVM's rules: nothing is head-dependent and ban lists differ, so the check fails.
      const asEvm = pairs.map((p) => ({
        ...p,
        candidateHash: fingerprintAnswer(CHAINS.evm, p.method, p.method === 'listbanned' ? ['B', 'a'] : null),
        referenceHash: fingerprintAnswer(CHAINS.evm, p.method, p.method === 'listbanned' ? ['a', 'b'] : null),
        headDependent: CHAINS.evm.isHeadDependent(p.method, p.params),
        recheck: undefined,
      }));
      expect(asEvm.every((p) => !p.headDependent)).toBe(true);
      expect(judgeCorrectness(tallyOfPairs(asEvm), 100).status).toBe('fail');
    } finally {
      await clients.candidate.close();
      await clients.reference.close();
    }
  });
});
