import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './free-port';
import { killGroup, spawnInGroup, until, type Spawned } from './processes';

/*
 * A REAL local CometBFT network for integration tests, on loopback only: `cometbft testnet --v 1
 * --n 1` (one validator, one full node; one genesis), each node started with the built-in
 * `kvstore` ABCI app (`--proxy_app=kvstore`, no separate process), the full node peered to the
 * validator over 127.0.0.1 on free ports, blocks every `timeoutCommit` (config.toml's
 * consensus.timeout_commit). A second call with another chain id is another chain: its own genesis,
 * its own validator, blocks of its own at the same heights. .ci/run builds the binary.
 */

export const COMETBFT_BIN = process.env.RVS_COMETBFT_PATH ?? path.join(homedir(), '.cache', 'rvs', 'cometbft-v0.38.26', 'cometbft');

const run = promisify(execFile);

export interface CometNode {
  /** The JSON-RPC URL (HTTP POST), http://127.0.0.1:port/. */
  url: string;
  /** The WebSocket URL of the same RPC server (`/websocket`). */
  wsUrl: string;
  rpcPort: number;
  p2pPort: number;
  nodeId: string;
  /** One JSON-RPC 2.0 call over HTTP POST; rejects on an RPC error. */
  rpc(method: string, params?: Record<string, unknown>): Promise<unknown>;
  /** The node's latest block height (status). */
  height(): Promise<number>;
  output(): string;
}

export interface CometNetwork {
  chainId: string;
  validator: CometNode;
  /** Peered to the validator only; null when the network was made without one. */
  full: CometNode | null;
  /** Resolves once `node` has reached `height`. */
  waitHeight(node: CometNode, height: number, timeoutMs?: number): Promise<void>;
  /** Resolves with the height once the full node has the validator's latest block. */
  synced(): Promise<number>;
  /**
   * Restarts the full node without peers: it keeps answering at the height it had, while the
   * validator goes on. Resolves with that height.
   */
  isolateFull(): Promise<number>;
  /** Sends kvstore transactions ("key=value") to the validator and waits until each is in a block; their hashes. */
  putKeys(entries: Record<string, string>): Promise<string[]>;
  close(): Promise<void>;
}

/** One JSON-RPC 2.0 call as CometBFT takes it (named params). */
export async function cometRpc(url: string, method: string, params: Record<string, unknown> = {}): Promise<unknown> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    signal: AbortSignal.timeout(10_000),
  });
  const text = await response.text();
  const body = JSON.parse(text) as { result?: unknown; error?: unknown };
  if (body.error !== undefined && body.error !== null) throw new Error(`${method}: ${JSON.stringify(body.error)}`);
  return body.result;
}

interface Started {
  node: CometNode;
  spawned: Spawned;
}

async function startNode(home: string, nodeId: string, ports: { rpc: number; p2p: number }, peers: string): Promise<Started> {
  const spawned = spawnInGroup(
    COMETBFT_BIN,
    [
      'start',
      `--home=${home}`,
      '--proxy_app=kvstore',
      `--rpc.laddr=tcp://127.0.0.1:${ports.rpc}`,
      `--p2p.laddr=tcp://127.0.0.1:${ports.p2p}`,
      `--p2p.persistent_peers=${peers}`,
      '--p2p.pex=false',
      '--log_level=error',
    ],
    {},
  );
  const url = `http://127.0.0.1:${ports.rpc}/`;
  const node: CometNode = {
    url,
    wsUrl: `ws://127.0.0.1:${ports.rpc}/websocket`,
    rpcPort: ports.rpc,
    p2pPort: ports.p2p,
    nodeId,
    rpc: (method, params) => cometRpc(url, method, params),
    height: async () => Number(((await cometRpc(url, 'status')) as { sync_info: { latest_block_height: string } }).sync_info.latest_block_height),
    output: spawned.output,
  };
  await until(
    async () => {
      if (spawned.child.exitCode !== null) throw new Error(`cometbft exited: ${spawned.output()}`);
      return (await node.height().then((h) => (h > 0 ? true : undefined), () => undefined)) ?? undefined;
    },
    60_000,
    () => `cometbft at ${home} answering status with a block (${spawned.output().slice(-2000)})`,
  );
  return { node, spawned };
}

async function stopNode(started: Started): Promise<void> {
  killGroup(started.spawned);
  await started.spawned.exited;
}

