import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

/** How the fake node answers one request; `count` is the 1-based number of the request. */
export type Behaviour = (
  request: { method: string; id: unknown; count: number; headers?: IncomingMessage['headers'] },
  res: ServerResponse,
) => void | Promise<void>;

export const answers = {
  ok: (result: unknown = '0x10'): Behaviour => (req, res) => json(res, 200, { jsonrpc: '2.0', id: req.id, result }),
  rpcError: (code = -32000): Behaviour => (req, res) => json(res, 200, { jsonrpc: '2.0', id: req.id, error: { code, message: 'boom' } }),
  httpError: (status = 503): Behaviour => (_req, res) => json(res, status, { error: 'unavailable' }),
  malformed: (): Behaviour => (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"jsonrpc":"2.0", "result": ');
  },
  redirect: (): Behaviour => (_req, res) => {
    res.writeHead(307, { location: 'http://127.0.0.1:1/' });
    res.end();
  },
  reset: (): Behaviour => (_req, res) => {
    res.socket?.destroy();
  },
  delay: (ms: number, then: Behaviour = answers.ok()): Behaviour => async (req, res) => {
    await new Promise((resolve) => setTimeout(resolve, ms));
    await then(req, res);
  },
};

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => resolve(body));
    req.on('error', reject);
  });
}

export interface FakeNode {
  url: string;
  /** Requests received so far, headers included (to assert what the probe sent). */
  requests: { method: string; params: unknown; headers: IncomingMessage['headers'] }[];
  /** TCP connections accepted so far (to assert keep-alive reuse and the connection limit). */
  connections(): number;
  setBehaviour(behaviour: Behaviour): void;
  close(): Promise<void>;
}

/** A JSON-RPC "node" on loopback: the far side of a probe, the only thing tests fake. */
export async function startFakeNode(behaviour: Behaviour = answers.ok()): Promise<FakeNode> {
  let current = behaviour;
  const requests: FakeNode['requests'] = [];
  const server: Server = createServer((req, res) => {
    void (async () => {
      const body = await readBody(req);
      let message: { method?: string; id?: unknown; params?: unknown } = {};
      try {
        message = JSON.parse(body) as typeof message;
      } catch {
        // answered by the behaviour like anything else
      }
      requests.push({ method: message.method ?? '', params: message.params, headers: req.headers });
      await current({ method: message.method ?? '', id: message.id ?? null, count: requests.length, headers: req.headers }, res);
    })();
  });
  let connections = 0;
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    connections: () => connections,
    setBehaviour: (next) => {
      current = next;
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
