import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CHAINS } from '../../src/chains/registry';
import { OutboundAddressRefusedError } from '../../src/net/guarded-lookup';
import { createJsonRpcClient } from '../../src/probe/json-rpc-client';
import { openHeadWatch } from '../../src/probe/transports';
import { MAX_HEAD_MESSAGE_BYTES, pollHeads, watchHeads, type HeadWatch, type HeadWatchEvent } from '../../src/probe/watch-heads';
import { startAnvil, type AnvilNode } from '../helpers/anvil';
import { startWsLagProxy, type WsLagProxy } from '../helpers/ws-lag-proxy';

/*
 * Head watches against a REAL node: anvil mining a block every second, on loopback, watched
 * directly and through a WebSocket proxy the test owns (delaying, dropping, injecting frames).
 * Timing is asserted loosely: the machine is shared and two-cored.
 */

const evm = CHAINS.evm;
type HeadEvent = Extract<HeadWatchEvent, { kind: 'head' }>;

/** Reads events of `watch` until `enough` says so or `timeoutMs` passes; returns all read. */
async function readUntil(
  iterator: AsyncIterator<HeadWatchEvent>,
  enough: (events: HeadWatchEvent[]) => boolean,
  timeoutMs: number,
): Promise<HeadWatchEvent[]> {
  const events: HeadWatchEvent[] = [];
  const deadline = Date.now() + timeoutMs;
  while (!enough(events)) {
    const left = deadline - Date.now();
    if (left <= 0) throw new Error(`not within ${timeoutMs} ms; events so far: ${JSON.stringify(events, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v))}`);
    let timer: NodeJS.Timeout | undefined;
    const next = await Promise.race([
      iterator.next(),
      new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), left))),
    ]);
    clearTimeout(timer);
    if (next === 'timeout') continue;
    if (next.done) throw new Error('the watch ended');
    events.push(next.value);
  }
  return events;
}

const heads = (events: HeadWatchEvent[]) => events.filter((e): e is HeadEvent => e.kind === 'head');