/** Edits a node's config.toml: the commit timeout (block interval) and loopback peers. */
async function configure(home: string, timeoutCommit: string): Promise<void> {
  const file = path.join(home, 'config', 'config.toml');
  const text = await readFile(file, 'utf8');
  const edited = text.replace(/^timeout_commit = ".*"$/m, `timeout_commit = "${timeoutCommit}"`).replace(/^allow_duplicate_ip = .*$/m, 'allow_duplicate_ip = true');
  if (!edited.includes(`timeout_commit = "${timeoutCommit}"`)) throw new Error('config.toml has no timeout_commit');
  await writeFile(file, edited);
}

async function setChainId(home: string, chainId: string): Promise<void> {
  const file = path.join(home, 'config', 'genesis.json');
  const genesis = JSON.parse(await readFile(file, 'utf8')) as { chain_id: string };
  genesis.chain_id = chainId;
  await writeFile(file, JSON.stringify(genesis, null, 2));
}

/**
 * A network of one validator and (with `full`, the default) one full node, chain id `chainId`,
 * started and producing blocks; the full node synced.
 */
export async function startCometNetwork(options: { chainId: string; full?: boolean; timeoutCommit?: string }): Promise<CometNetwork> {
  const withFull = options.full ?? true;
  const dir = await mkdtemp(path.join(tmpdir(), 'rvs-cometbft-'));
  const all: Started[] = [];
  const close = async () => {
    await Promise.all(all.splice(0).map(stopNode));
    await rm(dir, { recursive: true, force: true });
  };
  try {
    await run(COMETBFT_BIN, ['testnet', '--v', '1', '--n', withFull ? '1' : '0', '--o', dir, '--populate-persistent-peers=false', '--log_level=error']);
    const homes = withFull ? [path.join(dir, 'node0'), path.join(dir, 'node1')] : [path.join(dir, 'node0')];
    const ids: string[] = [];
    for (const home of homes) {
      await configure(home, options.timeoutCommit ?? '500ms');
      await setChainId(home, options.chainId);
      ids.push((await run(COMETBFT_BIN, ['show-node-id', `--home=${home}`])).stdout.trim());
    }
    const ports = [] as { rpc: number; p2p: number }[];
    for (let i = 0; i < homes.length; i++) ports.push({ rpc: await freePort(), p2p: await freePort() });
    const validator = await startNode(homes[0]!, ids[0]!, ports[0]!, '');
    all.push(validator);
    const validatorPeer = `${ids[0]}@127.0.0.1:${ports[0]!.p2p}`;
    let full: Started | null = null;
    if (withFull) {
      full = await startNode(homes[1]!, ids[1]!, ports[1]!, validatorPeer);
      all.push(full);
    }
    const waitHeight = (node: CometNode, height: number, timeoutMs = 60_000) =>
      until(async () => ((await node.height().catch(() => 0)) >= height ? true : undefined), timeoutMs, `node at height ${height}`).then(() => undefined);
    // Synced: the full node has left block sync for consensus (catching_up false) — while it block
    // syncs it trails the validator by a block or two, which a run at the tip reads as a lagging
    // node — and it holds the validator's height.
    const synced = async (): Promise<number> => {
      if (full === null) return validator.node.height();
      const node = full.node;
      await until(
        async () => (((await node.rpc('status').catch(() => null)) as { sync_info?: { catching_up?: boolean } } | null)?.sync_info?.catching_up === false ? true : undefined),
        60_000,
        'the full node in consensus (catching_up false)',
      );
      const target = await validator.node.height();
      await waitHeight(node, target);
      return target;
    };
    if (full !== null) await synced();
    const isolateFull = async (): Promise<number> => {
      if (full === null) throw new Error('the network has no full node');
      const was = full;
      await stopNode(was);
      all.splice(all.indexOf(was), 1);
      full = await startNode(homes[1]!, ids[1]!, ports[1]!, '');
      all.push(full);
      network.full = full.node;
      return full.node.height();
    };
    const putKeys = async (entries: Record<string, string>): Promise<string[]> => {
      const hashes: string[] = [];
      for (const [key, value] of Object.entries(entries)) {
        const tx = Buffer.from(`${key}=${value}`).toString('base64');
        const answer = (await validator.node.rpc('broadcast_tx_commit', { tx })) as { hash: string; tx_result: { code: number }; height: string };
        if (answer.tx_result.code !== 0) throw new Error(`kvstore refused ${key}=${value}: ${JSON.stringify(answer)}`);
        hashes.push(answer.hash);
      }
      return hashes;
    };
    const network: CometNetwork = { chainId: options.chainId, validator: validator.node, full: full?.node ?? null, waitHeight, synced, isolateFull, putKeys, close };
    return network;
  } catch (error) {
    await close();
    throw error;
  }
}
