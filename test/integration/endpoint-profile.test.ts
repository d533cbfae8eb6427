import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHAINS } from '../../src/chains/registry';
import { discoverProfile } from '../../src/chains/profile';
import { startAnvil, type AnvilNode } from '../helpers/anvil';
import { gethFixture, type GethNode } from '../helpers/geth';
import { until } from '../helpers/processes';
import { httpProfileTransport, startProfileProxy, type ProfileProxy, type ProxyRule } from '../helpers/profile-proxy';

/*
 * The EVM endpoint profile (issue 35) against real nodes on loopback: anvil holding every state,
 * proxies we own that answer as a pruned node, a node serving the latest state for history and a
 * provider capping eth_getLogs would, and geth with and without the debug and txpool namespaces.
 */

const SENDER = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266'; // anvil's first unlocked account
const BLOCKS = 150;
/** The oldest state the pruned proxy holds. */
const WINDOW_START = 97;
const RANGE_CAP = 100;
const RESULT_CAP = 30;
/** Init code that emits one LOG0 and deploys nothing: every block below carries one log. */
const LOGGING_INIT_CODE = '0x60006000a000';
/** Methods that read state at a block, and where their block parameter is. */
const STATE_BLOCK_PARAM: Record<string, number> = { eth_getBalance: 1, eth_getTransactionCount: 1, eth_getCode: 1, eth_getStorageAt: 2, eth_call: 1, eth_getProof: 2 };

const evm = CHAINS.evm;
let anvil: AnvilNode;
const proxies: ProfileProxy[] = [];

async function proxy(rule?: ProxyRule): Promise<ProfileProxy> {
  const started = await startProfileProxy(anvil.httpUrl, rule);
  proxies.push(started);
  return started;
}

const blockOf = (call: { method: string; params: unknown[] }): number | null => {
  const at = STATE_BLOCK_PARAM[call.method];
  const tag = at === undefined ? undefined : call.params[at];
  return typeof tag === 'string' && tag.startsWith('0x') ? Number(tag) : null;
};

beforeAll(async () => {
  anvil = await startAnvil({ blockTimeS: 3600 });
  for (let i = 0; i < BLOCKS; i += 1) {
    await anvil.rpc('eth_sendTransaction', [{ from: SENDER, data: LOGGING_INIT_CODE, gas: '0x30000' }]);
    await anvil.rpc('evm_mine');
  }
}, 120_000);

afterAll(async () => {
  for (const started of proxies) await started.close();
  await anvil?.close();
});

