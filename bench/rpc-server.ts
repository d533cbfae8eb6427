/**
 * A fast JSON-RPC endpoint for benchmarks: answers every POST with {"jsonrpc":"2.0","id":<id>,"result":"0x10"}.
 * Run as a child process (see startRpcServer in ./lib) so its CPU does not compete inside the
 * event loop of the process being measured; it reports its port over IPC and exits with its parent.
 */
import { createServer } from 'node:http';

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    let id: unknown = null;
    try {
      id = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id?: unknown }).id ?? null;
    } catch {
      // A body that is not JSON gets id null, as a JSON-RPC server would answer.
    }
    const body = `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":"0x10"}`;
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  });
});
server.keepAliveTimeout = 60_000;
server.headersTimeout = 65_000;

server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  if (typeof address !== 'object' || !address) throw new Error('no address');
  process.send?.({ port: address.port });
});

// Never outlive the benchmark: exit when the parent goes away or asks us to.
process.on('disconnect', () => process.exit(0));
process.on('SIGTERM', () => process.exit(0));
