/**
 * A JSON-RPC endpoint for benchmarks: answers every POST with {"jsonrpc":"2.0","id":<id>,"result":"0x10"}.
 * Run as a child process (see startRpcServer in ./lib) so its CPU does not compete inside the
 * event loop of the process being measured; it reports its port over IPC and exits with its parent.
 *
 * By default it answers at once. With RPC_LATENCY_MEDIAN_MS set, each answer waits a log-normal
 * delay (median RPC_LATENCY_MEDIAN_MS, log-scale σ RPC_LATENCY_SIGMA, default 0.4) times a factor
 * the parent can change over IPC ({ slowdown: 1.3 } → every delay 30 % longer; acknowledged with
 * { slowdown }), so a benchmark can make an unchanged endpoint slower between runs.
 */
import { createServer } from 'node:http';

const medianMs = Number(process.env.RPC_LATENCY_MEDIAN_MS ?? 0);
const sigma = Number(process.env.RPC_LATENCY_SIGMA ?? 0.4);
let slowdown = 1;

/** A standard normal draw (Box–Muller). */
function gaussian(): number {
  const u = 1 - Math.random();
  const v = Math.random();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
}

function delayMs(): number {
  return medianMs > 0 ? medianMs * Math.exp(sigma * gaussian()) * slowdown : 0;
}

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  // Drawn when the request arrives, so the time spent reading the body counts towards the delay.
  const due = Date.now() + delayMs();
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    let id: unknown = null;
    try {
      id = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id?: unknown }).id ?? null;
    } catch {
      // A body that is not JSON gets id null, as a JSON-RPC server would answer.
    }
    const body = `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":"0x10"}`;
    const answer = () => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
      res.end(body);
    };
    const wait = due - Date.now();
    if (wait > 0) setTimeout(answer, wait);
    else answer();
  });
});
server.keepAliveTimeout = 60_000;
server.headersTimeout = 65_000;

server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  if (typeof address !== 'object' || !address) throw new Error('no address');
  process.send?.({ port: address.port });
});

process.on('message', (message: { slowdown?: unknown }) => {
  if (typeof message.slowdown === 'number' && message.slowdown > 0) {
    slowdown = message.slowdown;
    process.send?.({ slowdown });
  }
});

// Never outlive the benchmark: exit when the parent goes away or asks us to.
process.on('disconnect', () => process.exit(0));
process.on('SIGTERM', () => process.exit(0));
