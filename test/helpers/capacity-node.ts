import type { ServerResponse } from 'node:http';
import { startFakeNode, type Behaviour, type FakeNode } from './json-rpc-node';

export interface CapacityNode extends FakeNode {
  /** Answers refused with 429 so far. */
  refused(): number;
}

/**
 * A loopback JSON-RPC node with a known capacity: a token bucket of `ratePerSecond` (holding at
 * most `burst` tokens) admits calls; a call finding it empty is answered 429 at once. Admitted
 * calls are answered after a latency that rises with the load: base + slope × (arrival rate over
 * the last second / ratePerSecond)². Its knee is therefore `ratePerSecond`, by construction.
 */
export async function startCapacityNode(options: { ratePerSecond: number; burst: number; baseMs?: number; slopeMs?: number }): Promise<CapacityNode> {
  const { ratePerSecond, burst, baseMs = 1, slopeMs = 4 } = options;
  let tokens = burst;
  let refilledAt = performance.now();
  let refused = 0;
  const arrivals: number[] = [];
  const respond = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  const behaviour: Behaviour = (req, res) => {
    const now = performance.now();
    tokens = Math.min(burst, tokens + ((now - refilledAt) / 1000) * ratePerSecond);
    refilledAt = now;
    arrivals.push(now);
    while (arrivals.length > 0 && arrivals[0]! < now - 1000) arrivals.shift();
    if (tokens < 1) {
      refused++;
      respond(res, 429, { jsonrpc: '2.0', id: req.id, error: { code: -32005, message: 'rate limited' } });
      return;
    }
    tokens -= 1;
    const load = arrivals.length / ratePerSecond;
    setTimeout(() => respond(res, 200, { jsonrpc: '2.0', id: req.id, result: '0x10' }), baseMs + slopeMs * load * load);
  };
  const node = await startFakeNode(behaviour);
  return Object.assign(node, { refused: () => refused });
}
