import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import WebSocket, { WebSocketServer } from 'ws';

/*
 * An EVM node on 127.0.0.1 whose WebSocket misbehaves on purpose (issue 30): one port serves its
 * HTTP JSON-RPC (eth_blockNumber and the like, honestly) and its WebSocket, where each mode is one
 * way a hostile node can answer. Honest heads come every HEAD_INTERVAL_MS, numbered from the clock
 * so that two such nodes (a candidate and a reference) announce the same heads.
 */

export type HostileWsMode =
  | 'ok'
  /** Every request over the WebSocket is answered with a value-dense result just under 8 MiB. */
  | 'dense-result'
  /** Before each answer, a value-dense message just under 8 MiB whose id matches no request. */
  | 'dense-unmatched'
  /** Before answering eth_subscribe: EARLY_FLOOD notifications of ~255 KB `[{},…]` each. */
  | 'early-flood'
  /** Each request starts a fragmented message, then zero-length continuation frames for as long as the socket lives. */
  | 'zero-continuations'
  /** As zero-continuations, one frame every 20 ms: a message that never ends, slowly. */
  | 'trickle-continuations';

export const HEAD_INTERVAL_MS = 500;
export const EARLY_FLOOD = 200;
/** Dense answers stay under the probe's 8 MiB message cap, so only their shape refuses them. */
const DENSE_BYTES = 8 * 1024 * 1024 - 4096;
const EARLY_BYTES = 255 * 1000;

const dense = (bytes: number) => `[${Array(Math.floor(bytes / 3)).fill('{}').join(',')}]`;
const headNumber = () => Math.floor(Date.now() / HEAD_INTERVAL_MS);
const hashOf = (n: number) => `0x${n.toString(16).padStart(64, '0')}`;

export interface HostileWsNode {
  url: string;
  wsUrl: string;
  setMode(mode: HostileWsMode): void;
  /** WebSocket connections accepted. */
  connections(): number;
  close(): Promise<void>;
}

export async function startHostileWsNode(initial: HostileWsMode = 'ok'): Promise<HostileWsNode> {
  let mode = initial;
  let connections = 0;
  const denseResult = dense(DENSE_BYTES);
  const earlyNotification = `{"jsonrpc":"2.0","method":"eth_subscription","params":{"subscription":"0x1","result":${dense(EARLY_BYTES)}}}`;
  const sockets = new Set<Socket>();
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      let id: unknown = null;
      try {
        id = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id?: unknown }).id;
      } catch {
        // Answered all the same.
      }
      const body = JSON.stringify({ jsonrpc: '2.0', id, result: `0x${headNumber().toString(16)}` });
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
      res.end(body);
    });
  });
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
  });
  const wss = new WebSocketServer({ server, perMessageDeflate: false });
  wss.on('connection', (ws: WebSocket) => {
    connections++;
    ws.on('error', () => undefined);
    let heads: NodeJS.Timeout | null = null;
    ws.on('close', () => heads && clearInterval(heads));
    ws.on('message', (data) => {
      let request: { id?: unknown; method?: unknown };
      try {
        request = JSON.parse(String(data)) as typeof request;
      } catch {
        return;
      }
      const answer = (result: string) => ws.send(`{"jsonrpc":"2.0","id":${JSON.stringify(request.id ?? null)},"result":${result}}`);
      if (request.method === 'eth_subscribe') {
        if (mode === 'early-flood') for (let i = 0; i < EARLY_FLOOD; i++) ws.send(earlyNotification);
        answer('"0x1"');
        heads = setInterval(() => {
          const n = headNumber();
          ws.send(JSON.stringify({ jsonrpc: '2.0', method: 'eth_subscription', params: { subscription: '0x1', result: { number: `0x${n.toString(16)}`, hash: hashOf(n) } } }));
        }, HEAD_INTERVAL_MS);
        return;
      }
      if (request.method === 'eth_unsubscribe') return answer('true');
      switch (mode) {
        case 'dense-result':
          return answer(denseResult);
        case 'dense-unmatched':
          ws.send(`{"jsonrpc":"2.0","id":${Number(request.id) + 1_000_000},"result":${denseResult}}`);
          return answer(`"0x${headNumber().toString(16)}"`);
        case 'zero-continuations':
        case 'trickle-continuations':
          return endlessMessage(ws, mode === 'trickle-continuations' ? 20 : 0);
        default:
          return answer(`"0x${headNumber().toString(16)}"`);
      }
    });
  });

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/`,
    wsUrl: `ws://127.0.0.1:${port}/`,
    setMode: (next) => (mode = next),
    connections: () => connections,
    close: async () => {
      for (const client of wss.clients) client.terminate();
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => wss.close(resolve));
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** A text frame without FIN ("{"), then zero-length continuation frames without FIN, raw on the socket. */
function endlessMessage(ws: WebSocket, intervalMs: number): void {
  const socket = (ws as unknown as { _socket: Socket })._socket;
  socket.write(Buffer.from([0x01, 0x01, 0x7b]));
  const burst = Buffer.alloc(64 * 1024, 0); // 0x00 0x00: continuation, no FIN, unmasked, length 0
  const more = () => {
    if (socket.destroyed) return;
    if (intervalMs > 0) {
      socket.write(Buffer.from([0x00, 0x00]));
      setTimeout(more, intervalMs);
    } else if (socket.write(burst)) setImmediate(more);
    else socket.once('drain', more);
  };
  more();
}
