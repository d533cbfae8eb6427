import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import path from 'node:path';
import { anvilRpc } from './anvil';
import { freePort } from './free-port';
import { killGroup, spawnInGroup, until, type Spawned } from './processes';

/*
 * A REAL go-ethereum node for integration tests: geth v1.16.7 in --dev mode (a single-node chain
 * that seals a block every `periodS` seconds, no peers, no discovery), HTTP and WebSocket JSON-RPC
 * on 127.0.0.1 at free ports, its data in a temporary directory removed at close. geth is the
 * third EVM implementation the tests run (beside anvil and ganache), and the one whose batch
 * limit (`--rpc.batch-request-limit`) answers -32600 "batch too large".
 *
 * .ci/run builds it once from its Go module into ~/.cache/rvs/geth-v1.16.7 (GETH_PATH overrides);
 * a missing binary fails the test that needs it, naming the command that builds it.
 */

export const GETH_VERSION = 'v1.16.7';
export const GETH_BIN = process.env.GETH_PATH ?? path.join(homedir(), '.cache', 'rvs', `geth-${GETH_VERSION}`, 'geth');

export interface GethNode {
  httpUrl: string;
  wsUrl: string;
  rpc(method: string, params?: unknown[]): Promise<unknown>;
  output(): string;
  close(): Promise<void>;
}

export interface GethOptions {
  /** Seconds between sealed blocks (--dev.period; default 1). */
  periodS?: number;
  /** --rpc.batch-request-limit: batches above this many calls are refused as a whole (geth's default 1,000). */
  batchRequestLimit?: number;
  /** --http.api: the namespaces served over HTTP (default eth,net,web3). */
  httpApi?: string;
  /** More flags (e.g. --state.scheme path --gcmode archive --history.state 20). */
  extraArgs?: readonly string[];
}

/** The geth binary, or an error saying how to build it (tests never skip for want of it). */
export function gethBinary(): string {
  if (!existsSync(GETH_BIN)) {
    throw new Error(
      `geth not found at ${GETH_BIN}: build it with ` +
        `GOBIN="$HOME/.cache/rvs/geth-${GETH_VERSION}" go install github.com/ethereum/go-ethereum/cmd/geth@${GETH_VERSION} ` +
        '(.ci/run does), or set GETH_PATH',
    );
  }
  return GETH_BIN;
}

/** Starts geth --dev on 127.0.0.1; resolves once both HTTP and WebSocket answer and the first block is sealed. */
export async function startGeth(options: GethOptions = {}): Promise<GethNode> {
  const binary = gethBinary();
  const dataDir = await mkdtemp(path.join(tmpdir(), 'rvs-geth-'));
  const [httpPort, wsPort] = [await freePort(), await freePort()];
  const args = [
    '--dev',
    '--dev.period',
    String(options.periodS ?? 1),
    '--datadir',
    dataDir,
    '--ipcdisable',
    '--nat',
    'none',
    '--nodiscover',
    '--maxpeers',
    '0',
    '--port',
    '0',
    '--authrpc.port',
    String(await freePort()),
    '--http',
    '--http.addr',
    '127.0.0.1',
    '--http.port',
    String(httpPort),
    '--http.api',
    options.httpApi ?? 'eth,net,web3',
    '--ws',
    '--ws.addr',
    '127.0.0.1',
    '--ws.port',
    String(wsPort),
    '--ws.api',
    'eth,net,web3',
    '--verbosity',
    '2',
    ...(options.extraArgs ?? []),
    ...(options.batchRequestLimit === undefined ? [] : ['--rpc.batch-request-limit', String(options.batchRequestLimit)]),
  ];
  const spawned: Spawned = spawnInGroup(binary, args, {});
  const httpUrl = `http://127.0.0.1:${httpPort}`;
  const wsUrl = `ws://127.0.0.1:${wsPort}`;
  const close = async () => {
    killGroup(spawned);
    await spawned.exited;
    await rm(dataDir, { recursive: true, force: true });
  };
  try {
    await until(
      async () => {
        if (spawned.child.exitCode !== null) throw new Error(`geth exited: ${spawned.output().slice(-2000)}`);
        const block = await anvilRpc(httpUrl, 'eth_blockNumber').catch(() => undefined);
        // --dev.period 0 seals only when a transaction comes: answering is enough.
        return typeof block === 'string' && Number(block) >= (options.periodS === 0 ? 0 : 1) ? true : undefined;
      },
      60_000,
      () => `geth sealing blocks on ${httpUrl} (${spawned.output().slice(-2000)})`,
    );
    await until(() => wsAnswers(wsUrl), 30_000, () => `geth WebSocket on ${wsUrl} (${spawned.output().slice(-2000)})`);
  } catch (error) {
    await close();
    throw error;
  }
  return { httpUrl, wsUrl, rpc: (method, params) => anvilRpc(httpUrl, method, params), output: spawned.output, close };
}

/** True once the WebSocket endpoint answers a call; undefined (try again) otherwise. */
async function wsAnswers(url: string): Promise<true | undefined> {
  const { default: WebSocket } = await import('ws');
  return new Promise((resolve) => {
    const socket = new WebSocket(url, { perMessageDeflate: false });
    const done = (value: true | undefined) => {
      clearTimeout(timer);
      socket.terminate();
      resolve(value);
    };
    const timer = setTimeout(() => done(undefined), 2_000);
    socket.on('open', () => socket.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] })));
    socket.on('message', () => done(true));
    socket.on('error', () => done(undefined));
  });
}

/**
 * A geth for a test file: `start()` in beforeAll keeps a failed start (geth missing, not coming up)
 * instead of throwing, and every test that reads `node` throws it — so each of those tests fails,
 * naming the cause, rather than being reported skipped as a beforeAll failure makes them.
 */
export function gethFixture(options: GethOptions = {}): { start(): Promise<void>; readonly node: GethNode; close(): Promise<void> } {
  let started: GethNode | undefined;
  let failure: unknown;
  return {
    async start() {
      try {
        started = await startGeth(options);
      } catch (error) {
        failure = error;
      }
    },
    get node(): GethNode {
      if (started === undefined) throw failure ?? new Error('geth was not started');
      return started;
    },
    close: async () => {
      await started?.close();
    },
  };
}
