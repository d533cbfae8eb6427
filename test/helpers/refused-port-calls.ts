/**
 * Run as its own process (`node --import tsx test/helpers/refused-port-calls.ts <port> <connections>:<calls>...`):
 * for each pair, sends `calls` concurrent calls through one client of `connections` connections
 * to a loopback port nobody listens on, and prints one line `<connections>:<calls> <outcomes>`.
 * A crash inside undici's callbacks is an uncaught exception that ends this process, which a
 * test in the same process as vitest would not see (vitest catches it and goes on).
 */
import { CHAINS } from '../../src/chains/registry';
import { createJsonRpcClient } from '../../src/probe/json-rpc-client';

async function main(): Promise<void> {
  const [port, ...cases] = process.argv.slice(2);
  for (const pair of cases) {
    const [connections, calls] = pair.split(':').map(Number) as [number, number];
    const client = createJsonRpcClient({ url: `http://127.0.0.1:${port}/`, headers: {}, timeoutMs: 5_000 }, { connections, allowPrivateTargets: true, answers: CHAINS.evm });
    const results = await Promise.all(Array.from({ length: calls }, (_, seq) => client.call({ seq, method: 'eth_blockNumber', params: [] })));
    await client.close();
    const outcomes = [...new Set(results.map((r) => r.outcome))].join(',');
    console.log(`${pair} ${results.length} ${outcomes}`);
  }
}

void main();
