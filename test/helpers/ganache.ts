import { createServer, type IncomingMessage, type Server as HttpServer } from 'node:http';
import ganache from 'ganache';

/*
 * A REAL Ethereum JSON-RPC node for integration tests (ganache, in process, on 127.0.0.1), with
 * a few mined blocks holding value transfers and a contract that emits logs, and an HTTP proxy
 * that forwards to it and lets a test alter chosen answers. Loopback only: neither the node (a
 * fork included) nor the proxy ever talks to anything off this machine.
 */

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

function assertLoopback(url: string, what: string): void {
  const host = new URL(url).hostname;
  if (!LOOPBACK_HOSTS.has(host)) throw new Error(`${what} must be a loopback URL, got host ${host}`);
}

/** Topic of the log the contract's constructor emits; leading zeros on purpose (it is DATA). */
export const CONSTRUCTOR_TOPIC = `0x${'00'.repeat(30)}c0de`;

/*
 * Runtime code, on every call: mstore(0, 42); log1(0, 32, caller()); stop.
 *   602a 6000 52 | 33 | 6020 6000 a1 | 00
 */
const RUNTIME = '602a6000523360206000a100';
/*
 * Constructor: mstore(0, 7); log1(0, 32, CONSTRUCTOR_TOPIC); codecopy(0, 55, 12); return(0, 12).
 * 55 (0x37) is the constructor's own length, where RUNTIME starts.
 */
const CONSTRUCTOR = `6007600052 7f${CONSTRUCTOR_TOPIC.slice(2)} 6020600 0a1 600c6037600039 600c6000f3`.replace(/ /g, '');
const INIT_CODE = `0x${CONSTRUCTOR}${RUNTIME}`;

export interface GanacheOptions {
  /** Fork another node at a block; the URL must be loopback (e.g. another startGanache()). */
  fork?: { url: string; blockNumber: number };
  /** Wallet seed; without it the deterministic ganache accounts are used. */
  seed?: string;
}

export interface GanacheChain {
  url: string;
  chainId: number;
  /** The first unlocked accounts (lower-case). */
  accounts: string[];
  /** Address of the log-emitting contract. */
  contract: string;
  /**
   * Block holding two contract calls (two logs, logIndex 0 and 1) — a good block to pin; later
   * blocks exist, so answers "at the pinned block" differ from "latest".
   */
  pinnedBlock: number;
  /** Head after setup. */
  headBlock: number;
  /** Transaction hashes in mining order: deploy, transfer, call, call, transfer. */
  txHashes: string[];
  /** A transaction whose receipt carries a log (a call in the pinned block). */
  logTxHash: string;
  close(): Promise<void>;
}

type Request = (method: string, params?: unknown[]) => Promise<unknown>;

async function waitForReceipt(request: Request, hash: string): Promise<Record<string, unknown>> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    const receipt = await request('eth_getTransactionReceipt', [hash]);
    if (receipt) return receipt as Record<string, unknown>;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`transaction ${hash} was not mined within 10 s`);
}

/**
 * Starts ganache on 127.0.0.1 (a free port), chain id 1337, and mines, after whatever a fork
 * brings along: (1) a contract deployment whose constructor emits a LOG1, (2) a value transfer,
 * (3) the pinned block: two contract calls from two accounts, each emitting a LOG1, (4) another
 * value transfer.
 */