describe('EVM endpoint profile on anvil', () => {
  it('finds a full archive, the namespaces served, no log caps and the finality tags', async () => {
    const counted = await proxy();
    const profile = await discoverProfile(evm, { transport: httpProfileTransport(counted.url), ratePerS: 1000 });
    expect(profile).not.toBeNull();
    expect(profile!.head).toBe(BLOCKS);
    expect(profile!.archive.kind).toBe('full');
    expect(profile!.archive.oldest_correct_block).toBe(0);
    expect(profile!.namespaces).toEqual(expect.arrayContaining(['eth', 'net', 'web3']));
    expect(profile!.methods.eth_getProof!.support).toBe('supported');
    expect(profile!.logs).toMatchObject({ max_block_range: null, max_results: null, searched_up_to_blocks: BLOCKS + 1 });
    expect(profile!.finality.safe!.supported).toBe(true);
    expect(profile!.finality.finalized!.supported).toBe(true);
    expect(profile!.subscriptions).toBeNull();
    expect(profile!.requests_used).toBe(counted.counts().total);
    expect(counted.counts().byMethod.eth_sendRawTransaction).toBeUndefined();
    expect(counted.counts().byMethod.eth_sendTransaction).toBeUndefined();
  }, 60_000);

  it('finds the exact oldest state a node answering "missing trie node" below it holds, with and without a reference', async () => {
    const pruned = await proxy(async (call) => {
      const block = blockOf(call);
      if (block === null || block >= WINDOW_START) return null;
      return { body: { error: { code: -32000, message: `missing trie node 5b2e40c3d7c1b0e8 (path ) state 0x${block.toString(16)} is not available` } } };
    });
    for (const reference of [null, httpProfileTransport(anvil.httpUrl)]) {
      const profile = await discoverProfile(evm, { transport: httpProfileTransport(pruned.url), reference, ratePerS: 1000 });
      expect(profile!.archive.kind).toBe('window');
      expect(profile!.archive.oldest_correct_block).toBe(WINDOW_START);
      expect(profile!.archive.checked_blocks).toEqual(expect.arrayContaining([WINDOW_START, WINDOW_START - 1]));
      expect(profile!.archive.evidence.find((e) => e.height === WINDOW_START - 1)).toMatchObject({ outcome: 'not_held' });
      expect(profile!.reference_requests_used > 0).toBe(reference !== null);
    }
  }, 60_000);

  it('names a node that answers the latest state for historical blocks, never a depth', async () => {
    const latest = await proxy(async (call, forward) => {
      const at = STATE_BLOCK_PARAM[call.method];
      if (at === undefined) return null;
      const params = [...call.params];
      params[at] = 'latest';
      return { body: await forward({ method: call.method, params }) };
    });
    const profile = await discoverProfile(evm, { transport: httpProfileTransport(latest.url), ratePerS: 1000 });
    expect(profile!.archive.kind).toBe('latest_for_history');
    expect(profile!.archive.oldest_correct_block).toBeNull();
    expect(profile!.archive.evidence[0]).toMatchObject({ height: BLOCKS - 1, outcome: 'wrong' });
    expect(profile!.archive.evidence[0]!.detail).toMatch(/^the latest value/);
  }, 60_000);

  it('finds a provider-style eth_getLogs range cap and result cap exactly, keeping its error texts', async () => {
    const capped = await proxy(async (call, forward) => {
      if (call.method !== 'eth_getLogs') return null;
      const filter = call.params[0] as { fromBlock: string; toBlock: string };
      const [from, to] = [Number(filter.fromBlock), Number(filter.toBlock)];
      if (to - from + 1 > RANGE_CAP) return { body: { error: { code: -32602, message: `range ${to - from + 1} exceeds limit of ${RANGE_CAP}` } } };
      const answer = await forward(call);
      if (Array.isArray(answer.result) && answer.result.length > RESULT_CAP) {
        return {
          body: {
            error: {
              code: -32005,
              message: `query returned more than ${RESULT_CAP} results. Try with this block range [0x${from.toString(16)}, 0x${(from + RESULT_CAP - 1).toString(16)}].`,
            },
          },
        };
      }
      return { body: answer };
    });
    const profile = await discoverProfile(evm, { transport: httpProfileTransport(capped.url), ratePerS: 1000 });
    expect(profile!.logs.max_block_range).toBe(RANGE_CAP);
    expect(profile!.logs.max_results).toBe(RESULT_CAP);
    expect(profile!.logs.evidence).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ limit: 'range', code: -32602, message: expect.stringMatching(/exceeds limit of 100$/) }),
        expect.objectContaining({ limit: 'results', code: -32005, message: expect.stringMatching(/^query returned more than 30 results/) }),
      ]),
    );
    expect(profile!.inconclusive_reasons.filter((r) => r.startsWith('logs'))).toEqual([]);
  }, 60_000);

  it('holds its request budget (counted at the proxy) and says what it could not learn', async () => {
    const counted = await proxy();
    const profile = await discoverProfile(evm, { transport: httpProfileTransport(counted.url), budget: 40, ratePerS: 1000 });
    expect(counted.counts().total).toBe(40);
    expect(profile!.requests_used).toBe(40);
    expect(profile!.budget).toBe(40);
    expect(profile!.inconclusive_reasons.some((r) => r.includes('the request budget (40) was spent'))).toBe(true);
  }, 60_000);

  it.each([
    ['a 429 storm', (async () => ({ status: 429, body: 'Too Many Requests' })) satisfies ProxyRule],
    ['endless errors', (async () => ({ body: { error: { code: -32603, message: 'internal error' } } })) satisfies ProxyRule],
    ['huge answers', (async () => ({ body: { result: 'f'.repeat(5 * 1024 * 1024) } })) satisfies ProxyRule],
  ])('ends inconclusive within its budget against %s, never a throw', async (_name, rule) => {
    const hostile = await proxy(rule);
    const profile = await discoverProfile(evm, { transport: httpProfileTransport(hostile.url), budget: 60, ratePerS: 1000 });
    expect(hostile.counts().total).toBeLessThanOrEqual(60);
    expect(profile!.requests_used).toBe(hostile.counts().total);
    expect(profile!.archive.kind).toBe('unknown');
    expect(profile!.namespaces).toEqual([]);
    expect(profile!.inconclusive_reasons.length).toBeGreaterThan(1);
  }, 60_000);
});

