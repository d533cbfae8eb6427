import { CHAINS } from '../../src/chains/registry';
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { createServer as createNetServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { OutboundAddressRefusedError } from '../../src/net/guarded-lookup';
import { createJsonRpcClient, type JsonRpcClient } from '../../src/probe/json-rpc-client';
import { probeRange } from '../../src/probe/probe-range';
import { createPlanner, type PlannedCall } from '../../src/domain/workload';
import { freePort } from '../helpers/free-port';
import { answers, startFakeNode, type Behaviour, type FakeNode } from '../helpers/json-rpc-node';

// The probe client on its own, against a loopback node: connection reuse and limits, every
// outcome, and the guard. (Runs go through it in run-engine.test.ts.)
describe('JSON-RPC probe client', () => {
  const open: { node?: FakeNode; client?: JsonRpcClient }[] = [];
  afterEach(async () => {
    for (const { node, client } of open.splice(0)) {
      await client?.close();
      await node?.close();
    }
  });

  async function setup(behaviour: Behaviour, options: { connections?: number; timeoutMs?: number; url?: (base: string) => string; headers?: Record<string, string> } = {}) {
    const node = await startFakeNode(behaviour);
    const client = createJsonRpcClient(
      { url: options.url ? options.url(node.url) : node.url, headers: options.headers ?? {}, timeoutMs: options.timeoutMs ?? 2_000 },
      { connections: options.connections ?? 2, allowPrivateTargets: true, answers: CHAINS.evm },
    );
    open.push({ node, client });
    return { node, client };
  }

  const call = (seq: number): PlannedCall => ({ seq, method: 'eth_blockNumber', params: [] });

  const servers: Server[] = [];
  afterEach(async () => {
    for (const server of servers.splice(0)) {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  /** A loopback TCP server that answers every request's bytes with `respond` (raw HTTP, any framing). */
  async function rawServer(respond: (socket: Socket, request: string) => void): Promise<{ url: string; accepted: () => number }> {
    let accepted = 0;
    const sockets = new Set<Socket>();
    const server = createNetServer((socket) => {
      accepted++;
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => undefined);
      socket.on('data', (chunk) => respond(socket, chunk.toString('latin1')));
    });
    const close = server.close.bind(server);
    server.close = ((callback?: (error?: Error) => void) => {
      for (const socket of sockets) socket.destroy();
      return close(callback);
    }) as typeof server.close;
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    return { url: `http://127.0.0.1:${port}/`, accepted: () => accepted };
  }

  function clientFor(url: string, options: { timeoutMs?: number; connections?: number; ca?: string } = {}): JsonRpcClient {
    const client = createJsonRpcClient(
      { url, headers: {}, timeoutMs: options.timeoutMs ?? 2_000 },
      { connections: options.connections ?? 1, allowPrivateTargets: true, answers: CHAINS.evm, ca: options.ca },
    );
    open.push({ client });
    return client;
  }

  const okBody = (id = 1) => `{"jsonrpc":"2.0","id":${id},"result":"0x1"}`;

  it('carries any number of concurrent calls over at most `connections` reused keep-alive connections', async () => {
    const { node, client } = await setup(answers.ok('0x2a'), { connections: 3 });
    const results = await Promise.all(Array.from({ length: 40 }, (_, i) => client.call(call(i))));
    expect(results.map((r) => r.seq)).toEqual(Array.from({ length: 40 }, (_, i) => i));
    expect(results.every((r) => r.outcome === 'ok' && r.httpStatus === 200)).toBe(true);
    expect(node.requests).toHaveLength(40);
    expect(node.connections()).toBeLessThanOrEqual(3);
    const more = await Promise.all(Array.from({ length: 10 }, (_, i) => client.call(call(40 + i))));
    expect(more.every((r) => r.outcome === 'ok')).toBe(true);
    expect(node.connections()).toBeLessThanOrEqual(3);
  });

  it('close() lets calls already made finish, in flight or waiting, and fails calls made after it', async () => {
    const { client } = await setup(answers.delay(50), { connections: 2 });
    const pending = Array.from({ length: 6 }, (_, i) => client.call(call(i)));
    await client.close();
    expect((await Promise.all(pending)).map((r) => r.outcome)).toEqual(Array(6).fill('ok'));
    await expect(client.call(call(6))).resolves.toMatchObject({ outcome: 'connection_error' });
  });

  it('keeps working after failed calls: a reset or timed-out connection gives its slot back', async () => {
    let failing = true;
    const { node, client } = await setup(
      (req, res) => (failing ? answers.reset()(req, res) : answers.ok()(req, res)),
      { connections: 2 },
    );
    const failed = await Promise.all(Array.from({ length: 6 }, (_, i) => client.call(call(i))));
    expect(failed.map((r) => r.outcome)).toEqual(Array(6).fill('connection_error'));
    failing = false;
    const ok = await Promise.all(Array.from({ length: 6 }, (_, i) => client.call(call(6 + i))));
    expect(ok.map((r) => r.outcome)).toEqual(Array(6).fill('ok'));
    expect(node.requests).toHaveLength(12);
  });

  it.each([
    ['a result', answers.ok(), { outcome: 'ok', httpStatus: 200, rpcErrorCode: null }],
    ['a JSON-RPC error with HTTP 200', answers.rpcError(-32005), { outcome: 'rpc_error', httpStatus: 200, rpcErrorCode: -32005 }],
    ['HTTP 503', answers.httpError(503), { outcome: 'http_error', httpStatus: 503, rpcErrorCode: null }],
    ['a redirect, never followed', answers.redirect(), { outcome: 'http_error', httpStatus: 307, rpcErrorCode: null }],
    ['malformed JSON', answers.malformed(), { outcome: 'invalid_response', httpStatus: 200, rpcErrorCode: null, reason: 'body is not JSON' }],
    ['a reset connection', answers.reset(), { outcome: 'connection_error', httpStatus: null, rpcErrorCode: null }],
    ['nothing within the timeout', answers.delay(1_000), { outcome: 'timeout', httpStatus: null, rpcErrorCode: null }],
    [
      'a body over the 8 MiB cap',
      ((_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(`{"jsonrpc":"2.0","id":1,"result":"${'a'.repeat(9 * 1024 * 1024)}"}`);
      }) as Behaviour,
      { outcome: 'invalid_response', httpStatus: null, rpcErrorCode: null, reason: 'response larger than the size cap' },
      // Long enough to read 8 MiB on a busy machine: the cap, not the deadline, must end it.
      10_000,
    ],
  ])('turns %s into a sample outcome', async (_case, behaviour, expected, timeoutMs = 300) => {
    const { node, client } = await setup(behaviour, { timeoutMs });
    const result = await client.call(call(7));
    expect(result).toMatchObject({ seq: 7, method: 'eth_blockNumber', ...expected });
    expect(result.latencyUs).toBeGreaterThan(0);
    expect(node.requests).toHaveLength(1);
  });

  it('sends a JSON-RPC 2.0 POST with the configured headers, URL credentials as Basic auth', async () => {
    const { node, client } = await setup(answers.ok(), {
      url: (base) => `${base.replace('http://', 'http://us%40er:p%3Ass@')}/rpc/v1?key=abc`,
      headers: { 'x-api-key': 'k1' },
    });
    await client.call({ seq: 3, method: 'eth_getBalance', params: ['0xabc', 'latest'] });
    const [request] = node.requests;
    expect(request).toMatchObject({ method: 'eth_getBalance', params: ['0xabc', 'latest'] });
    expect(request!.headers).toMatchObject({
      'content-type': 'application/json',
      'x-api-key': 'k1',
      authorization: `Basic ${Buffer.from('us@er:p:ss').toString('base64')}`,
    });
  });

  it('counts latency from the intended start of an open-loop call, so a late send shows as latency', async () => {
    const { client } = await setup(answers.ok());
    const result = await client.call(call(1), performance.now() - 250);
    expect(result.latencyUs).toBeGreaterThanOrEqual(250_000);
    expect(Date.now() - result.startedAt.getTime()).toBeGreaterThanOrEqual(250);
  });

  it('returns a result() value, and throws naming only the method when the call fails', async () => {
    const { node, client } = await setup(answers.ok('0x64'), { url: (base) => `${base}/?apikey=SECRET123` });
    await expect(client.result('eth_blockNumber', [])).resolves.toBe('0x64');
    node.setBehaviour(answers.rpcError());
    const error = await client.result('eth_blockNumber', []).catch((e: unknown) => e as Error);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toBe('eth_blockNumber failed: rpc_error');
  });

  it('refuses a loopback target when private targets are disallowed, by literal or by name, sending nothing', async () => {
    const node = await startFakeNode();
    open.push({ node });
    expect(() =>
      createJsonRpcClient({ url: node.url, headers: {}, timeoutMs: 1_000 }, { connections: 1, allowPrivateTargets: false, answers: CHAINS.evm }),
    ).toThrow(OutboundAddressRefusedError);
    const byName = createJsonRpcClient(
      { url: node.url.replace('127.0.0.1', 'localhost'), headers: {}, timeoutMs: 1_000 },
      { connections: 1, allowPrivateTargets: false, answers: CHAINS.evm },
    );
    open.push({ client: byName });
    await expect(byName.call(call(1))).rejects.toThrow(/refused to connect to a loopback address/);
    await expect(byName.result('eth_blockNumber', [])).rejects.toThrow(/refused to connect to a loopback address/);
    expect(node.connections()).toBe(0);
  });

  it.each([
    ['chunked', (s: Socket) => s.write('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n{"jso\r\n' + (okBody().length - 5).toString(16) + '\r\n' + okBody().slice(5) + '\r\n0\r\n\r\n'), 'ok'],
    ['delimited by the close', (s: Socket) => s.end(`HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n\r\n${okBody()}`), 'ok'],
    // undici refuses a 100 Continue nobody asked for (the client never sends Expect: 100-continue).
    ['after an unsolicited 100 Continue', (s: Socket) => s.write(`HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\ncontent-length: ${okBody().length}\r\n\r\n${okBody()}`), 'connection_error'],
    ['not HTTP at all', (s: Socket) => s.write('SSH-2.0-OpenSSH_9.2\r\n\r\n'), 'invalid_response'],
    ['cut off mid-body', (s: Socket) => s.end('HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\n{"jsonrpc"'), 'connection_error'],
    ['headers, then a stalled body', (s: Socket) => s.write('HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\n{"jsonrpc"'), 'timeout'],
    [
      'trickled a byte at a time, for longer than the timeout in all',
      (s: Socket) => {
        s.write('HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\n');
        const drip = setInterval(() => (s.destroyed ? clearInterval(drip) : s.write(' ')), 50);
        setTimeout(() => clearInterval(drip), 2_000);
      },
      'timeout',
    ],
  ])('reads a response %s from a raw server', async (_case, respond, outcome) => {
    const server = await rawServer((socket) => respond(socket));
    const result = await clientFor(server.url, { timeoutMs: 300 }).call(call(1));
    expect(result.outcome).toBe(outcome);
  });

  it('records a connection refused by a closed port as connection_error', async () => {
    const server = await rawServer(() => undefined);
    const port = new URL(server.url).port;
    servers.pop()!.close();
    const result = await clientFor(`http://127.0.0.1:${port}/`).call(call(1));
    expect(result.outcome).toBe('connection_error');
    await expect(clientFor(`http://127.0.0.1:${port}/`).result('eth_blockNumber', [])).rejects.toThrow(/^eth_blockNumber failed: connection_error$/);
  });

  // Calls beyond the connections wait; a refused connect hands its client to the next one. undici
  // fails the request inside its connect-error path and then asserts the client is empty: a call
  // sent on it from inside that path was an uncaught AssertionError that ended the process.
  it.each([
    [1, 2],
    [4, 8],
    [64, 1_024],
  ])('survives a refused port with more calls than connections (%i connections, %i calls)', async (connections, calls) => {
    const port = await freePort();
    const client = clientFor(`http://127.0.0.1:${port}/`, { connections });
    const results = await Promise.all(Array.from({ length: calls }, (_, i) => client.call(call(i))));
    expect(results.map((r) => r.seq)).toEqual(Array.from({ length: calls }, (_, i) => i));
    expect(new Set(results.map((r) => r.outcome))).toEqual(new Set(['connection_error']));
    await expect(client.result('eth_blockNumber', [])).rejects.toThrow(/^eth_blockNumber failed: connection_error$/);
  });

  it('a process whose calls outnumber its connections to a refused port survives them', async () => {
    const port = await freePort();
    const child = spawn(process.execPath, ['--import', 'tsx', 'test/helpers/refused-port-calls.ts', String(port), '1:2', '4:8', '64:1024'], {
      cwd: path.resolve(__dirname, '..', '..'),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect({ code, stderr: stderr.split('\n').find((line) => line.includes('Error')) }).toEqual({ code: 0, stderr: undefined });
    expect(stdout.trim().split('\n')).toEqual(['1:2 2 connection_error', '4:8 8 connection_error', '64:1024 1024 connection_error']);
  });

  it('probes an endpoint that refuses connections for a while and then accepts: every seq once, ok once it is up', async () => {
    const port = await freePort();
    const client = clientFor(`http://127.0.0.1:${port}/`, { connections: 4 });
    const plan = createPlanner({ methods: [{ method: 'eth_chainId', params: [], weight: 1 }] }, 1, null, CHAINS.evm.renderPinned);
    const server = createHttpServer((req, res) => {
      req.resume();
      req.on('end', () => res.end(okBody()));
    });
    // Open loop at 1,000/s, up to 64 in flight over 4 connections: refused for the first ~400 ms.
    const listening = new Promise<void>((resolve) => setTimeout(() => server.listen(port, '127.0.0.1', resolve), 400));
    try {
      const { results, nextSeq } = await probeRange({ client, plan, from: 0, to: 1_200, concurrency: 4, ratePerSecond: 1_000 });
      expect(nextSeq).toBe(1_200);
      expect(results.map((r) => r.seq)).toEqual(Array.from({ length: 1_200 }, (_, i) => i));
      expect(results[0]!.outcome).toBe('connection_error');
      expect(results.at(-1)!.outcome).toBe('ok');
      expect(new Set(results.map((r) => r.outcome))).toEqual(new Set(['connection_error', 'ok']));
    } finally {
      await listening;
      await client.close();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('opens a new connection when the server closed an idle one or announced its keep-alive timeout', async () => {
    let connections = 0;
    const server = createHttpServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.setHeader('content-type', 'application/json');
        res.end(okBody());
      });
    });
    server.on('connection', () => connections++);
    server.keepAliveTimeout = 100; // closes idle connections itself, and says timeout=0 (rounded down)
    servers.push(server as unknown as Server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const client = clientFor(`http://127.0.0.1:${(server.address() as { port: number }).port}/`);
    for (let i = 0; i < 3; i++) {
      expect((await client.call(call(i))).outcome).toBe('ok');
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(connections).toBe(3);
  });

  it('never sends a call twice when the server closes each connection right after its answer, without notice', async () => {
    // Some calls go out on a connection whose close is already under way (the keep-alive race).
    // The server reads them, so sending them again would repeat them (a second transaction, for
    // eth_sendRawTransaction): each is a connection_error sample instead.
    let requests = 0;
    const server = await rawServer((socket) => {
      requests++;
      socket.end(`HTTP/1.1 200 OK\r\ncontent-length: ${okBody().length}\r\n\r\n${okBody()}`);
    });
    const client = clientFor(server.url, { connections: 2 });
    const results = await probeRange({
      client,
      plan: createPlanner({ methods: [{ method: 'eth_chainId', params: [], weight: 1 }] }, 1, null, CHAINS.evm.renderPinned),
      from: 0,
      to: 40,
      concurrency: 2,
    });
    const outcomes = results.results.map((r) => r.outcome);
    expect(outcomes).toHaveLength(40);
    expect(outcomes.filter((o) => o !== 'ok' && o !== 'connection_error')).toEqual([]);
    expect(outcomes).toContain('ok');
    expect(requests).toBe(40);
  });

  it('notices an idle connection the server closed without notice and sends the next call on a new one', async () => {
    const server = await rawServer((socket) => {
      socket.write(`HTTP/1.1 200 OK\r\ncontent-length: ${okBody().length}\r\n\r\n${okBody()}`);
      setTimeout(() => socket.destroy(), 50);
    });
    const client = clientFor(server.url);
    for (let i = 0; i < 3; i++) {
      expect((await client.call(call(i))).outcome).toBe('ok');
      await new Promise((resolve) => setTimeout(resolve, 150));
    }
    expect(server.accepted()).toBe(3);
  });

  it('reuses a connection the server keeps open, and drops one answered with Connection: close', async () => {
    let close = false;
    const server = await rawServer((socket) => {
      socket.write(`HTTP/1.1 200 OK\r\n${close ? 'connection: close\r\n' : ''}content-length: ${okBody().length}\r\n\r\n${okBody()}`);
      if (close) socket.end();
    });
    const client = clientFor(server.url);
    for (let i = 0; i < 3; i++) expect((await client.call(call(i))).outcome).toBe('ok');
    expect(server.accepted()).toBe(1);
    close = true;
    for (let i = 0; i < 3; i++) expect((await client.call(call(i))).outcome).toBe('ok');
    // The first of these still went over the kept connection; each answer then closed its own.
    expect(server.accepted()).toBe(3);
  });

  it('speaks HTTPS, verifying the certificate: trusted when its CA is given, connection_error when not', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'rvs-tls-'));
    try {
      execFileSync('openssl', [
        'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=localhost',
        '-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost',
        '-keyout', path.join(dir, 'key.pem'), '-out', path.join(dir, 'cert.pem'),
      ], { stdio: 'ignore' });
      const cert = readFileSync(path.join(dir, 'cert.pem'), 'utf8');
      const server = createHttpsServer({ key: readFileSync(path.join(dir, 'key.pem')), cert }, (req, res) => {
        req.resume();
        req.on('end', () => res.end(okBody()));
      });
      servers.push(server as unknown as Server);
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const url = `https://127.0.0.1:${(server.address() as { port: number }).port}/`;
      const trusting = clientFor(url, { ca: cert, connections: 2 });
      const results = await Promise.all([1, 2, 3, 4].map((i) => trusting.call(call(i))));
      expect(results.map((r) => r.outcome)).toEqual(['ok', 'ok', 'ok', 'ok']);
      expect((await clientFor(url).call(call(5))).outcome).toBe('connection_error');
      // The guard works on the TLS connect path too: a name resolving to loopback is refused.
      const guarded = createJsonRpcClient(
        { url: url.replace('127.0.0.1', 'localhost'), headers: {}, timeoutMs: 1_000 },
        { connections: 1, allowPrivateTargets: false, answers: CHAINS.evm, ca: cert },
      );
      open.push({ client: guarded });
      await expect(guarded.call(call(6))).rejects.toThrow(/refused to connect to a loopback address/);
      // By name, with private targets allowed, the certificate's DNS name is checked (SNI).
      expect((await clientFor(url.replace('127.0.0.1', 'localhost'), { ca: cert }).call(call(7))).outcome).toBe('ok');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses header names and values that could split the request, naming the header but never its value', () => {
    const make = (headers: Record<string, string>) => () =>
      createJsonRpcClient({ url: 'http://127.0.0.1:1/', headers, timeoutMs: 1_000 }, { connections: 1, allowPrivateTargets: true, answers: CHAINS.evm });
    expect(make({ 'x-key': 'SECRET\r\nx-injected: 1' })).toThrow(/^invalid value of header x-key$/);
    expect(make({ 'x key': 'v' })).toThrow(/invalid header name/);
    expect(make({ Host: 'evil.example' })).toThrow(/header Host is set by the service/);
    expect(make({ 'x-key': 'fine' })).not.toThrow();
  });

  it('probeRange returns a gap-free, ordered prefix in closed and open loop, and stops on abort', async () => {
    const { client } = await setup(answers.ok(), { connections: 4 });
    const plan = createPlanner({ methods: [{ method: 'eth_chainId', params: [], weight: 1 }] }, 1, null, CHAINS.evm.renderPinned);
    const closed = await probeRange({ client, plan, from: 10, to: 60, concurrency: 4 });
    expect(closed.nextSeq).toBe(60);
    expect(closed.results.map((r) => r.seq)).toEqual(Array.from({ length: 50 }, (_, i) => 10 + i));

    const open_ = await probeRange({ client, plan, from: 0, to: 20, concurrency: 2, ratePerSecond: 200 });
    expect(open_.results.map((r) => r.seq)).toEqual(Array.from({ length: 20 }, (_, i) => i));

    const abort = new AbortController();
    setTimeout(() => abort.abort(), 100);
    const stopped = await probeRange({ client, plan, from: 0, to: Number.POSITIVE_INFINITY, concurrency: 2, ratePerSecond: 50, signal: abort.signal });
    expect(stopped.nextSeq).toBeLessThan(50);
    expect(stopped.results).toHaveLength(stopped.nextSeq);
    expect(stopped.results.every((r, i) => r.seq === i && r.outcome === 'ok')).toBe(true);
  });
});
