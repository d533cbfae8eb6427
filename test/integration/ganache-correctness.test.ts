import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fingerprint } from '../../src/chains/evm/answers';
import { isHeadDependent } from '../../src/chains/evm/head-dependence';
import { judgePairs, type Pair } from '../helpers/correctness-pairs';
import { CONSTRUCTOR_TOPIC, startAlteringProxy, startGanache, type Alter, type GanacheChain } from '../helpers/ganache';

/*
 * The correctness rules against a REAL JSON-RPC node (ganache on loopback): the same requests
 * sent to the node directly (the reference) and through a proxy (the candidate) that passes
 * answers through, breaks them, or rewrites them in semantically equal ways.
 */

let chain: GanacheChain;

beforeAll(async () => {
  chain = await startGanache();
});

afterAll(async () => {
  await chain?.close();
});

const hex = (n: number) => `0x${n.toString(16)}`;

function requestSet(c: GanacheChain): Array<{ method: string; params: unknown[] }> {
  const pinned = hex(c.pinnedBlock);
  return [
    { method: 'eth_blockNumber', params: [] },
    { method: 'eth_chainId', params: [] },
    { method: 'eth_getBlockByNumber', params: [pinned, false] },
    { method: 'eth_getBlockByNumber', params: [pinned, true] },
    { method: 'eth_getBalance', params: [c.accounts[0], pinned] },
    { method: 'eth_getBalance', params: [c.accounts[1], pinned] },
    { method: 'eth_getLogs', params: [{ fromBlock: '0x0', toBlock: pinned }] },
    { method: 'eth_getTransactionReceipt', params: [c.logTxHash] },
  ];
}

async function rpc(url: string, method: string, params: unknown[]): Promise<unknown> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    signal: AbortSignal.timeout(10_000),
  });
  const body = (await response.json()) as { result?: unknown; error?: unknown };
  if (body.error !== undefined || !('result' in body)) throw new Error(`${method}: ${JSON.stringify(body)}`);
  return body.result;
}

/** Sends every request to the reference and the candidate and fingerprints both answers. */
async function comparePairs(referenceUrl: string, candidateUrl: string): Promise<Pair[]> {
  const pairs: Pair[] = [];
  for (const { method, params } of requestSet(chain)) {
    const [reference, candidate] = await Promise.all([rpc(referenceUrl, method, params), rpc(candidateUrl, method, params)]);
    pairs.push({
      method,
      params,
      candidateHash: fingerprint(method, candidate),
      referenceHash: fingerprint(method, reference),
      headDependent: isHeadDependent(method, params),
    });
  }
  return pairs;
}

async function withProxy<T>(alter: Alter | undefined, run: (url: string) => Promise<T>): Promise<T> {
  const proxy = await startAlteringProxy(chain.url, alter);
  try {
    return await run(proxy.url);
  } finally {
    await proxy.close();
  }
}

/** Reverses key order everywhere (JSON.stringify keeps insertion order, so the wire changes). */
function reverseKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reverseKeys);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).reverse().map(([k, v]) => [k, reverseKeys(v)]));
  }
  return value;
}

const pad = (quantity: unknown) => (typeof quantity === 'string' ? `0x0${quantity.slice(2)}` : quantity);

