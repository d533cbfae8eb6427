import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { main } from '../../src/cli/main';
import { get } from '../helpers/api';
import { startStack, type Stack } from '../helpers/stack';

/*
 * rvs files with what issue 22 added to suites and endpoints: an endpoint's ws_url (a secret,
 * from the environment like url) and a suite's head watch (freshness), WebSocket transport,
 * batches and a Solana commitment level — applied, planned, exported and applied back.
 */

const requireFromFormats = createRequire(createRequire(__filename).resolve('ajv-formats'));
type Validate = ((data: unknown) => boolean) & { errors?: unknown };
const Ajv2020 = (requireFromFormats('ajv/dist/2020') as { default: new (options: object) => { compile(schema: object): Validate } }).default;

interface Result {
  code: number;
  stdout: string;
  stderr: string;
}

async function rvs(args: string[], env: Record<string, string>): Promise<Result> {
  let stdout = '';
  let stderr = '';
  const code = await main({
    argv: args,
    env,
    stdout: { write: (chunk: string) => (stdout += chunk) },
    stderr: { write: (chunk: string) => (stderr += chunk), isTTY: false },
    version: 'test',
  });
  return { code, stdout, stderr };
}

type Auth = { authorization: string };

async function snapshot(stack: Stack, auth: Auth) {
  const list = async (path: string) => (await get<{ data: Record<string, any>[] }>(stack.app, `${path}?limit=200`, auth)).body.data;
  return { chains: await list('/v1/chains'), endpoints: await list('/v1/endpoints'), suites: await list('/v1/suites') };
}

const FILE = `version: 1
chains:
  - slug: devnet
    name: Devnet
    chain_id: 1337
  - slug: sol-local
    name: Solana local
    family: solana
endpoints:
  - name: node-a
    chain: devnet
    url: \${RVS_SECRET_NODE_A_URL}
    ws_url: \${RVS_SECRET_NODE_A_WS_URL}
  - name: node-b
    chain: devnet
    url: http://127.0.0.1:18546/rpc/\${RVS_SECRET_NODE_B_TOKEN}
    ws_url: ws://127.0.0.1:18546/\${RVS_SECRET_NODE_B_TOKEN}
  - name: sol-a
    chain: sol-local
    url: \${RVS_SECRET_SOL_A_URL}
  - name: sol-b
    chain: sol-local
    url: \${RVS_SECRET_SOL_B_URL}
suites:
  - name: heads
    chain: devnet
    targets: [node-a]
    reference: node-b
    workload:
      requests_per_target: 100
      transport: ws
      methods:
        - method: eth_blockNumber
    thresholds:
      head_lag_p95_max_ms: 400
      missed_heads_max_pct: 2
      stall_max_s: 20
    freshness:
      duration_s: 90
      via: subscribe
  - name: batched
    chain: devnet
    targets: [node-a]
    workload:
      requests_per_target: 100
      batch_size: 10
      methods:
        - method: eth_blockNumber
  - name: slots
    chain: sol-local
    targets: [sol-a]
    reference: sol-b
    commitment: confirmed
    workload:
      requests_per_target: 100
      methods:
        - method: getSlot
    freshness:
      duration_s: 30
      via: poll
      poll_interval_ms: 100
`;

const SECRETS = {
  RVS_SECRET_NODE_A_URL: 'http://127.0.0.1:18545/v2/key-aaaa1111',
  RVS_SECRET_NODE_A_WS_URL: 'ws://127.0.0.1:18545/ws/key-wsws9999',
  RVS_SECRET_NODE_B_TOKEN: 'token-bbbb2222',
  RVS_SECRET_SOL_A_URL: 'http://127.0.0.1:18899/',
  RVS_SECRET_SOL_B_URL: 'http://127.0.0.1:18900/',
};

