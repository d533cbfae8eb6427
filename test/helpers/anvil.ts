import { createRequire } from 'node:module';
import path from 'node:path';
import { freePort } from './free-port';
import { killGroup, spawnInGroup, until, type Spawned } from './processes';

/*
 * A REAL Ethereum node for integration tests: anvil (Foundry's Rust node, an implementation
 * independent of ganache and geth) from npm, on 127.0.0.1 only, mining a block every
 * `blockTimeS` seconds, with HTTP and WebSocket JSON-RPC on one port.
 *
 * `@foundry-rs/anvil` ships the binary in a per-platform optional dependency
 * (`@foundry-rs/anvil-linux-amd64`, …, each `bin/anvil`); its own `bin` is a Node wrapper that
 * needs its postinstall script, which npm 11 does not run unless approved. The binary is taken
 * from the platform package directly, so no install script is needed.
 */

const PLATFORM_PACKAGES: Readonly<Record<string, string>> = {
  'linux-x64': '@foundry-rs/anvil-linux-amd64',
  'linux-arm64': '@foundry-rs/anvil-linux-arm64',
  'darwin-x64': '@foundry-rs/anvil-darwin-amd64',
  'darwin-arm64': '@foundry-rs/anvil-darwin-arm64',
};

/** The anvil binary of this platform (RVS_ANVIL_PATH overrides it). */
export function anvilBinary(): string {
  if (process.env.RVS_ANVIL_PATH) return process.env.RVS_ANVIL_PATH;
  const name = PLATFORM_PACKAGES[`${process.platform}-${process.arch}`];
  if (name === undefined) throw new Error(`no anvil package for ${process.platform}-${process.arch}`);
  const require = createRequire(__filename);
  return path.join(path.dirname(require.resolve(`${name}/package.json`)), 'bin', 'anvil');
}

export interface AnvilNode {
  httpUrl: string;
  wsUrl: string;
  port: number;
  rpc(method: string, params?: unknown[]): Promise<unknown>;
  output(): string;
  close(): Promise<void>;
}

export async function anvilRpc(url: string, method: string, params: unknown[] = []): Promise<unknown> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    signal: AbortSignal.timeout(10_000),
  });
  const body = (await response.json()) as { result?: unknown; error?: unknown };
  if (body.error !== undefined || !('result' in body)) throw new Error(`${method}: ${JSON.stringify(body)}`);
  return body.result;
}

/** Starts anvil on 127.0.0.1 at a free port, mining every `blockTimeS` seconds; resolves once it answers. */
export async function startAnvil(options: { blockTimeS?: number } = {}): Promise<AnvilNode> {
  const port = await freePort();
  const spawned: Spawned = spawnInGroup(
    anvilBinary(),
    ['--host', '127.0.0.1', '--port', String(port), '--block-time', String(options.blockTimeS ?? 1), '--chain-id', '31337', '--silent'],
    {},
  );
  const httpUrl = `http://127.0.0.1:${port}`;
  const close = async () => {
    killGroup(spawned);
    await spawned.exited;
  };
  try {
    await until(
      async () => {
        if (spawned.child.exitCode !== null) throw new Error(`anvil exited: ${spawned.output()}`);
        return anvilRpc(httpUrl, 'eth_chainId').then(
          () => true,
          () => undefined,
        );
      },
      30_000,
      () => `anvil answering on ${httpUrl} (${spawned.output().slice(-2000)})`,
    );
  } catch (error) {
    await close();
    throw error;
  }
  return {
    httpUrl,
    wsUrl: `ws://127.0.0.1:${port}`,
    port,
    rpc: (method, params) => anvilRpc(httpUrl, method, params),
    output: spawned.output,
    close,
  };
}
