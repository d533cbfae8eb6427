import { once } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocketServer, type WebSocket } from 'ws';
import { CHAINS } from '../../../src/chains/registry';
import { watchHeads, type HeadWatchEvent } from '../../../src/probe/watch-heads';

/*
 * A subscription scoped to the connection (btcd's notifyblocks) against a WebSocket server the test
 * plays the node with, on 127.0.0.1: the subscribe answers null, the notifications are positional.
 * The real btcd is in test/integration/freshness-bitcoin.test.ts.
 */

const bitcoin = CHAINS.bitcoin;
const hash = (n: number) => n.toString(16).padStart(64, '0');

interface Node {
  url: string;
  received: { method: string; params: unknown }[];
  close(): Promise<void>;
}

/** Answers notifyblocks with `subscribeAnswer`, pushes what `onSubscribe` sends, answers anything else with null. */
async function fakeBtcd(onSubscribe: (socket: WebSocket, answer: () => void) => void, subscribeAnswer: { result: unknown; error: unknown } = { result: null, error: null }): Promise<Node> {
  const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await once(server, 'listening');
  const received: Node['received'] = [];
  server.on('connection', (socket) => {
    socket.on('message', (data: Buffer) => {
      const request = JSON.parse(data.toString('utf8')) as { id: number; method: string; params: unknown };
      received.push({ method: request.method, params: request.params });
      const answer = (body: { result: unknown; error: unknown }) => socket.send(JSON.stringify({ jsonrpc: '1.0', ...body, id: request.id }));
      if (request.method === 'notifyblocks') onSubscribe(socket, () => answer(subscribeAnswer));
      else answer({ result: null, error: null });
    });
  });
  const { port } = server.address() as { port: number };
  return {
    url: `ws://127.0.0.1:${port}/ws`,
    received,
    close: () => {
      for (const client of server.clients) client.terminate();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const notify = (socket: WebSocket, method: string, params: unknown[]) => socket.send(JSON.stringify({ jsonrpc: '1.0', method, params, id: null }));

const nodes: Node[] = [];
afterEach(async () => {
  await Promise.all(nodes.splice(0).map((n) => n.close()));
});

async function take(iterator: AsyncIterator<HeadWatchEvent>, count: number): Promise<HeadWatchEvent[]> {
  const events: HeadWatchEvent[] = [];
  while (events.length < count) {
    const next = await iterator.next();
    if (next.done === true) break;
    events.push(next.value);
  }
  return events;
}

describe('a head subscription scoped to the connection (btcd notifyblocks)', () => {
  it('takes a null subscribe answer, reads heads from positional params (also those pushed before the answer), ignores other methods, and stops with no params', async () => {
    const node = await fakeBtcd((socket, answer) => {
      // One pushed before the answer is read in the same turn as it: kept, not lost.
      notify(socket, 'blockconnected', [hash(7), 7, 1_700_000_000]);
      answer();
      notify(socket, 'filteredblockconnected', [8, '0000', null]);
      notify(socket, 'blockconnected', [hash(8), 8, 1_700_000_001]);
      notify(socket, 'blockconnected', ['not a hash', 9, 1_700_000_002]);
      notify(socket, 'blockconnected', [hash(10).toUpperCase(), 10, 1_700_000_003]);
    });
    nodes.push(node);
    const stop = new AbortController();
    const watch = watchHeads({
      target: { url: node.url, headers: {}, timeoutMs: 2_000 },
      subscription: bitcoin.headSubscription!,
      envelope: bitcoin.envelope,
      allowPrivateTargets: true,
      signal: stop.signal,
    });
    const events = await take(watch[Symbol.asyncIterator](), 4);
    expect(events.map((e) => (e.kind === 'head' ? [e.number, e.hash] : e.kind))).toEqual(['connected', [7n, hash(7)], [8n, hash(8)], [10n, hash(10)]]);
    expect(watch.stats).toMatchObject({ notHeads: 1, failedAttempts: 0, invalidMessages: 0 });
    stop.abort();
    await watch.done;
    expect(node.received.map((r) => r.method)).toEqual(['notifyblocks', 'stopnotifyblocks']);
    expect(node.received[1]!.params).toEqual([]);
  });

  it('a notifyblocks answered with an error is a failed subscribe, tried again', async () => {
    const node = await fakeBtcd((_socket, answer) => answer(), { result: null, error: { code: -32601, message: 'Method not found' } });
    nodes.push(node);
    const stop = new AbortController();
    const watch = watchHeads({
      target: { url: node.url, headers: {}, timeoutMs: 2_000 },
      subscription: bitcoin.headSubscription!,
      envelope: bitcoin.envelope,
      allowPrivateTargets: true,
      signal: stop.signal,
      backoff: { initialMs: 10, maxMs: 20 },
    });
    const events = await take(watch[Symbol.asyncIterator](), 2);
    expect(events).toMatchObject([{ kind: 'disconnected', reason: 'subscribe_failed' }, { kind: 'disconnected', reason: 'subscribe_failed' }]);
    stop.abort();
    await watch.done;
    expect(watch.stats.failedAttempts).toBeGreaterThanOrEqual(2);
  });
});