describe('rvs files with ws_url, freshness, transport, batch_size and commitment, against a real stack', () => {
  let stack: Stack;
  let baseUrl: string;
  let dir: string;

  beforeAll(async () => {
    stack = await startStack({ worker: false });
    baseUrl = await stack.app.listen({ host: '127.0.0.1', port: 0 });
    dir = await mkdtemp(join(tmpdir(), 'rvs-apply-fresh-'));
  });
  afterAll(async () => {
    await stack?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  async function fileWith(name: string, text: string): Promise<string> {
    const path = join(dir, name);
    await writeFile(path, text);
    return path;
  }

  const storedWsUrl = async (id: string) => {
    const [row] = await stack.sql<{ ws_url_encrypted: string | null }[]>`select ws_url_encrypted from endpoints where id = ${id}`;
    return row!.ws_url_encrypted === null ? null : stack.box.decrypt(row!.ws_url_encrypted);
  };

  it('apply stores ws_url from the environment and the suites\' freshness, transport, batch_size and commitment; again, nothing changes; a dry run shows a changed watch and a removed ws_url', async () => {
    const { key, auth } = await stack.newTenant();
    const env = { RVS_URL: baseUrl, RVS_API_KEY: key, ...SECRETS };
    const path = await fileWith('fresh.yaml', FILE);

    const first = await rvs(['apply', '-f', path], env);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain('endpoint devnet/node-a: create\n  + url: "http://127.0.0.1:18545/****/****"\n  + ws_url: "ws://127.0.0.1:18545/****/****"\n');
    expect(first.stdout).toContain('endpoint sol-local/sol-a: create\n  + url: "http://127.0.0.1:18899/"\n  + ws_url: null\n');
    expect(first.stdout).toContain('  + freshness.duration_s: 90\n  + freshness.via: "subscribe"\n');
    expect(first.stdout).toContain('  + commitment: "confirmed"\n');
    expect(first.stdout).toContain('Applied: 9 created, 0 updated, 0 unchanged.\n');
    for (const secret of ['key-aaaa1111', 'key-wsws9999', 'token-bbbb2222']) expect(first.stdout + first.stderr).not.toContain(secret);

    const after = await snapshot(stack, auth);
    const byName = Object.fromEntries(after.endpoints.map((e) => [e.name, e]));
    expect(byName['node-a']).toMatchObject({ ws_url: 'ws://127.0.0.1:18545/****/****' });
    expect(byName['sol-a']).toMatchObject({ ws_url: null });
    expect(await storedWsUrl(byName['node-a']!.id)).toBe(SECRETS.RVS_SECRET_NODE_A_WS_URL);
    expect(await storedWsUrl(byName['node-b']!.id)).toBe('ws://127.0.0.1:18546/token-bbbb2222');
    const suite = (name: string) => after.suites.find((s) => s.name === name)!;
    expect(suite('heads').config).toMatchObject({
      workload: { transport: 'ws', batch_size: 1 },
      thresholds: { head_lag_p95_max_ms: 400, missed_heads_max_pct: 2, stall_max_s: 20 },
      freshness: { duration_s: 90, via: 'subscribe', poll_interval_ms: 250, grace_ms: 2000, late_ms: 1000 },
    });
    expect(suite('heads').config.commitment).toBeUndefined();
    expect(suite('batched').config).toMatchObject({ workload: { transport: 'http', batch_size: 10 } });
    expect(suite('batched').config.freshness).toBeUndefined();
    expect(suite('slots').config).toMatchObject({ commitment: 'confirmed', freshness: { duration_s: 30, via: 'poll', poll_interval_ms: 100 } });

    const again = await rvs(['apply', '-f', path], env);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain('Plan: 0 to create, 0 to update, 9 unchanged.\n');
    expect(again.stdout).toContain('Applied: 0 created, 0 updated, 9 unchanged.\n');
    expect(await snapshot(stack, auth)).toEqual(after);

    const changed = FILE.replace('      duration_s: 90\n', '      duration_s: 120\n')
      .replace('    ws_url: ws://127.0.0.1:18546/${RVS_SECRET_NODE_B_TOKEN}\n', '')
      .replace('    commitment: confirmed\n', '    commitment: finalized\n')
      .replace('      batch_size: 10\n', '      batch_size: 25\n');
    // node-b without its ws_url cannot serve the ws transport of suite heads: refused before any write.
    const refused = await rvs(['apply', '-f', await fileWith('refused.yaml', changed)], env);
    expect(refused.code).toBe(3);
    expect(refused.stderr).toContain('refused.yaml:27:16 suites[0].reference: endpoint "node-b" has no ws_url, and workload.transport is "ws"\nrvs: nothing was changed\n');
    expect(await snapshot(stack, auth)).toEqual(after);

    const changedPath = await fileWith('changed.yaml', changed.replace('      transport: ws\n', '      transport: http\n'));
    const dry = await rvs(['apply', '-f', changedPath, '--dry-run'], env);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toContain('endpoint devnet/node-b: update\n  ~ ws_url: "ws://127.0.0.1:18546/****" → null\n');
    expect(dry.stdout).toContain('suite heads: update\n  ~ workload.transport: "ws" → "http"\n  ~ freshness.duration_s: 90 → 120\n');
    expect(dry.stdout).toContain('suite batched: update\n  ~ workload.batch_size: 10 → 25\n');
    expect(dry.stdout).toContain('suite slots: update\n  ~ commitment: "confirmed" → "finalized"\n');
    expect(dry.stdout).toContain('Dry run: nothing was changed.\n');
    expect(await snapshot(stack, auth)).toEqual(after);

    // Applied: the ws_url left out of the file is removed; a watch left out of a suite is too.
    const withoutWatch = changed.replace('      transport: ws\n', '      transport: http\n').replace(/ {4}freshness:\n {6}duration_s: 120\n {6}via: subscribe\n/, '');
    const applied = await rvs(['apply', '-f', await fileWith('applied.yaml', withoutWatch)], env);
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.stdout).toContain('suite heads: update\n  ~ workload.transport: "ws" → "http"\n  - freshness.duration_s: 90\n');
    const now = await snapshot(stack, auth);
    expect(now.endpoints.find((e) => e.name === 'node-b')).toMatchObject({ ws_url: null });
    expect(await storedWsUrl(byName['node-b']!.id)).toBeNull();
    expect(now.suites.find((s) => s.name === 'heads')!.config.freshness).toBeUndefined();
    expect(now.suites.find((s) => s.name === 'slots')!.config.commitment).toBe('finalized');
  });

  it('export writes ws_url as a ${…_WS_URL} placeholder and the suites\' freshness and commitment; applied back it changes nothing', async () => {
    const { key, auth } = await stack.newTenant();
    const env = { RVS_URL: baseUrl, RVS_API_KEY: key, ...SECRETS };
    expect((await rvs(['apply', '-f', await fileWith('source.yaml', FILE)], env)).code).toBe(0);
    const before = await snapshot(stack, auth);

    const out = join(dir, 'exported-fresh.yaml');
    const exported = await rvs(['export', '--output', out], { RVS_URL: baseUrl, RVS_API_KEY: key });
    expect(exported.code, exported.stderr).toBe(0);
    const text = await readFile(out, 'utf8');
    for (const secret of ['key-aaaa1111', 'key-wsws9999', 'token-bbbb2222']) expect(text + exported.stderr).not.toContain(secret);
    expect(exported.stderr).toContain('the file takes endpoint URLs and header values from: RVS_SECRET_NODE_A_URL, RVS_SECRET_NODE_A_WS_URL, RVS_SECRET_NODE_B_URL, RVS_SECRET_NODE_B_WS_URL, RVS_SECRET_SOL_A_URL, RVS_SECRET_SOL_B_URL');
    const file = parse(text) as Record<string, any>;
    expect(file.endpoints.find((e: { name: string }) => e.name === 'node-a')).toEqual({ name: 'node-a', chain: 'devnet', url: '${RVS_SECRET_NODE_A_URL}', ws_url: '${RVS_SECRET_NODE_A_WS_URL}', headers: {}, timeout_ms: 10000 });
    expect(file.endpoints.find((e: { name: string }) => e.name === 'sol-a')).not.toHaveProperty('ws_url');
    const suite = (name: string) => file.suites.find((s: { name: string }) => s.name === name);
    expect(suite('heads').freshness).toEqual({ duration_s: 90, via: 'subscribe', poll_interval_ms: 250, grace_ms: 2000, late_ms: 1000 });
    expect(suite('heads').workload).toMatchObject({ transport: 'ws', batch_size: 1 });
    expect(suite('batched')).not.toHaveProperty('freshness');
    expect(suite('slots')).toMatchObject({ commitment: 'confirmed', freshness: { via: 'poll', poll_interval_ms: 100 } });

    const schema = await fetch(`${baseUrl}/v1/schemas/rvs-file.json`);
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv as never);
    const validate = ajv.compile((await schema.json()) as object);
    expect(validate(file), JSON.stringify(validate.errors)).toBe(true);

    const values = { ...SECRETS, RVS_SECRET_NODE_B_URL: 'http://127.0.0.1:18546/rpc/token-bbbb2222', RVS_SECRET_NODE_B_WS_URL: 'ws://127.0.0.1:18546/token-bbbb2222' };
    const applied = await rvs(['apply', '-f', out], { RVS_URL: baseUrl, RVS_API_KEY: key, ...values });
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.stdout).toContain('Applied: 0 created, 0 updated, 9 unchanged.\n');
    expect(await snapshot(stack, auth)).toEqual(before);

    // Into an empty tenant: the same configuration, ws_url values included, and the same export.
    const other = await stack.newTenant();
    const recreated = await rvs(['apply', '-f', out], { RVS_URL: baseUrl, RVS_API_KEY: other.key, ...values });
    expect(recreated.code, recreated.stderr).toBe(0);
    expect(recreated.stdout).toContain('Applied: 9 created, 0 updated, 0 unchanged.\n');
    const nodeA = (await snapshot(stack, other.auth)).endpoints.find((e) => e.name === 'node-a')!;
    expect(await storedWsUrl(nodeA.id)).toBe(SECRETS.RVS_SECRET_NODE_A_WS_URL);
    expect((await rvs(['export'], { RVS_URL: baseUrl, RVS_API_KEY: other.key })).stdout).toBe(text);
  });

  it('refuses, before any write, a literal ws_url, one that is not ws/wss once substituted, and a watch without a reference', async () => {
    const { key, auth } = await stack.newTenant();
    const env = { RVS_URL: baseUrl, RVS_API_KEY: key, ...SECRETS };
    const literal = FILE.replace('ws_url: ${RVS_SECRET_NODE_A_WS_URL}', 'ws_url: ws://127.0.0.1:18545/literal-key').replace('    reference: sol-b\n', '');
    const bad = await rvs(['apply', '-f', await fileWith('literal.yaml', literal)], env);
    expect(bad.code).toBe(3);
    const name = join(dir, 'literal.yaml');
    expect(bad.stderr).toBe(
      [
        `rvs: ${name}:13:13 endpoints[0].ws_url: ws_url must come from the environment: write \${NAME} (e.g. \${RVS_SECRET_RPC_URL}), never the value itself`,
        `rvs: ${name}:58:7 suites[2].freshness: a head watch measures against the reference: set reference`,
        'rvs: nothing was changed',
        '',
      ].join('\n'),
    );

    const http = await rvs(['apply', '-f', await fileWith('http.yaml', FILE)], { ...env, RVS_SECRET_NODE_A_WS_URL: 'http://127.0.0.1:18545/key-wsws9999' });
    expect(http.code).toBe(3);
    expect(http.stderr).toContain('http.yaml:13:13 endpoints[0].ws_url: must be a ws:// or wss:// URL once its variables are substituted\n');
    expect(http.stderr).not.toContain('key-wsws9999');
    expect(await snapshot(stack, auth)).toEqual({ chains: [], endpoints: [], suites: [] });
  });
});
