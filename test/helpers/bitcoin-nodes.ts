import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import { homedir, tmpdir } from 'node:os';
import path from 'node:path';
import { freePort } from './free-port';
import { killGroup, spawnInGroup, until, type Spawned } from './processes';

/*
 * REAL Bitcoin-family nodes in regtest for integration tests, on loopback only: litecoind (Debian's
 * package, Bitcoin Core 0.21's RPC server: JSON-RPC 1.0 answers, HTTP 404/500 for RPC errors) and
 * btcd (a second implementation: HTTP 200 always, echoes `jsonrpc`). Each pair is two nodes peered
 * over 127.0.0.1, blocks mined on the first and relayed to the second, so a candidate and a
 * reference are real peers with real propagation. .ci/run installs both binaries.
 */

/** A testnet/regtest P2PKH address (version byte 111, shared by Bitcoin and Litecoin): coinbase outputs go here, no wallet needed. */
export const MINING_ADDRESS = 'mipcBbFg9gMiCh81Kj8tqqdgoZub1ZJRfn';
export const RPC_USER = 'rvs';
export const RPC_PASSWORD = 'regtest-only-password';

export const BTCD_BIN = process.env.RVS_BTCD_PATH ?? path.join(homedir(), '.cache', 'rvs', 'btcd-v0.24.2', 'btcd');
export const LITECOIND_BIN = process.env.RVS_LITECOIND_PATH ?? 'litecoind';

export interface BitcoinNode {
  /** The RPC URL without credentials. */
  url: string;
  /** The RPC URL with the credentials as userinfo (http://user:pass@127.0.0.1:port/). */
  authUrl: string;
  p2pPort: number;
  rpc(method: string, params?: unknown[]): Promise<unknown>;
  output(): string;
}

export interface BitcoinPair {
  implementation: 'litecoind' | 'btcd';
  /** Mines here; the reference in tests. */
  a: BitcoinNode;
  /** Connected to `a` only; the candidate in tests. */
  b: BitcoinNode;
  /** Mines `count` blocks on `a` and waits until `b` has them; returns their hashes. */
  mine(count: number): Promise<string[]>;
  /** Resolves once both nodes report the same best block hash. */
  synced(): Promise<string>;
  close(): Promise<void>;
}

const authorization = `Basic ${Buffer.from(`${RPC_USER}:${RPC_PASSWORD}`).toString('base64')}`;

/** One JSON-RPC call as both implementations accept it (`jsonrpc: "1.0"`; btcd ignores a request without it). */
export async function bitcoinRpc(url: string, method: string, params: unknown[] = []): Promise<unknown> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization },
    body: JSON.stringify({ jsonrpc: '1.0', id: 1, method, params }),
    signal: AbortSignal.timeout(10_000),
  });
  const text = await response.text();
  let body: { result?: unknown; error?: unknown };
  try {
    body = JSON.parse(text) as typeof body;
  } catch {
    throw new Error(`${method}: HTTP ${response.status} ${text.slice(0, 200)}`);
  }
  if ((body.error !== null && body.error !== undefined) || !('result' in body)) throw new Error(`${method}: ${JSON.stringify(body)}`);
  return body.result;
}

interface Started {
  node: BitcoinNode;
  spawned: Spawned;
  dir: string;
}

function nodeAt(rpcPort: number, p2pPort: number, spawned: Spawned): BitcoinNode {
  const url = `http://127.0.0.1:${rpcPort}/`;
  return {
    url,
    authUrl: `http://${RPC_USER}:${RPC_PASSWORD}@127.0.0.1:${rpcPort}/`,
    p2pPort,
    rpc: (method, params) => bitcoinRpc(url, method, params),
    output: spawned.output,
  };
}

async function ready(started: Started, what: string): Promise<void> {
  await until(
    async () => {
      if (started.spawned.child.exitCode !== null) throw new Error(`${what} exited: ${started.spawned.output()}`);
      return (await started.node.rpc('getblockcount').then(() => true, () => undefined)) ?? undefined;
    },
    30_000,
    () => `${what} answering RPC (${started.spawned.output().slice(-2000)})`,
  );
}

async function startLitecoind(connectTo: number | null): Promise<Started> {
  const dir = await mkdtemp(path.join(tmpdir(), 'rvs-litecoind-'));
  const [rpcPort, p2pPort] = [await freePort(), await freePort()];
  const spawned = spawnInGroup(
    LITECOIND_BIN,
    [
      '-regtest',
      `-datadir=${dir}`,
      '-server',
      '-listen',
      '-bind=127.0.0.1',
      `-port=${p2pPort}`,
      '-rpcbind=127.0.0.1',
      '-rpcallowip=127.0.0.1',
      `-rpcport=${rpcPort}`,
      `-rpcuser=${RPC_USER}`,
      `-rpcpassword=${RPC_PASSWORD}`,
      // Transaction reads of any block (getrawtransaction without a block hash).
      '-txindex',
      '-disablewallet',
      '-dnsseed=0',
      '-upnp=0',
      '-printtoconsole',
      // Only the peer given here: a regtest node never looks for others anyway.
      ...(connectTo === null ? ['-connect=0'] : [`-connect=127.0.0.1:${connectTo}`]),
    ],
    {},
  );
  const started = { node: nodeAt(rpcPort, p2pPort, spawned), spawned, dir };
  await ready(started, 'litecoind');
  return started;
}

