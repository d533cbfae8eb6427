import { createServer } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket, { WebSocketServer } from 'ws';
import { CHAINS } from '../../src/chains/registry';
import { OutboundAddressRefusedError } from '../../src/net/guarded-lookup';
import { INVALID_REASONS } from '../../src/probe/classify-response';
import type { JsonRpcClient } from '../../src/probe/json-rpc-client';
import { MissingAddressError, transportFor } from '../../src/probe/transports';
import { createWsCallClient, type WsCallClientOptions } from '../../src/probe/ws-call-client';

/*
 * The probe's WebSocket calls against loopback servers the test owns: every call is one result
 * with its own seq, whatever order the answers come in; silence is a timeout; a dropped socket
 * fails exactly the calls in flight on it, and later calls get a new socket.
 */

const SECRET_PATH = '/v3/WsCallS3cret?key=WsCallS3cretQuery';
type Request = { id: number; method: string; params: unknown[] };

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function server(onRequest: (socket: WebSocket, request: Request, connection: number) => void): Promise<{ url: string; connections: () => number }> {
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  let connections = 0;
  wss.on('connection', (socket) => {
    const index = ++connections;
    socket.on('message', (data) => onRequest(socket, JSON.parse(data.toString()) as Request, index));
  });
  await new Promise<void>((resolve) => wss.once('listening', () => resolve()));
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        for (const client of wss.clients) client.terminate();
        wss.close(() => resolve());
      }),
  );
  const address = wss.address() as { port: number };
  return { url: `ws://127.0.0.1:${address.port}${SECRET_PATH}`, connections: () => connections };
}

function client(url: string, timeoutMs: number, options: Partial<WsCallClientOptions> = {}): JsonRpcClient {
  const c = createWsCallClient(
    { url, headers: {}, timeoutMs },
    { connections: 8, allowPrivateTargets: true, answers: CHAINS.evm, pingIntervalMs: 0, backoff: { initialMs: 100, maxMs: 200 }, ...options },
  );
  cleanups.push(() => c.close());
  return c;
}

const answer = (socket: WebSocket, id: number, body: object) => socket.send(JSON.stringify({ jsonrpc: '2.0', id, ...body }));
const call = (seq: number, method: string) => ({ seq, method, params: [] });

