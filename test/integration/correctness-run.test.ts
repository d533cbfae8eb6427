import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fingerprint } from '../../src/chains/evm/answers';
import { createSuite, get, post, waitForRun } from '../helpers/api';
import { startAlteringProxy, startGanache, type Alter, type AlteringProxy, type GanacheChain } from '../helpers/ganache';
import { startStack, type Stack } from '../helpers/stack';

/*
 * The correctness check of a whole run, through HTTP, Temporal and Postgres, against a REAL
 * JSON-RPC node: the reference is ganache itself, the candidate an altering proxy in front of
 * it. Samples are compared in SQL at finalize; the verdict lists mismatches with their params
 * reconstructed from the run's seed.
 */

const REQUESTS = 60;
const hex = (n: number) => `0x${n.toString(16)}`;

type Json = Record<string, any>;

describe('correctness of a run against a real ganache node', () => {
  let stack: Stack;
  let chain: GanacheChain;
  const proxies: AlteringProxy[] = [];

  beforeAll(async () => {
    stack = await startStack();
    chain = await startGanache();
  });
  afterAll(async () => {
    await Promise.all(proxies.map((p) => p.close()));
    await chain?.close();
    await stack?.close();
  });

  async function rpc(method: string, params: unknown[]): Promise<unknown> {
    const response = await fetch(chain.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    });
    return ((await response.json()) as { result: unknown }).result;
  }

  /** Runs a suite whose candidate is a proxy altering answers with `alter`; returns what a CI would read. */
  async function runThroughProxy(alter?: Alter) {
    const proxy = await startAlteringProxy(chain.url, alter);
    proxies.push(proxy);
    const { auth } = await stack.newTenant();
    const setup = await createSuite(stack.app, auth, {
      candidates: [proxy.url],
      reference: chain.url,
      config: {
        workload: {
          methods: [
            { method: 'eth_getBalance', params: [chain.accounts[0], '{{pinned_block}}'] },
            { method: 'eth_getBalance', params: [chain.accounts[1], '{{pinned_block}}'] },
            { method: 'eth_getBlockByNumber', params: ['{{pinned_block}}', false] },
            { method: 'eth_chainId', params: [] },
            { method: 'eth_blockNumber', params: [] },
          ],
          requests_per_target: REQUESTS,
          concurrency: 4,
          warmup_requests: 2,
          timeout_ms: 5_000,
          // ganache has only a few blocks: pin the one just below the head.
          block_lag: 1,
        },
        thresholds: {
          correctness_enabled: true,
          correctness_min_pct: 100,
          latency_p95_max_ms: 5_000,
          // The proxy adds a hop: latency is not what these tests judge.
          latency_vs_reference_max_pct: 10_000,
        },
      },
    });
    const created = await post<{ id: string }>(stack.app, `/v1/suites/${setup.suiteId}/runs`, auth);
    expect(created.status).toBe(201);
    const run = await waitForRun(stack.app, auth, created.body.id);
    expect(run.status, JSON.stringify(run.retry_history)).toBe('success');
    const verdict = await get<Json>(stack.app, `/v1/runs/${run.id}/verdict`, auth);
    expect(verdict.status).toBe(200);
    const [row] = await stack.sql<{ pinned_block: string }[]>`select pinned_block from runs where id = ${run.id}`;
    const candidateId = run.targets.find((t: Json) => t.role === 'primary').id as string;
    const referenceId = run.targets.find((t: Json) => t.role === 'reference').id as string;
    const samples = async (query: string) => {
      const page = await get<{ data: Json[] }>(stack.app, `/v1/runs/${run.id}/samples?limit=200&${query}`, auth);
      expect(page.status).toBe(200);
      return page.body.data;
    };
    return {
      run,
      verdict: verdict.body,
      pinned: Number(row!.pinned_block),
      candidateId,
      referenceId,
      samples,
      correctness: verdict.body.checks.find((c: Json) => c.name === 'correctness'),
    };
  }

  it('identity proxy: every answer matches, correctness passes at 100%, head lag 0', async () => {
    const { verdict, pinned, candidateId, referenceId, samples, correctness } = await runThroughProxy();
    expect(pinned).toBe(chain.headBlock - 1);

    expect(verdict.checks.map((c: Json) => c.name)).toEqual(['latency_p95', 'latency_vs_reference', 'correctness', 'availability']);
    expect(correctness).toMatchObject({
      status: 'pass',
      details: {
        compared: REQUESTS,
        matched: REQUESTS,
        mismatched: 0,
        inconclusive: 0,
        skipped: 0,
        match_rate_pct: 100,
        min_pct: 100,
        mismatches: [],
      },
    });
    expect(verdict).toMatchObject({ verdict: 'pass', exit_code: 0 });

    const candidate = await samples(`target_id=${candidateId}`);
    expect(candidate).toHaveLength(REQUESTS);
    expect(candidate.every((s) => s.matches_reference === true)).toBe(true);
    // The reference is what the others are compared with: its own samples have no verdict.
    const reference = await samples(`target_id=${referenceId}`);
    expect(reference.every((s) => s.matches_reference === null)).toBe(true);
    // Sample hashes are JSON-RPC-aware fingerprints of the answers.
    const chainId = candidate.find((s) => s.method === 'eth_chainId');
    expect(chainId?.response_hash).toBe(fingerprint('eth_chainId', await rpc('eth_chainId', [])));

    const comparison = verdict.reference_comparison;
    expect(comparison.head_lag_blocks).toBe(0);
    expect(comparison.latency.by_method.map((m: Json) => m.method)).toEqual([
      'eth_blockNumber',
      'eth_chainId',
      'eth_getBalance',
      'eth_getBlockByNumber',
    ]);
    for (const m of comparison.latency.by_method) {
      expect(m).toEqual({
        method: m.method,
        calls: expect.any(Number),
        failed: 0,
        candidate_p95_ms: expect.any(Number),
        reference_p95_ms: expect.any(Number),
        vs_reference_pct: expect.any(Number),
      });
      expect(m.calls).toBeGreaterThan(0);
    }
    expect(comparison.latency.by_method.reduce((sum: number, m: Json) => sum + m.calls, 0)).toBe(REQUESTS);
  });

  it('a proxy altering eth_getBalance: correctness fails, listing those calls with params and both hashes', async () => {
    // eth_getBalance answers change (a mismatch); eth_blockNumber is one block ahead. That method
    // is head-dependent, but ganache mines nothing during the run: neither recorded head moves, so
    // those differences are mismatches too, not excused as "head moved". The head the candidate
    // reports is one ahead, so head lag is +1.
    const alter: Alter = (method, result) => {
      if (method === 'eth_getBalance') return hex(Number(BigInt(result as string) % 1000n) + 1);
      if (method === 'eth_blockNumber') return hex(Number(result) + 1);
      return result;
    };
    const { verdict, pinned, candidateId, samples, correctness } = await runThroughProxy(alter);
    expect(verdict).toMatchObject({ verdict: 'fail', exit_code: 1 });
    expect(verdict.checks.filter((c: Json) => c.status === 'fail').map((c: Json) => c.name)).toEqual(['correctness']);

    const balances = await samples(`target_id=${candidateId}&method=eth_getBalance`);
    const heads = await samples(`target_id=${candidateId}&method=eth_blockNumber`);
    const all = await samples(`target_id=${candidateId}`);
    expect(balances.length).toBeGreaterThan(0);
    expect(heads.length).toBeGreaterThan(0);
    expect(balances.every((s) => s.matches_reference === false)).toBe(true);
    expect(heads.every((s) => s.matches_reference === false)).toBe(true);
    const others = all.filter((s) => s.method === 'eth_chainId' || s.method === 'eth_getBlockByNumber');
    expect(others.every((s) => s.matches_reference === true)).toBe(true);

    const d = correctness.details;
    expect(correctness.status).toBe('fail');
    expect(d).toMatchObject({
      compared: REQUESTS,
      matched: others.length,
      mismatched: balances.length + heads.length,
      inconclusive: 0,
      skipped: 0,
      min_pct: 100,
    });
    expect(correctness.message).not.toContain('head moved');
    expect(d.match_rate_pct).toBe(Math.floor((others.length * 1000) / REQUESTS) / 10);
    expect([...d.mismatches_by_method].sort((a: Json, b: Json) => (a.method < b.method ? -1 : 1))).toEqual([
      { method: 'eth_blockNumber', mismatched: heads.length, compared: heads.length },
      { method: 'eth_getBalance', mismatched: balances.length, compared: balances.length },
    ]);

    // One row per distinct pair of answers: each account's balance is altered the same way every
    // time, and the candidate's head is always the same block ahead — so at most three rows, each
    // counting its mismatches, not ten identical ones.
    const listedBalances = d.mismatches.filter((m: Json) => m.method === 'eth_getBalance');
    const listedHeads = d.mismatches.filter((m: Json) => m.method === 'eth_blockNumber');
    expect(d.mismatches).toHaveLength(listedBalances.length + listedHeads.length);
    const pinnedHex = hex(pinned);
    expect(listedBalances.length).toBeGreaterThanOrEqual(1);
    expect(listedBalances.length).toBeLessThanOrEqual(2);
    expect(new Set(listedBalances.map((m: Json) => JSON.stringify(m.params))).size).toBe(listedBalances.length);
    expect(listedBalances.reduce((sum: number, m: Json) => sum + m.occurrences, 0)).toBe(balances.length);
    expect(listedHeads).toHaveLength(1);
    expect(listedHeads[0]).toMatchObject({ params: [], occurrences: heads.length });

    // What differs, value by value: both sides were asked once more at finalize, answered as
    // recorded, and the one path where the answers part is shown with both values.
    for (const m of listedBalances) {
      expect([[chain.accounts[0], pinnedHex], [chain.accounts[1], pinnedHex]]).toContainEqual(m.params);
      const real = (await rpc('eth_getBalance', m.params)) as string;
      expect(m.reference_hash).toBe(fingerprint('eth_getBalance', real));
      expect(balances.map((s) => s.response_hash)).toContain(m.candidate_hash);
      expect(m).toMatchObject({
        differences_status: 'shown',
        differences: [{ path: '$', candidate: JSON.stringify(alter('eth_getBalance', real, m.params)), reference: JSON.stringify(`0x${BigInt(real).toString(16)}`) }],
        more_differences: false,
      });
    }
    const head = Number(await rpc('eth_blockNumber', []));
    expect(listedHeads[0]).toMatchObject({
      candidate_hash: heads[0]!.response_hash,
      differences_status: 'shown',
      differences: [{ path: '$', candidate: JSON.stringify(hex(head + 1)), reference: JSON.stringify(hex(head)) }],
    });
    expect(verdict.markdown_summary).toContain(`\`eth_blockNumber\` \`[]\` (×${heads.length}): \`$\` candidate \`"${hex(head + 1)}"\` ≠ reference \`"${hex(head)}"\``);
    expect(verdict.markdown_summary).toContain('Mismatches by method: ');

    expect(verdict.reference_comparison.head_lag_blocks).toBe(1);
    expect(verdict.reference_comparison.latency.by_method.map((m: Json) => m.method)).toEqual([
      'eth_blockNumber',
      'eth_chainId',
      'eth_getBalance',
      'eth_getBlockByNumber',
    ]);
    expect(verdict.markdown_summary).toContain('| correctness | ❌ fail |');
  });

  it('scalar answers that change when asked again: the listed mismatches show both recorded values', async () => {
    // eth_chainId answers a new value on every call (as eth_blockNumber does on a live chain): the
    // explanation step's second asking gets other answers than were recorded ('changed'). The values
    // of a scalar answer are stored with its sample, so both recorded values are shown anyway.
    let n = 0;
    const alter: Alter = (method, result) => (method === 'eth_chainId' ? hex(0x1000 + n++) : result);
    const { verdict, candidateId, samples, correctness } = await runThroughProxy(alter);
    const recorded = await samples(`target_id=${candidateId}&method=eth_chainId`);
    expect(recorded.length).toBeGreaterThan(0);
    const listed = correctness.details.mismatches.filter((m: Json) => m.method === 'eth_chainId');
    expect(listed.length).toBeGreaterThan(0);
    const reference = JSON.stringify(await rpc('eth_chainId', []));
    for (const m of listed) {
      expect(m).toMatchObject({ differences_status: 'shown', more_differences: false, differences: [{ path: '$', reference }] });
      // The candidate's value shown is the very answer recorded: its fingerprint is the listed hash.
      const shown = JSON.parse(m.differences[0].candidate as string) as string;
      expect(shown).toMatch(/^0x1[0-9a-f]{3}$/);
      expect(fingerprint('eth_chainId', shown)).toBe(m.candidate_hash);
    }
    const first = listed[0];
    expect(verdict.markdown_summary).toContain(`\`$\` candidate \`${first.differences[0].candidate}\` ≠ reference \`${reference}\``);
  });
});
