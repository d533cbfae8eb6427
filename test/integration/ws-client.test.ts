import { createServer, type Server } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket, { WebSocketServer } from 'ws';
import { openWsRpc, WsConnectError, WsRequestError, type WsRpcConnection } from '../../src/probe/ws-client';
import { freePort } from '../helpers/free-port';

/*
 * The WebSocket JSON-RPC client against servers the test owns on loopback: answers out of order,
 * errors, a refused upgrade, a server that never answers pings. Error messages never carry the
 * URL (the path and query hold the key).
 */

const SECRET_PATH = '/v3/WsS3cretKey?apikey=WsS3cretQuery';
const options = { allowPrivateTargets: true, envelope: 'json-rpc-2.0' as const };

describe('openWsRpc', () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  async function server(onConnection: (socket: WebSocket) => void, extra: { autoPong?: boolean } = {}): Promise<string> {
    const wss = new WebSocketServer({ host: '127.0.0.1', port: 0, ...extra });
    wss.on('connection', onConnection);
    await new Promise<void>((resolve) => wss.once('listening', () => resolve()));
    cleanups.push(
      () =>
        new Promise<void>((resolve) => {
          for (const client of wss.clients) client.terminate();
          wss.close(() => resolve());
        }),
    );
    const address = wss.address();
    return `ws://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}${SECRET_PATH}`;
  }
  function track(connection: WsRpcConnection): WsRpcConnection {
    cleanups.push(async () => {
      connection.close();
      await connection.closed;
    });
    return connection;
  }

  it('matches answers to requests by id whatever their order, and reports RPC errors by code only', async () => {
    const url = await server((socket) => {
      const held: { id: number; method: string }[] = [];
      socket.on('message', (data) => {
        const request = JSON.parse(data.toString()) as { id: number; method: string };
        held.push(request);
        if (held.length < 3) return;
        // All three answered in reverse order; the second is an error whose message is the server's text.
        for (const r of held.reverse()) {
          socket.send(JSON.stringify(r.method === 'bad' ? { jsonrpc: '2.0', id: r.id, error: { code: -32601, message: 'S3cret server text' } } : { jsonrpc: '2.0', id: r.id, result: r.method }));
        }
        socket.send(JSON.stringify({ jsonrpc: '2.0', id: 999, result: 'nobody asked' }));
      });
    });
    const connection = track(await openWsRpc({ url, headers: {}, timeoutMs: 2_000 }, options));
    const [a, bad, c] = await Promise.allSettled([connection.request('a', []), connection.request('bad', []), connection.request('c', [])]);
    expect(a).toEqual({ status: 'fulfilled', value: 'a' });
    expect(c).toEqual({ status: 'fulfilled', value: 'c' });
    expect(bad.status).toBe('rejected');
    const error = (bad as PromiseRejectedResult).reason as WsRequestError;
    expect(error).toBeInstanceOf(WsRequestError);
    expect(error).toMatchObject({ kind: 'rpc_error', rpcErrorCode: -32601 });
    expect(error.message).not.toContain('S3cret');
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(connection.stats.unmatchedAnswers).toBe(1);
  });

  it('times a request out, and fails requests in flight when the server closes', async () => {
    let serverSide: WebSocket | null = null;
    const url = await server((socket) => {
      serverSide = socket;
    });
    const connection = track(await openWsRpc({ url, headers: {}, timeoutMs: 200 }, options));
    await expect(connection.request('silent', [])).rejects.toMatchObject({ kind: 'timeout' });
    const pending = connection.request('silent', [], 5_000);
    serverSide!.close(4000, 'S3cret close reason');
    await expect(pending).rejects.toMatchObject({ kind: 'closed' });
    expect(await connection.closed).toEqual({ reason: 'remote_closed', code: 4000 });
  });

  it('refuses an upgrade answered without 101 (no redirect followed), and a closed port, naming neither URL nor key', async () => {
    const http: Server = createServer((_req, res) => {
      res.writeHead(302, { location: 'ws://169.254.169.254/' });
      res.end();
    });
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise<void>((resolve) => http.close(() => resolve())));
    const address = http.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    const refused = await openWsRpc({ url: `ws://127.0.0.1:${port}${SECRET_PATH}`, headers: {}, timeoutMs: 2_000 }, options).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(WsConnectError);
    expect(refused).toMatchObject({ kind: 'http_status' });
    const closed = await openWsRpc({ url: `ws://127.0.0.1:${await freePort()}${SECRET_PATH}`, headers: {}, timeoutMs: 2_000 }, options).catch((e: unknown) => e);
    expect(closed).toMatchObject({ kind: 'connection_error' });
    for (const error of [refused, closed]) expect(String((error as Error).message) + String((error as Error).stack)).not.toMatch(/S3cret|127\.0\.0\.1/);
  });

  it('ends a connection whose server stops answering pings (ping_timeout)', async () => {
    const url = await server(() => undefined, { autoPong: false });
    const connection = track(await openWsRpc({ url, headers: {}, timeoutMs: 2_000 }, { ...options, pingIntervalMs: 100 }));
    expect(await connection.closed).toMatchObject({ reason: 'ping_timeout' });
  });

  it('sends the endpoint\'s headers with the upgrade (the handshake\'s own fields left to the client) and refuses a header the service sets', async () => {
    let seen: string | undefined;
    const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
    wss.on('connection', (_socket, request) => {
      seen = request.headers['x-api-key'] as string | undefined;
    });
    await new Promise<void>((resolve) => wss.once('listening', () => resolve()));
    cleanups.push(() => new Promise<void>((resolve) => wss.close(() => resolve())));
    const address = wss.address();
    const url = `ws://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/`;
    track(await openWsRpc({ url, headers: { 'X-Api-Key': 'k-123', 'Sec-WebSocket-Key': 'not the client\'s' }, timeoutMs: 2_000 }, options));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(seen).toBe('k-123');
    await expect(openWsRpc({ url, headers: { host: 'x' }, timeoutMs: 2_000 }, options)).rejects.toThrow('header host is set by the service');
  });
});
