import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/*
 * A probed endpoint that misbehaves on purpose, on loopback only: every answer a hostile or
 * broken node could give that the probe must turn into a sample without crashing, and a count
 * of how often each request arrived (a request the client sent twice would show as 2).
 */

/** Deeper than any comparison allows, and ~8 KB: the answer that once overflowed the stack. */
export const DEEP_NESTING = 4_000;
/** Over the probe's 8 MiB response cap. */
export const HUGE_BYTES = 9 * 1024 * 1024;

export type HostileMode =
  | 'ok'
  /** A result nested DEEP_NESTING arrays deep. */
  | 'deep'
  /** A HUGE_BYTES body with a Content-Length. */
  | 'huge'
  /** A HUGE_BYTES body, chunked, no Content-Length. */
  | 'huge-chunked'
  /** Headers promising 100 bytes, then one byte every 50 ms for as long as the socket lives. */
  | 'trickle'
  /** Headers and half the body, then a TCP reset. */
  | 'reset-partial'
  /** A full answer, then the connection closed without `Connection: close`. */
  | 'close-after-answer'
  /** A 301 to another loopback port (which must not be followed). */
  | 'redirect'
  /** Reads the request, then destroys the connection without answering. */
  | 'destroy-after-read'
  /**
   * Answers the first request of a connection and keeps it open, then closes the connection when
   * the next request arrives on it, without answering: the keep-alive race, made certain.
   */
  | 'close-on-reuse'
  /** A large (2 MiB) valid answer, for the response budget. */
  | 'large-ok'
  /** A result of `[{},{},…]` just under the 8 MiB cap: ~2.8 million objects once parsed (issue 30, H1). */
  | 'value-dense'
  /** Every result `"0x"` + 4,000,000 × `f`: a 4 MB quantity, eth_blockNumber included (issue 30, H4). */
  | 'huge-hex';

export const LARGE_OK_BYTES = 2 * 1024 * 1024;

export interface HostileNode {
  url: string;
  setMode(mode: HostileMode): void;
  /** How many times a request with this JSON-RPC id arrived. */
  arrivals(id: number): number;
  /** Requests received in all. */
  requests(): number;
  /** TCP connections accepted. */
  connections(): number;
  close(): Promise<void>;
}

const answer = (id: unknown, result: string) => `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${result}}`;

export async function startHostileNode(initial: HostileMode = 'ok'): Promise<HostileNode> {
  let mode = initial;
  let requests = 0;
  let connections = 0;
  const byId = new Map<number, number>();
  const requestsOnSocket = new WeakMap<Socket, number>();
  const sockets = new Set<Socket>();
  const deepResult = `${'['.repeat(DEEP_NESTING)}${']'.repeat(DEEP_NESTING)}`;
  const hugeString = `"${'a'.repeat(HUGE_BYTES)}"`;
  const largeString = `"0x${'ab'.repeat(LARGE_OK_BYTES / 2)}"`;
  const valueDense = `[${Array(Math.floor((8 * 1024 * 1024 - 4096) / 3)).fill('{}').join(',')}]`;
  const hugeHex = `"0x${'f'.repeat(4_000_000)}"`;

  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      requests++;
      const socket = req.socket;
      const onSocket = (requestsOnSocket.get(socket) ?? 0) + 1;
      requestsOnSocket.set(socket, onSocket);
      let id: unknown = null;
      try {
        id = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id?: unknown }).id;
      } catch {
        // Counted as a request all the same.
      }
      if (typeof id === 'number') byId.set(id, (byId.get(id) ?? 0) + 1);
      respond(mode, id, socket, res, onSocket);
    });
  });
  server.on('connection', (socket: Socket) => {
    connections++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
  });

  function respond(current: HostileMode, id: unknown, socket: Socket, res: ServerResponse, onSocket: number): void {
    switch (current) {
      case 'ok':
        return json(res, answer(id, '"0x1"'));
      case 'deep':
        return json(res, answer(id, deepResult));
      case 'large-ok':
        return json(res, answer(id, largeString));
      case 'value-dense':
        return json(res, answer(id, valueDense));
      case 'huge-hex':
        return json(res, answer(id, hugeHex));
      case 'huge':
        return json(res, answer(id, hugeString));
      case 'huge-chunked':
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write(answer(id, hugeString));
        res.end();
        return;
      case 'trickle': {
        socket.write('HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n');
        const drip = setInterval(() => (socket.destroyed ? clearInterval(drip) : socket.write(' ')), 50);
        socket.on('close', () => clearInterval(drip));
        return;
      }
      case 'reset-partial': {
        const body = answer(id, '"0x1"');
        socket.write(`HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n${body.slice(0, 10)}`);
        setTimeout(() => socket.resetAndDestroy(), 20);
        return;
      }
      case 'close-after-answer': {
        const body = answer(id, '"0x1"');
        socket.end(`HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n${body}`);
        return;
      }
      case 'redirect':
        res.writeHead(301, { location: 'http://127.0.0.1:1/' });
        res.end();
        return;
      case 'destroy-after-read':
        socket.destroy();
        return;
      case 'close-on-reuse':
        if (onSocket > 1) {
          socket.destroy();
          return;
        }
        return json(res, answer(id, '"0x1"'));
    }
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/`,
    setMode: (next) => (mode = next),
    arrivals: (id) => byId.get(id) ?? 0,
    requests: () => requests,
    connections: () => connections,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

function json(res: ServerResponse, body: string): void {
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}