export async function startGanache(options: GanacheOptions = {}): Promise<GanacheChain> {
  if (options.fork) assertLoopback(options.fork.url, 'fork.url');
  const server = ganache.server({
    logging: { quiet: true },
    wallet: options.seed === undefined ? { deterministic: true } : { seed: options.seed },
    chain: { chainId: 1337 },
    // strict: eth_sendTransaction returns the hash at once, so several can share one block.
    miner: { instamine: 'strict' },
    ...(options.fork ? { fork: { url: options.fork.url, blockNumber: options.fork.blockNumber } } : {}),
  });
  await server.listen(0, '127.0.0.1');
  try {
    const address = server.address();
    const request: Request = (method, params = []) => server.provider.request({ method, params } as never);

    const accounts = ((await request('eth_accounts')) as string[]).map((a) => a.toLowerCase());
    const [from, to] = accounts;
    if (!from || !to) throw new Error('ganache has fewer than two accounts');
    const send = (tx: Record<string, string>) => request('eth_sendTransaction', [{ from, ...tx }]) as Promise<string>;

    const deploy = await send({ data: INIT_CODE, gas: '0x30000' });
    const contract = (await waitForReceipt(request, deploy)).contractAddress as string;
    const transfer1 = await send({ to, value: '0xde0b6b3a7640000' });
    await waitForReceipt(request, transfer1);

    await request('miner_stop');
    const call1 = await send({ to: contract, gas: '0x10000' });
    const call2 = await send({ from: to, to: contract, gas: '0x10000' });
    await request('evm_mine');
    await request('miner_start');
    const pinnedBlock = Number((await waitForReceipt(request, call2)).blockNumber);
    await waitForReceipt(request, call1);

    const transfer2 = await send({ to, value: '0x1bc16d674ec80000' });
    const headBlock = Number((await waitForReceipt(request, transfer2)).blockNumber);

    return {
      url: `http://127.0.0.1:${address.port}`,
      chainId: 1337,
      accounts,
      contract,
      pinnedBlock,
      headBlock,
      txHashes: [deploy, transfer1, call1, call2, transfer2],
      logTxHash: call2,
      close: () => server.close(),
    };
  } catch (error) {
    await server.close();
    throw error;
  }
}

/** Alters one answer: gets the request's method, params and the target's `result`. */
export type Alter = (method: string, result: unknown, params: unknown) => unknown;

export interface AlteringProxy {
  url: string;
  /** Methods of the requests forwarded so far. */
  methods: string[];
  close(): Promise<void>;
}

interface RpcMessage {
  jsonrpc?: string;
  id?: unknown;
  method?: string;
  params?: unknown;
  result?: unknown;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/**
 * A JSON-RPC proxy on 127.0.0.1 in front of `targetUrl` (loopback only). Every request (single
 * or batch) is forwarded as is; every answer carrying a `result` has it replaced by
 * `alter(method, result, params)`. Errors and non-JSON answers pass through untouched.
 */
export async function startAlteringProxy(targetUrl: string, alter: Alter = (_m, result) => result): Promise<AlteringProxy> {
  assertLoopback(targetUrl, 'proxy target');
  const methods: string[] = [];
  const server: HttpServer = createServer((req, res) => {
    void (async () => {
      try {
        const body = await readBody(req);
        const upstream = await fetch(targetUrl, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body,
          signal: AbortSignal.timeout(10_000),
        });
        const text = await upstream.text();
        let out = text;
        try {
          const sent = JSON.parse(body) as RpcMessage | RpcMessage[];
          const answer = JSON.parse(text) as RpcMessage | RpcMessage[];
          const requests = Array.isArray(sent) ? sent : [sent];
          const byId = new Map(requests.map((r) => [JSON.stringify(r.id ?? null), r]));
          const rewrite = (message: RpcMessage): RpcMessage => {
            const request = byId.get(JSON.stringify(message.id ?? null));
            if (!request || !('result' in message)) return message;
            return { ...message, result: alter(request.method ?? '', message.result, request.params) };
          };
          for (const r of requests) methods.push(r.method ?? '');
          out = JSON.stringify(Array.isArray(answer) ? answer.map(rewrite) : rewrite(answer));
        } catch {
          // not JSON: passed through as is
        }
        res.writeHead(upstream.status, { 'content-type': 'application/json' });
        res.end(out);
      } catch (error) {
        res.writeHead(502, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: String(error) }));
      }
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    methods,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