describe('correctness against a real ganache node', () => {
  it('the chain has what the requests need', async () => {
    expect(chain.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(await rpc(chain.url, 'eth_chainId', [])).toBe('0x539');
    expect(chain.headBlock).toBeGreaterThan(chain.pinnedBlock);
    const logs = (await rpc(chain.url, 'eth_getLogs', [{ fromBlock: '0x0', toBlock: hex(chain.pinnedBlock) }])) as Array<{
      logIndex: string;
      topics: string[];
      blockNumber: string;
    }>;
    expect(logs).toHaveLength(3);
    expect(logs[0]?.topics).toEqual([CONSTRUCTOR_TOPIC]);
    expect(logs.filter((l) => Number(l.blockNumber) === chain.pinnedBlock).map((l) => l.logIndex)).toEqual(['0x0', '0x1']);
  });

  it('identity proxy: every fingerprint equal, the check passes at 100%', async () => {
    const pairs = await withProxy(undefined, (url) => comparePairs(chain.url, url));
    expect(pairs.map((p) => p.candidateHash)).toEqual(pairs.map((p) => p.referenceHash));
    const summary = judgePairs(pairs, 100);
    expect(summary.status).toBe('pass');
    expect(summary.details).toMatchObject({ compared: pairs.length, matched: pairs.length, mismatched: 0, match_rate_pct: 100 });
  });

  it('a proxy that alters eth_getBalance: those pairs mismatch and are listed', async () => {
    const alter: Alter = (method, result) => (method === 'eth_getBalance' ? hex(Number(BigInt(result as string) % 1000n) + 1) : result);
    const pairs = await withProxy(alter, (url) => comparePairs(chain.url, url));
    const summary = judgePairs(pairs, 99);
    expect(summary.status).toBe('fail');
    expect(summary.details.mismatched).toBe(2);
    expect(summary.details.matched).toBe(pairs.length - 2);
    expect(summary.details.mismatches.map((m) => [m.method, m.params])).toEqual([
      ['eth_getBalance', [chain.accounts[0], hex(chain.pinnedBlock)]],
      ['eth_getBalance', [chain.accounts[1], hex(chain.pinnedBlock)]],
    ]);
    for (const m of summary.details.mismatches) expect(m.candidate_hash).not.toBe(m.reference_hash);
  });

  it('a proxy that re-orders keys, pads quantities, upper-cases hex data and shuffles logs: still equal', async () => {
    const alter: Alter = (method, result) => {
      let out = reverseKeys(result);
      if (method === 'eth_blockNumber' || method === 'eth_getBalance' || method === 'eth_chainId') out = pad(out);
      if (method === 'eth_getBlockByNumber') {
        const block = out as Record<string, unknown>;
        out = { ...block, number: pad(block.number), gasUsed: pad(block.gasUsed), hash: String(block.hash).toUpperCase().replace('0X', '0x') };
      }
      if (method === 'eth_getLogs') out = [...(out as unknown[])].reverse();
      if (method === 'eth_getTransactionReceipt') {
        const receipt = out as Record<string, unknown>;
        out = { ...receipt, status: pad(receipt.status), from: String(receipt.from).toUpperCase().replace('0X', '0x') };
      }
      return out;
    };
    const pairs = await withProxy(alter, async (url) => {
      // the rewrite really happens on the wire
      expect(await rpc(url, 'eth_blockNumber', [])).toBe(`0x0${chain.headBlock.toString(16)}`);
      return comparePairs(chain.url, url);
    });
    expect(pairs.map((p) => p.candidateHash)).toEqual(pairs.map((p) => p.referenceHash));
    expect(judgePairs(pairs, 100).status).toBe('pass');
  });

  it('a proxy that strips leading zeros from a log topic (DATA): mismatch', async () => {
    const strip = (topic: string) => `0x${topic.slice(2).replace(/^0+/, '')}`;
    const alter: Alter = (method, result) => {
      if (method === 'eth_getLogs') {
        return (result as Array<{ topics: string[] }>).map((log) => ({ ...log, topics: log.topics.map(strip) }));
      }
      return result;
    };
    const pairs = await withProxy(alter, (url) => comparePairs(chain.url, url));
    const summary = judgePairs(pairs, 100);
    expect(summary.status).toBe('fail');
    expect(summary.details.mismatches.map((m) => m.method)).toEqual(['eth_getLogs']);
  });

  it('a head-dependent request whose answer moved is inconclusive, not a mismatch', async () => {
    const alter: Alter = (method, result) => (method === 'eth_blockNumber' ? hex(Number(result) + 1) : result);
    const pairs = await withProxy(alter, (url) => comparePairs(chain.url, url));
    const summary = judgePairs(pairs, 100);
    expect(summary.status).toBe('pass');
    expect(summary.details).toMatchObject({ inconclusive: 1, mismatched: 0, compared: pairs.length - 1 });
  });

  it('a fork of the local node at the pinned block answers pinned requests identically', async () => {
    const fork = await startGanache({ fork: { url: chain.url, blockNumber: chain.headBlock } });
    try {
      const pinned = hex(chain.pinnedBlock);
      for (const [method, params] of [
        ['eth_getBlockByNumber', [pinned, true]],
        ['eth_getBalance', [chain.accounts[2], pinned]],
        ['eth_getLogs', [{ fromBlock: pinned, toBlock: pinned }]],
      ] as const) {
        const [a, b] = await Promise.all([rpc(chain.url, method, [...params]), rpc(fork.url, method, [...params])]);
        expect(fingerprint(method, b), method).toBe(fingerprint(method, a));
      }
      // the fork mined its own blocks on top
      expect(fork.pinnedBlock).toBeGreaterThan(chain.headBlock);
    } finally {
      await fork.close();
    }
  });

  it('refuses a non-loopback fork or proxy target', async () => {
    await expect(startGanache({ fork: { url: 'http://example.com:8545', blockNumber: 1 } })).rejects.toThrow(/loopback/);
    await expect(startAlteringProxy('http://10.0.0.1:8545', (_m, r) => r)).rejects.toThrow(/loopback/);
  });
});
