import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openWsRpc, type WsClosed } from '../../src/probe/ws-client';
import { startHostileWsNode, type HostileWsNode } from '../helpers/hostile-ws-node';

/*
 * Issue 30, INFO: a server that starts a message and never ends it, in zero-length continuation
 * frames. As fast as it can: the fragment cap closes the socket (too_many_fragments). Slowly (a
 * frame every 20 ms, never near the fragment cap): the per-message time cap closes it
 * (message_timeout). Before, the slow one held the socket for as long as the server liked.
 */

describe('a WebSocket message that never ends', () => {
  let node: HostileWsNode;
  beforeAll(async () => {
    node = await startHostileWsNode('zero-continuations');
  });
  afterAll(async () => {
    await node?.close();
  });

  /** The close, or 'still open' when the connection outlived `boundMs` (the test's own bound, not an assertion on time). */
  const closedWithin = (closed: Promise<WsClosed>, boundMs: number) =>
    Promise.race([closed.then((c) => c.reason), new Promise<string>((resolve) => setTimeout(() => resolve('still open'), boundMs).unref())]);

  it('endless zero-length continuation frames: closed by the fragment cap, the request fails', async () => {
    node.setMode('zero-continuations');
    const connection = await openWsRpc({ url: node.wsUrl, headers: {}, timeoutMs: 10_000 }, { allowPrivateTargets: true, envelope: 'json-rpc-2.0' });
    const answer = connection.send('eth_chainId', []).then(
      () => 'answered',
      (error: Error) => error.message,
    );
    expect(await closedWithin(connection.closed, 20_000)).toBe('too_many_fragments');
    expect(await answer).toBe('WebSocket request failed: closed');
  });

  it('a continuation frame every 20 ms: closed by the per-message time cap', { timeout: 30_000 }, async () => {
    node.setMode('trickle-continuations');
    const connection = await openWsRpc(
      { url: node.wsUrl, headers: {}, timeoutMs: 60_000 },
      { allowPrivateTargets: true, envelope: 'json-rpc-2.0', maxMessageMs: 1_000, pingIntervalMs: 0 },
    );
    void connection.send('eth_chainId', []).catch(() => undefined);
    expect(await closedWithin(connection.closed, 15_000)).toBe('message_timeout');
  });

  it('pings and pongs of an idle connection do not count as a message under way', { timeout: 30_000 }, async () => {
    node.setMode('ok');
    const connection = await openWsRpc(
      { url: node.wsUrl, headers: {}, timeoutMs: 5_000 },
      { allowPrivateTargets: true, envelope: 'json-rpc-2.0', maxMessageMs: 300, pingIntervalMs: 100 },
    );
    // A second of pings answered by pongs, over three times the message cap, with no message at all.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(await connection.request('eth_chainId', [])).toMatch(/^0x/);
    connection.close();
    expect((await connection.closed).reason).toBe('closed_by_us');
  });
});
