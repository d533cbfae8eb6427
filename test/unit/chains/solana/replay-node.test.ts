import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { SOLANA_EXAMPLES, SOLANA_WS_EXAMPLES, startSolanaReplayNode, type SolanaReplayNode, type SolanaReplayOptions } from '../../../helpers/solana-replay-node';

/*
 * The replay node answers each recorded request with the published answer: a node frozen at the
 * slot the example's context names (at the commitment it asks, finalized by default) gives the
 * example's result, as JSON, for every recorded method.
 */

type Json = Record<string, any>;
const FINALIZED_DEPTH = 32;

async function rpc(node: SolanaReplayNode, method: string, params: unknown[]): Promise<Json> {
  const response = await fetch(node.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
  return (await response.json()) as Json;
}

/** The options that put a frozen node where the example was recorded. */
function recordedAt(method: string): SolanaReplayOptions {
  const { params, result } = SOLANA_EXAMPLES[method]!;
  const config = params.find((p): p is Json => p !== null && typeof p === 'object' && !Array.isArray(p) && 'commitment' in p);
  const depth = config?.commitment === 'processed' ? 0 : config?.commitment === 'confirmed' ? 1 : FINALIZED_DEPTH;
  const context = (result as Json | null)?.context as Json | undefined;
  if (context) return { frozenSlot: context.slot + depth, apiVersion: context.apiVersion ?? null };
  if (method === 'getSlot') return { frozenSlot: (result as number) + depth };
  if (method === 'getBlockHeight') return { frozenSlot: (result as number) + 1 + depth, heightGap: 1 };
  if (method === 'getEpochInfo') {
    const info = result as Json;
    return { frozenSlot: info.absoluteSlot + depth, heightGap: info.absoluteSlot - info.blockHeight, transactionCount: info.transactionCount };
  }
  return {};
}

describe('the Solana replay node', () => {
  const nodes: SolanaReplayNode[] = [];
  afterEach(async () => {
    await Promise.all(nodes.splice(0).map((n) => n.close()));
  });
  const start = async (options: SolanaReplayOptions) => {
    const node = await startSolanaReplayNode(options);
    nodes.push(node);
    return node;
  };

  it('records the methods a Solana verifier reads', () => {
    expect(Object.keys(SOLANA_EXAMPLES).sort()).toEqual(
      [
        'getAccountInfo', 'getBalance', 'getBlock', 'getBlockHeight', 'getEpochInfo', 'getHealth', 'getLatestBlockhash', 'getMultipleAccounts',
        'getProgramAccounts', 'getSignatureStatuses', 'getSignaturesForAddress', 'getSlot', 'getTokenAccountsByOwner', 'getTransaction', 'getVersion',
      ].sort(),
    );
  });

  for (const [method, example] of Object.entries(SOLANA_EXAMPLES)) {
    it(`answers the published ${method} example with its published result`, async () => {
      const node = await start(recordedAt(method));
      const answer = await rpc(node, method, example.params);
      expect(answer).toEqual({ jsonrpc: '2.0', result: example.result, id: 1 });
      // Byte for byte, as far as JSON numbers go (u64::MAX rentEpoch is beyond a double's precision either way).
      expect(JSON.stringify(answer.result)).toBe(JSON.stringify(example.result));
    });
  }

  it('reads the slot at each commitment level, and puts that slot in the context', async () => {
    const node = await start({ frozenSlot: 1000, depth: { confirmed: 1, finalized: 32 } });
    expect((await rpc(node, 'getSlot', [{ commitment: 'processed' }])).result).toBe(1000);
    expect((await rpc(node, 'getSlot', [{ commitment: 'confirmed' }])).result).toBe(999);
    expect((await rpc(node, 'getSlot', [])).result).toBe(968);
    expect((await rpc(node, 'getBalance', ['vines1vzrYbzLMRdu58ou5XTby4qAqVRLmqo36NKPTg', { commitment: 'confirmed' }])).result).toEqual({
      context: { apiVersion: '2.0.15', slot: 999 },
      value: 88849814690250,
    });
  });

  it('answers a minContextSlot above its slot with -32016, and one at or below it normally', async () => {
    const node = await start({ frozenSlot: 1000 });
    expect(await rpc(node, 'getBalance', ['vines1vzrYbzLMRdu58ou5XTby4qAqVRLmqo36NKPTg', { minContextSlot: 969 }])).toEqual({
      jsonrpc: '2.0',
      error: { code: -32016, message: 'Minimum context slot has not been reached', data: { contextSlot: 968 } },
      id: 1,
    });
    expect((await rpc(node, 'getBalance', ['vines1vzrYbzLMRdu58ou5XTby4qAqVRLmqo36NKPTg', { minContextSlot: 968 }])).result.value).toBe(88849814690250);
  });

  it('ticks a slot every slotMs, behind by its lag, and skips slots without growing the block height', async () => {
    const genesisMs = Date.now();
    const [a, b] = [await start({ genesisMs, startSlot: 5000, slotMs: 50 }), await start({ genesisMs, startSlot: 5000, slotMs: 50, lagSlots: 3 })];
    const [slotA, slotB] = [a.slotAt('processed'), b.slotAt('processed')];
    expect(slotA - slotB).toBe(3);
    await new Promise((resolve) => setTimeout(resolve, 220));
    expect(a.slotAt('processed')).toBeGreaterThanOrEqual(slotA + 4);
    const skipping = await start({ frozenSlot: 110, skipEvery: 10, depth: { confirmed: 1, finalized: 0 } });
    expect((await rpc(skipping, 'getSlot', [])).result).toBe(109);
    expect((await rpc(skipping, 'getBlockHeight', [])).result).toBe(109 - 1 - 10);
  });

  it('lies when told: lamports altered, an account dropped; and orders getProgramAccounts differently when told', async () => {
    const [pubkeyA, pubkeyB] = SOLANA_EXAMPLES.getMultipleAccounts!.params[0] as string[];
    const liar = await start({ frozenSlot: 1000, lamportsDelta: 1, dropAccount: true });
    expect((await rpc(liar, 'getBalance', [pubkeyA])).result.value).toBe(88849814690251);
    expect((await rpc(liar, 'getMultipleAccounts', [[pubkeyA, pubkeyB]])).result.value[1]).toBeNull();
    const extra = [{ pubkey: '11111111111111111111111111111112', account: { data: '', executable: false, lamports: 1, owner: '4Nd1mBQtrMJVYVfKf2PJy9NZUZdTAsp7D4xWLs4gDB4T', rentEpoch: 28, space: 0 } }];
    const honest = await start({ frozenSlot: 1000, extraProgramAccounts: extra });
    const shuffled = await start({ frozenSlot: 1000, extraProgramAccounts: extra, shuffleProgramAccounts: true });
    const params = SOLANA_EXAMPLES.getProgramAccounts!.params;
    const [inOrder, reversed] = [(await rpc(honest, 'getProgramAccounts', params)).result, (await rpc(shuffled, 'getProgramAccounts', params)).result];
    expect(inOrder.map((e: Json) => e.pubkey)).toEqual(['CxELquR1gPP8wHe33gZ4QxqGB3sZ9RSwsJ2KshVewkFY', '11111111111111111111111111111112']);
    expect(reversed).toEqual([...inOrder].reverse());
  });

  /** Opens a WebSocket to the node, sends `requests` one by one and collects every message until `until` holds. */
  async function overWs(node: SolanaReplayNode, requests: Json[], until: (messages: Json[]) => boolean): Promise<Json[]> {
    const socket = new WebSocket(node.wsUrl);
    const messages: Json[] = [];
    try {
      await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
      return await new Promise<Json[]>((resolve) => {
        socket.on('message', (data) => {
          messages.push(JSON.parse(String(data)) as Json);
          if (messages.length <= requests.length - 1 && messages.length === messages.filter((m) => 'id' in m).length) socket.send(JSON.stringify(requests[messages.length]));
          if (until(messages)) resolve(messages);
        });
        socket.send(JSON.stringify(requests[0]));
      });
    } finally {
      socket.terminate();
    }
  }

  /** Member names of an object, sorted, recursively: the published notification's shape. */
  const shape = (value: unknown): unknown =>
    value !== null && typeof value === 'object' && !Array.isArray(value)
      ? Object.fromEntries(Object.entries(value).sort(([a], [b]) => (a < b ? -1 : 1)).map(([k, v]) => [k, shape(v)]))
      : typeof value;

  it('slotSubscribe: answers a subscription id, then a slotNotification in the published shape for every processed slot, in order', async () => {
    const node = await start({ slotMs: 20, startSlot: 5_000, skipEvery: 7 });
    const published = SOLANA_WS_EXAMPLES.slotSubscribe!;
    const messages = await overWs(node, [{ jsonrpc: '2.0', id: 1, method: 'slotSubscribe' }], (m) => m.filter((x) => x.method === 'slotNotification').length >= 12);
    expect(messages[0]).toEqual({ jsonrpc: '2.0', result: expect.any(Number), id: 1 });
    const notifications = messages.filter((m) => m.method === 'slotNotification');
    for (const n of notifications) {
      expect(shape(n)).toEqual(shape(published.notification));
      expect(n.params.subscription).toBe(messages[0]!.result);
      expect(n.params.result.parent).toBeLessThan(n.params.result.slot);
      expect(n.params.result.root).toBeLessThanOrEqual(n.params.result.slot);
      expect(n.params.result.slot % 7, 'a skipped slot is never notified').not.toBe(0);
    }
    const slots = notifications.map((n) => n.params.result.slot as number);
    // Consecutive, skipped slots left out; each parent the previous slot notified.
    for (let i = 1; i < slots.length; i++) {
      expect(notifications[i]!.params.result.parent).toBe(slots[i - 1]);
      expect(slots[i]! - slots[i - 1]!).toBe(slots[i - 1]! % 7 === 6 ? 2 : 1);
    }
  });

  it('rootSubscribe: a rootNotification with the new root (the finalized slot); unsubscribing answers true', async () => {
    const node = await start({ slotMs: 20 });
    const published = SOLANA_WS_EXAMPLES.rootSubscribe!;
    const messages = await overWs(node, [{ jsonrpc: '2.0', id: 1, method: 'rootSubscribe' }], (m) => m.filter((x) => x.method === 'rootNotification').length >= 3);
    const roots = messages.filter((m) => m.method === 'rootNotification');
    for (const r of roots) expect(shape(r)).toEqual(shape(published.notification));
    expect(roots.map((r) => r.params.result)).toEqual([...roots.map((r) => r.params.result)].sort((a, b) => a - b));
    expect(roots.at(-1)!.params.result).toBeLessThanOrEqual(node.slotAt('finalized'));
    // A node's first subscription is 0, as in the published example.
    const unsubscribed = await overWs(
      await start({ slotMs: 20 }),
      [
        { jsonrpc: '2.0', id: 1, method: 'rootSubscribe' },
        { jsonrpc: '2.0', id: 2, method: 'rootUnsubscribe', params: [0] },
      ],
      (m) => m.some((x) => x.id === 2),
    );
    expect(unsubscribed.find((m) => m.id === 2)).toEqual({ jsonrpc: '2.0', result: SOLANA_WS_EXAMPLES.rootUnsubscribe!.result, id: 2 });
  });

  it('answers calls over the WebSocket as over HTTP', async () => {
    const node = await start({ frozenSlot: 1000 });
    const [answer] = await overWs(node, [{ jsonrpc: '2.0', id: 7, method: 'getSlot', params: [{ commitment: 'confirmed' }] }], (m) => m.length >= 1);
    expect(answer).toEqual({ jsonrpc: '2.0', result: 999, id: 7 });
  });

  it('serves the solana-standard stand-ins: native program accounts, a block at every finalized slot, the listed signature', async () => {
    const node = await start({ frozenSlot: 10_000 });
    const finalized = node.slotAt('finalized');
    const account = (await rpc(node, 'getAccountInfo', ['TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA', { encoding: 'base64' }])).result.value;
    expect(account).toMatchObject({ executable: true, data: ['', 'base64'] });
    const block = (await rpc(node, 'getBlock', [finalized - 5, { transactionDetails: 'signatures', rewards: false }])).result;
    expect(block).toMatchObject({ parentSlot: finalized - 6, blockHeight: finalized - 5 - 1, signatures: [SOLANA_EXAMPLES.getTransaction!.params[0]] });
    expect(block.blockhash).toMatch(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/);
    expect((await rpc(node, 'getBlock', [finalized - 4])).result.previousBlockhash).toBe(block.blockhash);
    expect((await rpc(node, 'getBlock', [finalized + 1])).error).toMatchObject({ code: -32004 });
    const listed = (SOLANA_EXAMPLES.getSignaturesForAddress!.result as Json[])[0]!.signature as string;
    expect((await rpc(node, 'getTransaction', [listed, { encoding: 'json', maxSupportedTransactionVersion: 0 }])).result).toEqual(SOLANA_EXAMPLES.getTransaction!.result);
    expect((await rpc(node, 'getSignatureStatuses', [[listed]])).result.value[0]).toMatchObject({ slot: 114, confirmationStatus: 'finalized' });
  });
});