async function startBtcd(connectTo: number | null): Promise<Started> {
  const dir = await mkdtemp(path.join(tmpdir(), 'rvs-btcd-'));
  const [rpcPort, p2pPort] = [await freePort(), await freePort()];
  const spawned = spawnInGroup(
    BTCD_BIN,
    [
      '--regtest',
      '--notls',
      `--datadir=${path.join(dir, 'data')}`,
      `--logdir=${path.join(dir, 'logs')}`,
      `--rpclisten=127.0.0.1:${rpcPort}`,
      `--listen=127.0.0.1:${p2pPort}`,
      `--rpcuser=${RPC_USER}`,
      `--rpcpass=${RPC_PASSWORD}`,
      `--miningaddr=${MINING_ADDRESS}`,
      '--txindex',
      '--nodnsseed',
      ...(connectTo === null ? [] : [`--connect=127.0.0.1:${connectTo}`]),
    ],
    {},
  );
  const started = { node: nodeAt(rpcPort, p2pPort, spawned), spawned, dir };
  await ready(started, 'btcd');
  return started;
}

async function stop(started: Started): Promise<void> {
  killGroup(started.spawned);
  await started.spawned.exited;
  await rm(started.dir, { recursive: true, force: true });
}

/**
 * Two peered regtest nodes of one implementation with `blocks` mined on the first and relayed to
 * the second (101 makes the first coinbase spendable, and gives pinned reads some depth).
 */
export async function startBitcoinPair(implementation: 'litecoind' | 'btcd', blocks = 110): Promise<BitcoinPair> {
  const start = implementation === 'litecoind' ? startLitecoind : startBtcd;
  const all: Started[] = [];
  const close = async () => {
    await Promise.all(all.map(stop));
  };
  try {
    const a = await start(null);
    all.push(a);
    const b = await start(a.node.p2pPort);
    all.push(b);
    const bestOf = (node: BitcoinNode) => node.rpc('getbestblockhash') as Promise<string>;
    const synced = () =>
      until(
        async () => {
          const [hashA, hashB] = await Promise.all([bestOf(a.node), bestOf(b.node)]);
          return hashA === hashB ? hashA : undefined;
        },
        30_000,
        `${implementation} peers on the same best block`,
      );
    // The peer connection first, so every block mined below is relayed.
    await until(async () => (((await a.node.rpc('getconnectioncount')) as number) > 0 ? true : undefined), 30_000, `${implementation} peered`);
    const mine = async (count: number): Promise<string[]> => {
      const hashes =
        implementation === 'litecoind'
          ? ((await a.node.rpc('generatetoaddress', [count, MINING_ADDRESS])) as string[])
          : ((await a.node.rpc('generate', [count])) as string[]);
      await synced();
      return hashes;
    };
    if (blocks > 0) await mine(blocks);
    return { implementation, a: a.node, b: b.node, mine, synced, close };
  } catch (error) {
    await close();
    throw error;
  }
}

/** Rewrites one result: (method, result, params) → the result the proxy answers instead. */
export type AlterBitcoinAnswer = (method: string, result: unknown, params: unknown) => unknown;

export interface BitcoinProxy {
  url: string;
  close(): Promise<void>;
}

/**
 * A proxy on 127.0.0.1 in front of a node (loopback only) that forwards each request with its
 * Authorization header and answers with the node's status and body, a `result` replaced by
 * `alter(method, result, params)`. Errors and non-JSON bodies pass through untouched. With
 * `delayMs`, each answer is held that long (per method; 0 answers at once) before it is sent:
 * a node that learns of blocks as fast as its peer but answers late.
 */
export async function startBitcoinProxy(node: BitcoinNode, alter: AlterBitcoinAnswer, options: { delayMs?: (method: string) => number } = {}): Promise<BitcoinProxy> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      void (async () => {
        const body = Buffer.concat(chunks).toString('utf8');
        try {
          const upstream = await fetch(node.url, {
            method: 'POST',
            headers: { 'content-type': 'application/json', ...(req.headers.authorization ? { authorization: req.headers.authorization } : {}) },
            body,
            signal: AbortSignal.timeout(10_000),
          });
          let text = await upstream.text();
          let method = '';
          try {
            const request = JSON.parse(body) as { method?: string; params?: unknown };
            method = request.method ?? '';
            const answer = JSON.parse(text) as { result?: unknown; error?: unknown };
            if (answer.error === null && 'result' in answer) text = JSON.stringify({ ...answer, result: alter(request.method ?? '', answer.result, request.params) });
          } catch {
            // not JSON: passed through as is
          }
          const delayMs = options.delayMs?.(method) ?? 0;
          if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
          res.writeHead(upstream.status, { 'content-type': 'application/json' });
          res.end(text);
        } catch {
          res.writeHead(502);
          res.end();
        }
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('proxy has no port');
  return {
    url: `http://${RPC_USER}:${RPC_PASSWORD}@127.0.0.1:${address.port}/`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