describe('createWsCallClient', () => {
  it('matches answers to calls by id when they come out of order, each classified as an HTTP body would be', async () => {
    const held: Request[] = [];
    const ids = new Set<number>();
    const { url } = await server((socket, request) => {
      ids.add(request.id);
      held.push(request);
      if (held.length < 4) return;
      for (const r of held.reverse()) {
        if (r.method === 'eth_bad') answer(socket, r.id, { error: { code: -32601, message: 'no' } });
        else if (r.method === 'eth_deep') socket.send(`{"jsonrpc":"2.0","id":${r.id},"result":${'['.repeat(100)}${']'.repeat(100)}}`);
        else answer(socket, r.id, { result: `0x${r.method.length.toString(16)}` });
      }
    });
    const c = client(url, 2_000, { sockets: 1 });
    const results = await Promise.all([call(10, 'eth_a'), call(11, 'eth_bad'), call(12, 'eth_longer'), call(13, 'eth_deep')].map((p) => c.call(p)));
    expect(ids.size).toBe(4);
    expect(results.map((r) => [r.seq, r.method, r.outcome])).toEqual([
      [10, 'eth_a', 'ok'],
      [11, 'eth_bad', 'rpc_error'],
      [12, 'eth_longer', 'ok'],
      [13, 'eth_deep', 'invalid_response'],
    ]);
    expect(results[1]!.rpcErrorCode).toBe(-32601);
    expect(results[3]!.reason).toBe(INVALID_REASONS.tooDeep);
    // Each answer's fingerprint is its own call's: the two ok results differ (0x5 and 0xa).
    expect(results[0]!.responseHash).not.toBeNull();
    expect(results[0]!.responseHash).not.toBe(results[2]!.responseHash);
    expect(results.every((r) => r.httpStatus === null && r.latencyUs > 0)).toBe(true);
  });

  it('keeps at most `connections` calls in flight; the rest wait in order', async () => {
    let open = 0;
    let most = 0;
    const order: string[] = [];
    const { url } = await server((socket, request) => {
      open++;
      most = Math.max(most, open);
      order.push(request.method);
      setTimeout(() => {
        open--;
        answer(socket, request.id, { result: '0x1' });
      }, 30);
    });
    const c = client(url, 2_000, { connections: 2, sockets: 2 });
    const results = await Promise.all(Array.from({ length: 8 }, (_, i) => c.call(call(i, `m${i}`))));
    expect(results.map((r) => r.outcome)).toEqual(Array(8).fill('ok'));
    expect(most).toBe(2);
    expect(order).toEqual(['m0', 'm1', 'm2', 'm3', 'm4', 'm5', 'm6', 'm7']);
  });

  it('times out a call whose answer never comes, while the socket keeps serving the others', async () => {
    const { url, connections } = await server((socket, request) => {
      if (request.method !== 'silent') answer(socket, request.id, { result: '0x1' });
    });
    const c = client(url, 300, { sockets: 1 });
    const sent = performance.now();
    const [silent, fine] = await Promise.all([
      c.call(call(0, 'silent')).then((r) => ({ ...r, waitedUs: (performance.now() - sent) * 1000 })),
      c.call(call(1, 'fine')),
    ]);
    expect(silent.outcome).toBe('timeout');
    expect(silent.latencyUs).toBeGreaterThanOrEqual(290_000);
    // The recorded latency is the time the call took, never more than the caller waited for it.
    expect(silent.latencyUs).toBeLessThanOrEqual(silent.waitedUs);
    expect(fine.outcome).toBe('ok');
    expect((await c.call(call(2, 'after'))).outcome).toBe('ok');
    expect(connections()).toBe(1);
  });

  it('fails the calls in flight on a dropped socket as connection_error, once each, and reconnects for later calls', async () => {
    const { url, connections } = await server((socket, request, connection) => {
      // The first socket is cut once three calls are on it; the second answers.
      if (connection === 1 && request.method === 'drop') setTimeout(() => socket.terminate(), 20);
      else if (connection > 1) answer(socket, request.id, { result: '0x1' });
    });
    const c = client(url, 5_000, { sockets: 1 });
    const inFlight = await Promise.all([c.call(call(0, 'a')), c.call(call(1, 'b')), c.call(call(2, 'drop'))]);
    expect(inFlight.map((r) => [r.seq, r.outcome])).toEqual([
      [0, 'connection_error'],
      [1, 'connection_error'],
      [2, 'connection_error'],
    ]);
    // Within the backoff (50–100 ms here) nothing is reopened: the endpoint is unreachable now.
    expect((await c.call(call(3, 'soon'))).outcome).toBe('connection_error');
    expect(connections()).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 250));
    const later = await c.call(call(4, 'later'));
    expect(later.outcome).toBe('ok');
    expect(connections()).toBe(2);
  });

  it('counts latency from the intended send instant of an open loop', async () => {
    const { url } = await server((socket, request) => answer(socket, request.id, { result: '0x1' }));
    const c = client(url, 2_000);
    const result = await c.call(call(0, 'eth_blockNumber'), performance.now() - 150);
    expect(result.outcome).toBe('ok');
    expect(result.latencyUs).toBeGreaterThanOrEqual(150_000);
    expect(Date.now() - result.startedAt.getTime()).toBeGreaterThanOrEqual(150);
  });

  it('records a refused upgrade as http_error and an unreachable port as connection_error, never naming the URL', async () => {
    const http = createServer((_req, res) => res.writeHead(401).end('S3cret body'));
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise<void>((resolve) => http.close(() => resolve())));
    const port = (http.address() as { port: number }).port;
    const refused = await client(`ws://127.0.0.1:${port}${SECRET_PATH}`, 2_000).call(call(0, 'eth_blockNumber'));
    expect(refused.outcome).toBe('http_error');
    const closedPort = await client(`ws://127.0.0.1:1${SECRET_PATH}`, 2_000).call(call(0, 'eth_blockNumber'));
    expect(closedPort.outcome).toBe('connection_error');
    const failing = client(`ws://127.0.0.1:${port}${SECRET_PATH}`, 2_000);
    const error = (await failing.result('eth_blockNumber', []).catch((e: unknown) => e)) as Error;
    expect(error.message).toBe('eth_blockNumber failed: http_error');
  });

  it('returns a result() and lets calls already made finish on close', async () => {
    const { url } = await server((socket, request) => setTimeout(() => answer(socket, request.id, { result: '0x2a' }), 50));
    const c = client(url, 2_000);
    expect(await c.result('eth_blockNumber', [])).toBe('0x2a');
    const pending = c.call(call(0, 'eth_blockNumber'));
    await new Promise((resolve) => setTimeout(resolve, 5));
    const closing = c.close();
    expect((await c.call(call(1, 'late'))).outcome).toBe('connection_error');
    expect((await pending).outcome).toBe('ok');
    await closing;
  });

  it('a name the policy refuses (localhost, private targets off): the first call and every later one throw the refusal, none is a connection error', async () => {
    // The test's own loopback server: never reached, since the guarded lookup refuses the address first.
    const { url, connections } = await server(() => undefined);
    const c = client(url.replace('127.0.0.1', 'localhost'), 1_000, { sockets: 1, allowPrivateTargets: false });
    // A head read that lets its failure go must not turn the refusal into an unreachable endpoint.
    await expect(c.result('eth_blockNumber', [])).rejects.toThrow(OutboundAddressRefusedError);
    await expect(c.call(call(0, 'eth_blockNumber'))).rejects.toThrow(OutboundAddressRefusedError);
    await expect(c.call(call(1, 'eth_blockNumber'))).rejects.toThrow(/^refused to connect to a loopback address$/);
    expect(connections()).toBe(0);
  });

  it('refuses a link-local literal before connecting, and is the ws transport of json-rpc-http', () => {
    const options = { connections: 1, allowPrivateTargets: true, answers: CHAINS.evm };
    expect(() => createWsCallClient({ url: 'ws://169.254.169.254/k', headers: {}, timeoutMs: 1_000 }, options)).toThrow(OutboundAddressRefusedError);
    const open = transportFor('json-rpc-http', 'ws');
    expect(() => open({ addresses: { http: 'http://127.0.0.1:1/' }, headers: {}, timeoutMs: 1_000 }, options)).toThrow(MissingAddressError);
    expect(() => open({ addresses: { http: 'http://127.0.0.1:1/', ws: 'ws://169.254.169.254/k' }, headers: {}, timeoutMs: 1_000 }, options)).toThrow(/^refused to connect to a link_local address$/);
  });
});
