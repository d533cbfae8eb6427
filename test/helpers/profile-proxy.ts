import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { ProfileAnswer, ProfileTransport } from '../../src/domain/endpoint-profile';

/*
 * A loopback JSON-RPC proxy the profile tests own: it forwards single calls to a real node and
 * counts every request it receives, and a test gives it a rule that answers some calls itself
 * (an error text a provider or a pruned node answers) or rewrites them before forwarding.
 */

export interface RpcCall {
  method: string;
  params: unknown[];
}

/** What a rule does with a call: forward it (possibly rewritten), or answer it. */
export type ProxyRule = (
  call: RpcCall,
  forward: (call: RpcCall) => Promise<{ result?: unknown; error?: unknown }>,
) => Promise<{ status?: number; body: unknown } | null>;

export interface ProfileProxy {
  url: string;
  /** Requests received so far, by method. */
  counts(): { total: number; byMethod: Record<string, number> };
  close(): Promise<void>;
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export async function startProfileProxy(upstream: string, rule: ProxyRule = async () => null): Promise<ProfileProxy> {
  let total = 0;
  const byMethod: Record<string, number> = {};
  const forward = async (call: RpcCall) => {
    const response = await fetch(upstream, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: call.method, params: call.params }),
    });
    return (await response.json()) as { result?: unknown; error?: unknown };
  };
  const server: Server = createServer((request, response) => {
    void (async () => {
      total += 1;
      const body = JSON.parse(await readBody(request)) as { id: unknown; method: string; params?: unknown[] };
      byMethod[body.method] = (byMethod[body.method] ?? 0) + 1;
      const call = { method: body.method, params: body.params ?? [] };
      const own = await rule(call, forward);
      const answer = own ?? { body: await forward(call) };
      response.writeHead(answer.status ?? 200, { 'content-type': 'application/json' });
      const payload = answer.body as { result?: unknown; error?: unknown } | string;
      response.end(typeof payload === 'string' ? payload : JSON.stringify({ jsonrpc: '2.0', id: body.id, ...payload }));
    })().catch((error: unknown) => {
      response.writeHead(500);
      response.end(String(error));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    counts: () => ({ total, byMethod: { ...byMethod } }),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A profile transport over HTTP for tests: one call per request, answers above `maxBytes` refused as a transport failure. */
export function httpProfileTransport(url: string, maxBytes = 4 * 1024 * 1024): ProfileTransport {
  return async (method, params): Promise<ProfileAnswer> => {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
      signal: AbortSignal.timeout(10_000),
    });
    const text = await response.text();
    if (text.length > maxBytes) return { kind: 'transport', message: `answer of ${text.length} bytes is above ${maxBytes}` };
    let body: { result?: unknown; error?: { code?: unknown; message?: unknown } };
    try {
      body = JSON.parse(text) as typeof body;
    } catch {
      return { kind: 'http_error', status: response.status, body: text.slice(0, 1000) };
    }
    if (body.error !== undefined && body.error !== null) {
      return {
        kind: 'rpc_error',
        code: typeof body.error.code === 'number' ? body.error.code : null,
        message: typeof body.error.message === 'string' ? body.error.message : JSON.stringify(body.error),
        httpStatus: response.status,
      };
    }
    if (!response.ok) return { kind: 'http_error', status: response.status, body: text.slice(0, 1000) };
    return { kind: 'result', result: body.result };
  };
}
