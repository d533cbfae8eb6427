import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { get, post, waitForRun } from '../helpers/api';
import { anvilRpc, startAnvil, type AnvilNode } from '../helpers/anvil';
import { startStack, type Stack } from '../helpers/stack';

/*
 * The integrity check in whole runs (issue 34, DESIGN.md §15), through HTTP, Temporal and
 * Postgres, against a REAL node: anvil, with blocks holding a legacy, an access-list and a
 * fee-market transaction (a contract creation that writes storage and emits a log). Candidates
 * sit behind tampering proxies the test owns on loopback, each changing one thing in what anvil
 * answers; every change is caught and named. The same proxy in front of candidate AND reference:
 * correctness passes (they agree), integrity fails.
 */

type Json = Record<string, any>;
// SSTORE(0, 42); MSTORE(0, 7); LOG1(0, 32, topic 0xaa); RETURN one byte of code.
const INIT_CODE = '0x602a600055600760005260aa60206000a16001601ff3';

type Tamper = (method: string, params: unknown[], result: unknown) => unknown;

/** A JSON-RPC proxy in front of anvil that passes every answer through `tamper` (single calls and batches). */
async function startTamperingProxy(upstream: string, tamper: Tamper): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((req, res) => {
    let text = '';
    req.on('data', (chunk: Buffer) => (text += chunk.toString()));
    req.on('end', () => {
      const forward = async (m: { id: unknown; method: string; params?: unknown[] }) => {
        try {
          const result = await anvilRpc(upstream, m.method, m.params ?? []);
          return { jsonrpc: '2.0', id: m.id, result: tamper(m.method, m.params ?? [], result) };
        } catch (error) {
          return { jsonrpc: '2.0', id: m.id, error: { code: -32000, message: String(error).slice(0, 200) } };
        }
      };
      void (async () => {
        const message = JSON.parse(text) as Parameters<typeof forward>[0] | Parameters<typeof forward>[0][];
        const body = Array.isArray(message) ? await Promise.all(message.map(forward)) : await forward(message);
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe('the integrity check in a run', () => {
  let stack: Stack;
  let anvil: AnvilNode;
  let from: string;
  let to: string;
  let contract: string;
  let contractTx: string;
  let txBlock: string;
  const proxies: { close(): Promise<void> }[] = [];

  beforeAll(async () => {
    stack = await startStack();
    anvil = await startAnvil({ blockTimeS: 1 });
    [from, to] = (await anvil.rpc('eth_accounts')) as [string, string];
    const sent = [
      (await anvil.rpc('eth_sendTransaction', [{ from, to, value: '0x1234', gasPrice: '0x77359400', type: '0x0' }])) as string,
      (await anvil.rpc('eth_sendTransaction', [{ from, to, value: '0x10', gasPrice: '0x77359400', accessList: [{ address: to, storageKeys: [`0x${'0'.repeat(63)}1`] }], type: '0x1' }])) as string,
      (await anvil.rpc('eth_sendTransaction', [{ from, data: INIT_CODE, maxFeePerGas: '0x77359400', maxPriorityFeePerGas: '0x1', type: '0x2' }])) as string,
    ];
    contractTx = sent[2] as string;
    let receipt: Json | null = null;
    for (let i = 0; i < 200 && receipt === null; i += 1) {
      receipt = (await anvil.rpc('eth_getTransactionReceipt', [contractTx])) as Json | null;
      if (receipt === null) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    if (receipt === null) throw new Error('the contract creation was not mined');
    contract = receipt.contractAddress as string;
    txBlock = receipt.blockNumber as string;
    // The pinned block (head − block_lag) must be at or above the transactions' block.
    while (BigInt((await anvil.rpc('eth_blockNumber')) as string) < BigInt(txBlock) + 3n) await new Promise((resolve) => setTimeout(resolve, 200));
  });
  afterAll(async () => {
    for (const proxy of proxies) await proxy.close();
    await anvil?.close();
    await stack?.close();
  });

  async function proxy(tamper: Tamper): Promise<string> {
    const started = await startTamperingProxy(anvil.httpUrl, tamper);
    proxies.push(started);
    return started.url;
  }

  /** A chain, an endpoint per url, a suite with the given candidates and reference, one run; its verdict. */
  async function runWith(
    candidateUrls: string[],
    referenceUrl: string,
    options: { suiteIntegrity?: boolean; runBody?: Json } = {},
  ): Promise<{ verdict: Json; runId: string; endpointNames: string[] }> {
    const { auth } = await stack.newTenant();
    const chain = await post<{ id: string }>(stack.app, '/v1/chains', auth, { name: 'Integrity', slug: `integrity-${Date.now()}-${Math.random().toString(36).slice(2)}`, chain_id: 31337 });
    expect(chain.status, JSON.stringify(chain.body)).toBe(201);
    const ids: string[] = [];
    const endpointNames: string[] = [];
    for (const [i, url] of [...candidateUrls, referenceUrl].entries()) {
      const name = i === candidateUrls.length ? 'reference' : `candidate-${i}`;
      const created = await post<{ id: string }>(stack.app, '/v1/endpoints', auth, { chain_id: chain.body.id, name, url, timeout_ms: 5_000 });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      ids.push(created.body.id);
      endpointNames.push(name);
    }
    const suite = await post<Json>(stack.app, '/v1/suites', auth, {
      chain_id: chain.body.id,
      name: 'integrity',
      config: {
        targets: ids.slice(0, -1).map((endpoint_id) => ({ endpoint_id })),
        reference_endpoint_id: ids.at(-1),
        ...(options.suiteIntegrity === false ? {} : { integrity: {} }),
        workload: {
          methods: [
            { method: 'eth_getBalance', params: [to, '{{pinned_block}}'] },
            { method: 'eth_getTransactionCount', params: [from, '{{pinned_block}}'] },
            { method: 'eth_getCode', params: [contract, '{{pinned_block}}'] },
            { method: 'eth_getStorageAt', params: [contract, '0x0', '{{pinned_block}}'] },
            { method: 'eth_getBlockByNumber', params: [txBlock, true] },
            { method: 'eth_getTransactionReceipt', params: [contractTx] },
            { method: 'eth_getLogs', params: [{ fromBlock: txBlock, toBlock: txBlock }] },
            { method: 'eth_call', params: [{ to: contract, data: '0x' }, '{{pinned_block}}'] },
          ],
          requests_per_target: 24,
          concurrency: 2,
          warmup_requests: 0,
          timeout_ms: 5_000,
          block_lag: 1,
        },
        thresholds: { correctness_enabled: true, correctness_min_pct: 100, latency_p95_max_ms: 5_000, latency_vs_reference_max_pct: 10_000 },
      },
    });
    expect(suite.status, JSON.stringify(suite.body)).toBe(201);
    expect(suite.body.config.integrity).toEqual(options.suiteIntegrity === false ? undefined : { enabled: true, trusted_block: null, max_requests: 200, max_anchor_distance: 256 });
    const created = await post<{ id: string }>(stack.app, `/v1/suites/${suite.body.id}/runs`, auth, options.runBody);
    expect(created.status).toBe(201);
    const run = await waitForRun(stack.app, auth, created.body.id, 90_000);
    expect(run.status, JSON.stringify(run.retry_history)).toBe('success');
    const verdict = await get<Json>(stack.app, `/v1/runs/${run.id}/verdict`, auth);
    expect(verdict.status).toBe(200);
    return { verdict: verdict.body, runId: run.id, endpointNames };
  }

  const check = (verdict: Json, name: string): Json => verdict.checks.find((c: Json) => c.name === name);

  it('an honest node: every provable answer proven against the reference\'s hash of the pinned block, eth_call listed as not provable', async () => {
    const { verdict, runId } = await runWith([anvil.httpUrl], anvil.httpUrl);
    const integrity = check(verdict, 'integrity');
    expect(integrity.status, integrity.message).toBe('pass');
    expect(integrity.details.anchor.source).toBe('reference');
    const [candidate] = integrity.details.candidates;
    expect(candidate).toMatchObject({ status: 'pass', proven: 7, wrong: 0, not_provable: 1, wrong_answers: [] });
    expect(candidate.not_provable_answers).toEqual([expect.objectContaining({ method: 'eth_call', reason: expect.stringMatching(/executing the EVM/) })]);
    expect(candidate.extra_requests).toBeGreaterThan(7);
    // The extra requests are not samples: exactly the planned calls were stored.
    const counted = await stack.sql<{ n: number }[]>`select count(*)::int as n from run_samples where run_id = ${runId} and role = 'primary'`;
    expect(counted[0]?.n).toBe(24);
    expect(check(verdict, 'correctness').status).toBe('pass');
  });

  it('candidates behind tampering proxies (a balance, a storage word, a receipt status, a header timestamp): each caught and named', async () => {
    const bump = (value: string) => `0x${(BigInt(value) + 1n).toString(16)}`;
    const urls = [
      await proxy((method, _p, result) => (method === 'eth_getBalance' ? bump(result as string) : result)),
      await proxy((method, _p, result) => (method === 'eth_getStorageAt' ? `0x${'0'.repeat(62)}2b` : result)),
      await proxy((method, _p, result) => (method === 'eth_getTransactionReceipt' && result ? { ...(result as Json), status: '0x0' } : result)),
      await proxy((method, _p, result) => (method === 'eth_getBlockByNumber' && result ? { ...(result as Json), timestamp: bump((result as Json).timestamp as string) } : result)),
    ];
    const { verdict } = await runWith(urls, anvil.httpUrl);
    const integrity = check(verdict, 'integrity');
    expect(integrity.status).toBe('fail');
    const byName = new Map<string, Json>(integrity.details.candidates.map((c: Json) => [c.endpoint_name, c]));
    const expected: [string, string, string, RegExp][] = [
      ['candidate-0', 'eth_getBalance', '$', /answered \d+ wei, the account proof against stateRoot 0x[0-9a-f]{64} of block \d+ says \d+ wei/],
      ['candidate-1', 'eth_getStorageAt', '$', /answered 0x2b at slot 0x0{64}, the storage proof .* says 0x2a/],
      ['candidate-2', 'eth_getTransactionReceipt', '$.status', /answered status "0x0", the receipt at index \d+ under receiptsRoot 0x[0-9a-f]{64}/],
      ['candidate-3', 'eth_getBlockByNumber', '$.hash', /header fields hash to 0x[0-9a-f]{64}, not to its hash/],
    ];
    for (const [name, method, path, message] of expected) {
      const c = byName.get(name) as Json;
      expect(c.status, name).toBe('fail');
      expect(c.wrong_answers.find((w: Json) => w.method === method), `${name}: ${JSON.stringify(c.wrong_answers)}`).toMatchObject({ path, message: expect.stringMatching(message) });
      // A changed value is that one answer; a changed header (read by number) is every answer read against a header fetched by number too.
      const wrongMethods = c.wrong_answers.map((w: Json) => w.method);
      if (name === 'candidate-3') expect(new Set(wrongMethods)).toEqual(new Set(['eth_getBlockByNumber', 'eth_getBalance', 'eth_getTransactionCount', 'eth_getCode', 'eth_getStorageAt', 'eth_getLogs']));
      else expect(wrongMethods).toEqual([method]);
    }
    expect(integrity.message).toMatch(/candidate-0: 6 proven, 1 wrong, 1 not provable: eth_getBalance at block \d+ \$: answered/);
  });

  it('the same tampering proxy in front of candidate AND reference: correctness passes, integrity fails', async () => {
    const lying = (method: string, _p: unknown[], result: unknown) => (method === 'eth_getBalance' ? '0xde0b6b3a7640000' : result);
    const { verdict } = await runWith([await proxy(lying)], await proxy(lying));
    expect(check(verdict, 'correctness').status).toBe('pass');
    const integrity = check(verdict, 'integrity');
    expect(integrity.status).toBe('fail');
    expect(integrity.details.candidates[0].wrong_answers[0]).toMatchObject({ method: 'eth_getBalance', path: '$', message: expect.stringMatching(/answered 1000000000000000000 wei, the account proof/) });
    expect(verdict.verdict).toBe('fail');
  });

  it('a run\'s own trusted block anchors the proofs (on a suite without config.integrity); a trusted block the chain does not have fails them', async () => {
    const block1 = (await anvil.rpc('eth_getBlockByNumber', ['0x1', false])) as Json;
    const trusted = await runWith([anvil.httpUrl], anvil.httpUrl, { suiteIntegrity: false, runBody: { integrity: { trusted_block: { number: 1, hash: block1.hash } } } });
    const integrity = check(trusted.verdict, 'integrity');
    expect(integrity.status, integrity.message).toBe('pass');
    expect(integrity.details.anchor).toEqual({ source: 'trusted_block', number: '1', hash: block1.hash });
    expect(integrity.message).toMatch(/anchored on the trusted block \(block 1 0x[0-9a-f]{64}\)/);

    const forged = await runWith([anvil.httpUrl], anvil.httpUrl, { suiteIntegrity: false, runBody: { integrity: { trusted_block: { number: 1, hash: `0x${'ab'.repeat(32)}` } } } });
    const failed = check(forged.verdict, 'integrity');
    expect(failed.status).toBe('fail');
    expect(failed.details.candidates[0].wrong_answers[0].message).toMatch(/ancestry reaches block 1 at 0x[0-9a-f]{64}, the chain linked to the anchor \(trusted_block\) has 0x(ab){32} there/);
  });

  it('a suite without config.integrity has no integrity check', async () => {
    const { verdict } = await runWith([anvil.httpUrl], anvil.httpUrl, { suiteIntegrity: false });
    expect(check(verdict, 'integrity')).toBeUndefined();
  });
});
