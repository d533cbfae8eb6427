import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';

/*
 * A toy EVM node on loopback for the head watch's bounds: HTTP JSON-RPC and a WebSocket on one
 * port, announcing heads of one shared toy chain (head n at `chainStartMs + n × blockMs`, its hash
 * a function of n, so every node of a test announces the same heads). Modes:
 * - honest: each head when it is due, `delayMs` later (a late candidate);
 * - flood: distinct heads as fast as the socket takes them, for at most `floodForMs`;
 * - and `outOfRangeEveryMs`: beside its heads, a head numbered 2^63 (above bigint) that often.
 * `onRequest` sees every HTTP request's method (a test kills the worker from there).
 */

export interface HeadFloodNodeOptions {
  chainStartMs: number;
  blockMs: number;
  delayMs?: number;
  flood?: { floodForMs: number };
  outOfRangeEveryMs?: number;
  onRequest?: (method: string) => void;
}

export interface HeadFloodNode {
  httpUrl: string;
  wsUrl: string;
  /** Heads announced over every subscription so far. */
  announced(): number;
  close(): Promise<void>;
}

export const OUT_OF_RANGE_HEAD = '0x8000000000000000';

const hashOf = (n: bigint) => `0x${n.toString(16).padStart(64, '0')}`;
const header = (n: bigint) => ({ number: `0x${n.toString(16)}`, hash: hashOf(n), parentHash: hashOf(n > 0n ? n - 1n : 0n) });

/** Above this much unsent data a flooding socket waits: fast, but the test process's memory stays bounded. */
const FLOOD_BUFFER_BYTES = 1 << 20;

export async function startHeadFloodNode(options: HeadFloodNodeOptions): Promise<HeadFloodNode> {
  const { chainStartMs, blockMs, delayMs = 0 } = options;
  const headAt = (ms: number) => BigInt(Math.max(0, Math.floor((ms - chainStartMs) / blockMs)));
  let announced = 0;
  const timers = new Set<NodeJS.Timeout>();

  const answer = (method: string): unknown => {
    if (method === 'eth_chainId') return '0x7a69';
    if (method === 'net_version') return '31337';
    if (method === 'eth_blockNumber') return `0x${headAt(Date.now() - delayMs).toString(16)}`;
    return null;
  };

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let body: unknown;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        res.writeHead(400).end();
        return;
      }
      const one = (r: { id?: unknown; method?: string }) => {
        options.onRequest?.(r.method ?? '');
        return { jsonrpc: '2.0', id: r.id ?? null, result: answer(r.method ?? '') };
      };
      const out = Array.isArray(body) ? body.map((r) => one(r as never)) : one(body as never);
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(out));
    });
  });

  const wss = new WebSocketServer({ server });
  const notify = (ws: WebSocket, result: unknown) => {
    if (ws.readyState !== ws.OPEN) return;
    announced++;
    ws.send(JSON.stringify({ jsonrpc: '2.0', method: 'eth_subscription', params: { subscription: '0x1', result } }));
  };
  const every = (ms: number, work: () => void) => {
    const t = setInterval(work, ms);
    timers.add(t);
    return t;
  };

  wss.on('connection', (ws) => {
    const mine = new Set<NodeJS.Timeout>();
    ws.on('close', () => {
      for (const t of mine) {
        clearInterval(t);
        clearTimeout(t);
        timers.delete(t);
      }
    });
    const subscribed = () => {
      if (options.flood) {
        const until = Date.now() + options.flood.floodForMs;
        let n = headAt(Date.now());
        const pump = () => {
          if (ws.readyState !== ws.OPEN || Date.now() > until) return;
          while (ws.bufferedAmount < FLOOD_BUFFER_BYTES && Date.now() <= until) notify(ws, header((n += 1n)));
          const t = setTimeout(pump, 1);
          mine.add(t);
          timers.add(t);
        };
        pump();
      } else {
        let next = headAt(Date.now() - delayMs) + 1n;
        mine.add(
          every(20, () => {
            for (const due = headAt(Date.now() - delayMs); next <= due; next++) notify(ws, header(next));
          }),
        );
      }
      if (options.outOfRangeEveryMs) mine.add(every(options.outOfRangeEveryMs, () => notify(ws, { number: OUT_OF_RANGE_HEAD, hash: hashOf(2n ** 63n) })));
    };
    ws.on('message', (data) => {
      let msg: { id?: unknown; method?: string };
      try {
        msg = JSON.parse(String(data)) as typeof msg;
      } catch {
        return;
      }
      if (msg.method === 'eth_subscribe') {
        ws.send(JSON.stringify({ jsonrpc: '2.0', id: msg.id, result: '0x1' }));
        subscribed();
        return;
      }
      ws.send(JSON.stringify({ jsonrpc: '2.0', id: msg.id ?? null, result: msg.method === 'eth_unsubscribe' ? true : answer(msg.method ?? '') }));
    });
  });

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    httpUrl: `http://127.0.0.1:${port}`,
    wsUrl: `ws://127.0.0.1:${port}`,
    announced: () => announced,
    close: async () => {
      for (const t of timers) {
        clearInterval(t);
        clearTimeout(t);
      }
      for (const ws of wss.clients) ws.terminate();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