describe('watchHeads against anvil (--block-time 1)', () => {
  let anvil: AnvilNode;
  const stops: AbortController[] = [];
  const watches: HeadWatch[] = [];
  const proxies: WsLagProxy[] = [];

  beforeAll(async () => {
    anvil = await startAnvil({ blockTimeS: 1 });
  });
  afterEach(async () => {
    for (const stop of stops.splice(0)) stop.abort();
    await Promise.all(watches.splice(0).map((w) => w.done));
    await Promise.all(proxies.splice(0).map((p) => p.close()));
  });
  afterAll(async () => {
    await anvil?.close();
  });

  function watch(url: string, options: { maxQueued?: number; backoffMs?: number } = {}): HeadWatch {
    const stop = new AbortController();
    stops.push(stop);
    const w = watchHeads({
      target: { url, headers: {}, timeoutMs: 5_000 },
      subscription: evm.headSubscription!,
      envelope: evm.envelope,
      allowPrivateTargets: true,
      signal: stop.signal,
      backoff: { initialMs: options.backoffMs ?? 100, maxMs: 1_000 },
      ...(options.maxQueued === undefined ? {} : { maxQueued: options.maxQueued }),
    });
    watches.push(w);
    return w;
  }
  async function proxy(delayMs = 0): Promise<WsLagProxy> {
    const p = await startWsLagProxy(anvil.wsUrl, { delayMs });
    proxies.push(p);
    return p;
  }

  it('receives consecutive heads whose numbers rise by one and whose hashes are the node\'s (checked over HTTP)', async () => {
    const w = watch(anvil.wsUrl);
    const events = await readUntil(w[Symbol.asyncIterator](), (e) => heads(e).length >= 4, 15_000);
    expect(events[0]).toMatchObject({ kind: 'connected' });
    const seen = heads(events);
    for (let i = 1; i < seen.length; i++) {
      expect(seen[i]!.number).toBe(seen[i - 1]!.number + 1n);
      expect(seen[i]!.receivedAtMonotonicNs).toBeGreaterThan(seen[i - 1]!.receivedAtMonotonicNs);
    }
    for (const head of seen) {
      const block = (await anvil.rpc('eth_getBlockByNumber', [`0x${head.number.toString(16)}`, false])) as { hash: string };
      expect(head.hash).toBe(block.hash.toLowerCase());
    }
    expect(w.stats).toMatchObject({ disconnects: 0, reconnects: 0, failedAttempts: 0, dropped: 0, invalidMessages: 0, notHeads: 0 });
  });

  it('measures a proxy that delays frames by 300 ms as arriving about 300 ms after the direct connection', async () => {
    const delayed = await proxy(300);
    const direct = watch(anvil.wsUrl);
    const late = watch(delayed.url);
    // Both subscribed before counting: a head seen by only one side is left out below.
    const [directEvents, lateEvents] = await Promise.all([
      readUntil(direct[Symbol.asyncIterator](), (e) => heads(e).length >= 5, 20_000),
      readUntil(late[Symbol.asyncIterator](), (e) => heads(e).length >= 5, 20_000),
    ]);
    const directAt = new Map(heads(directEvents).map((h) => [h.number, h]));
    const differencesMs: number[] = [];
    for (const head of heads(lateEvents)) {
      const first = directAt.get(head.number);
      if (first === undefined) continue;
      expect(head.hash).toBe(first.hash);
      differencesMs.push(Number(head.receivedAtMonotonicNs - first.receivedAtMonotonicNs) / 1e6);
    }
    expect(differencesMs.length).toBeGreaterThanOrEqual(3);
    const sorted = [...differencesMs].sort((a, b) => a - b);
    const median = sorted[Math.floor(sorted.length / 2)]!;
    expect(median, `differences ${differencesMs.map((d) => d.toFixed(1)).join(', ')} ms`).toBeGreaterThanOrEqual(200);
    expect(median).toBeLessThanOrEqual(600);
  });

  it('counts a dropped socket as a disconnect, reconnects with backoff and goes on receiving heads', async () => {
    const p = await proxy();
    const w = watch(p.url);
    const iterator = w[Symbol.asyncIterator]();
    await readUntil(iterator, (e) => heads(e).length >= 1, 10_000);
    p.dropAll();
    const after = await readUntil(iterator, (e) => {
      const reconnected = e.findIndex((x) => x.kind === 'connected');
      return reconnected >= 0 && heads(e.slice(reconnected)).length >= 1;
    }, 15_000);
    expect(after.find((e) => e.kind === 'disconnected')).toMatchObject({ reason: 'remote_closed' });
    expect(w.stats.disconnects).toBe(1);
    expect(w.stats.reconnects).toBe(1);
    expect(p.connections()).toBe(2);
  });

  it('refuses an oversized frame by closing with 1009 (too_large), without crashing, and reconnects', async () => {
    const p = await proxy();
    const w = watch(p.url);
    const iterator = w[Symbol.asyncIterator]();
    await readUntil(iterator, (e) => e.some((x) => x.kind === 'connected'), 10_000);
    p.inject(JSON.stringify({ jsonrpc: '2.0', method: 'eth_subscription', params: { subscription: p.subscriptionId(), result: 'x'.repeat(MAX_HEAD_MESSAGE_BYTES + 1) } }));
    const after = await readUntil(iterator, (e) => {
      const reconnected = e.findIndex((x) => x.kind === 'connected');
      return reconnected >= 0 && heads(e.slice(reconnected)).length >= 1;
    }, 15_000);
    expect(after.find((e) => e.kind === 'disconnected')).toMatchObject({ reason: 'too_large' });
    expect(w.stats.reconnects).toBe(1);
  });

  it('counts messages nested too deep, not JSON or not a head, and keeps the connection', async () => {
    const p = await proxy();
    const w = watch(p.url);
    const iterator = w[Symbol.asyncIterator]();
    await readUntil(iterator, (e) => e.some((x) => x.kind === 'connected'), 10_000);
    const id = p.subscriptionId();
    // 100,000 levels in 200 KB: under the size cap, far over the depth cap.
    p.inject(`{"jsonrpc":"2.0","method":"eth_subscription","params":{"subscription":${JSON.stringify(id)},"result":${'['.repeat(100_000)}${']'.repeat(100_000)}}}`);
    p.inject('not json {');
    p.inject(JSON.stringify({ jsonrpc: '2.0', method: 'eth_subscription', params: { subscription: id, result: { number: 'nope' } } }));
    await readUntil(iterator, (e) => heads(e).length >= 2, 10_000);
    expect(w.stats).toMatchObject({ invalidMessages: 2, notHeads: 1, disconnects: 0 });
  });

  it('drops and counts notifications a slow consumer cannot take, holding at most its queue', async () => {
    const p = await proxy();
    const w = watch(p.url, { maxQueued: 16 });
    const iterator = w[Symbol.asyncIterator]();
    await readUntil(iterator, (e) => e.some((x) => x.kind === 'connected'), 10_000);
    const id = p.subscriptionId();
    const hash = `0x${'ab'.repeat(32)}`;
    // Nobody reads while the flood arrives.
    for (let i = 0; i < 5_000; i++) {
      p.inject(JSON.stringify({ jsonrpc: '2.0', method: 'eth_subscription', params: { subscription: id, result: { number: `0x${(1_000_000 + i).toString(16)}`, hash } } }));
    }
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(w.stats.dropped).toBeGreaterThanOrEqual(5_000 - 16);
    const queued = await readUntil(iterator, (e) => heads(e).some((h) => h.number < 1_000_000n), 10_000);
    expect(heads(queued).filter((h) => h.number >= 1_000_000n).length).toBeLessThanOrEqual(16);
  });

  it('polls the head over HTTP: each new block once, numbers rising', async () => {
    const client = createJsonRpcClient({ url: anvil.httpUrl, headers: {}, timeoutMs: 5_000 }, { connections: 1, allowPrivateTargets: true, answers: evm });
    const stop = new AbortController();
    stops.push(stop);
    const w = pollHeads({ read: (m, p) => client.result(m, p), head: evm.head, intervalMs: 250, signal: stop.signal });
    watches.push(w);
    try {
      const events = await readUntil(w[Symbol.asyncIterator](), (e) => heads(e).length >= 3, 15_000);
      const seen = heads(events);
      for (let i = 1; i < seen.length; i++) expect(seen[i]!.number).toBe(seen[i - 1]!.number + 1n);
      expect(w.stats.pollErrors).toBe(0);
    } finally {
      stop.abort();
      await w.done;
      await client.close();
    }
  });

  it('chooses the watch by `via`: subscribe over ws_url, poll over the HTTP url', async () => {
    const endpoint = { protocol: 'json-rpc-http', addresses: { http: anvil.httpUrl, ws: anvil.wsUrl }, headers: {}, timeoutMs: 5_000 };
    for (const via of ['subscribe', 'poll'] as const) {
      const stop = new AbortController();
      stops.push(stop);
      const w = openHeadWatch(endpoint, evm, { via, pollIntervalMs: 200, allowPrivateTargets: true, signal: stop.signal });
      watches.push(w);
      const events = await readUntil(w[Symbol.asyncIterator](), (e) => heads(e).length >= 1, 10_000);
      // Only a subscription names the hash: EVM's head read (eth_blockNumber) does not.
      expect(heads(events)[0]!.hash === null).toBe(via === 'poll');
    }
    expect(() => openHeadWatch({ ...endpoint, addresses: { http: anvil.httpUrl } }, evm, { via: 'subscribe', pollIntervalMs: 200, allowPrivateTargets: true, signal: new AbortController().signal })).toThrow('no ws_url');
  });

  it('never connects to an address the policy refuses (IP literals, and names through the guarded lookup): the watch ends with OutboundAddressRefusedError', async () => {
    for (const [url, allow] of [
      [anvil.wsUrl, false],
      // A name: refused by the guarded lookup when it resolves, before any connection is made.
      [`ws://localhost:${anvil.port}/`, false],
      ['ws://169.254.169.254/', true],
      ['wss://[fe80::1]:8546/', true],
    ] as const) {
      const stop = new AbortController();
      stops.push(stop);
      const w = watchHeads({ target: { url, headers: {}, timeoutMs: 1_000 }, subscription: evm.headSubscription!, envelope: evm.envelope, allowPrivateTargets: allow, signal: stop.signal });
      watches.push(w);
      await expect(w[Symbol.asyncIterator]().next()).rejects.toBeInstanceOf(OutboundAddressRefusedError);
      expect(w.stats.failedAttempts).toBe(0);
    }
  });
});