describe('EVM endpoint profile on geth', () => {
  const plain = gethFixture({ httpApi: 'eth,net,web3' });
  const debug = gethFixture({ httpApi: 'eth,net,web3,debug,txpool' });
  beforeAll(async () => {
    await plain.start();
    await debug.start();
  }, 120_000);
  afterAll(async () => {
    await plain.close();
    await debug.close();
  });

  it('sees the debug and txpool namespaces only where geth serves them', async () => {
    const without = await discoverProfile(evm, { transport: httpProfileTransport(plain.node.httpUrl), ratePerS: 1000 });
    const withDebug = await discoverProfile(evm, { transport: httpProfileTransport(debug.node.httpUrl), ratePerS: 1000 });
    expect(without!.namespaces).toEqual(['eth', 'net', 'web3']);
    expect(withDebug!.namespaces).toEqual(['debug', 'eth', 'net', 'txpool', 'web3']);
    expect(without!.methods.debug_getRawHeader).toMatchObject({ support: 'not_found', evidence: { code: -32601 } });
    expect(withDebug!.methods.debug_getRawHeader!.support).toBe('supported');
    expect(withDebug!.methods.txpool_status!.support).toBe('supported');
    expect(without!.methods.txpool_status!.support).toBe('not_found');
  }, 120_000);
});

describe('EVM endpoint profile on a geth pair: recent state history only vs archive', () => {
  const TXS = 220;
  const pruned = gethFixture({ periodS: 0, extraArgs: ['--state.scheme', 'path', '--gcmode', 'archive', '--history.state', '20'] });
  const archive = gethFixture({ periodS: 0, extraArgs: ['--state.scheme', 'hash', '--gcmode', 'archive'] });

  /** One transaction a block (--dev.period 0 seals one per transaction), each waited for. */
  async function fill(node: GethNode): Promise<string> {
    const [account] = (await node.rpc('eth_accounts')) as string[];
    for (let i = 0; i < TXS; i += 1) {
      const hash = await node.rpc('eth_sendTransaction', [{ from: account, to: '0x000000000000000000000000000000000000dEaD', value: '0x1' }]);
      // geth answers "transaction indexing is in progress" for a while after it starts: asked again.
      const receipt = () => node.rpc('eth_getTransactionReceipt', [hash]).catch(() => null);
      await until(async () => ((await receipt()) === null ? undefined : true), 30_000, () => `receipt of ${String(hash)}`);
    }
    return account!;
  }

  /** The oldest block whose state the node answers, measured block by block. */
  async function measuredOldest(node: GethNode, account: string, head: number): Promise<number> {
    for (let height = 0; height <= head; height += 1) {
      const answered = await node.rpc('eth_getTransactionCount', [account, `0x${height.toString(16)}`]).then(
        () => true,
        () => false,
      );
      if (answered) return height;
    }
    throw new Error('no state answered');
  }

  beforeAll(async () => {
    await pruned.start();
    await archive.start();
  }, 120_000);
  afterAll(async () => {
    await pruned.close();
    await archive.close();
  });

  it('finds the window geth really keeps, exactly, and the archive node full', async () => {
    const account = await fill(pruned.node);
    await fill(archive.node);
    const head = Number(await pruned.node.rpc('eth_blockNumber'));
    const oldest = await measuredOldest(pruned.node, account, head);
    expect(oldest).toBeGreaterThan(0);
    const windowed = await discoverProfile(evm, { transport: httpProfileTransport(pruned.node.httpUrl), ratePerS: 1000 });
    expect(windowed!.archive).toMatchObject({ kind: 'window', oldest_correct_block: oldest });
    const full = await discoverProfile(evm, { transport: httpProfileTransport(archive.node.httpUrl), ratePerS: 1000 });
    expect(full!.archive).toMatchObject({ kind: 'full', oldest_correct_block: 0 });
  }, 240_000);
});
