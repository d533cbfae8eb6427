import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BITCOIN_WORKLOAD_PRESETS } from '../../src/chains/bitcoin/presets';
import { workflowIdForRun } from '../../src/temporal/constants';
import { get, post, waitForRun } from '../helpers/api';
import { RPC_PASSWORD, RPC_USER, startBitcoinPair, startBitcoinProxy, type BitcoinPair, type BitcoinProxy } from '../helpers/bitcoin-nodes';
import { startStack, type Stack } from '../helpers/stack';

/*
 * Runs of a `bitcoin` chain end to end (HTTP, Temporal, Postgres, the probe client) against REAL
 * regtest nodes on loopback: two peered litecoind (Bitcoin Core 0.21's RPC: JSON-RPC 1.0 answers,
 * HTTP 404/500 for RPC errors) and two peered btcd (HTTP 200, echoes `jsonrpc`). The candidate is
 * one peer, the reference the other, with basic-auth credentials in the URL's userinfo or in an
 * Authorization header.
 */

type Json = Record<string, any>;
type Auth = { authorization: string };

const BLOCK_LAG = 5;
const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

describe('runs of a bitcoin chain against real regtest nodes', () => {
  let stack: Stack;
  let litecoin: BitcoinPair;
  let btcd: BitcoinPair;
  const proxies: BitcoinProxy[] = [];

  beforeAll(async () => {
    [stack, litecoin, btcd] = await Promise.all([startStack({ captureLogs: true }), startBitcoinPair('litecoind'), startBitcoinPair('btcd')]);
  });
  afterAll(async () => {
    await Promise.all([litecoin?.close(), btcd?.close(), ...proxies.map((p) => p.close())]);
    await stack?.close();
  });

  /** A bitcoin chain, a candidate and a reference endpoint, a suite with `methods`; runs it and returns what a CI reads. */
  async function runSuite(
    auth: Auth,
    endpoints: { candidate: { url: string; headers?: Record<string, string> }; reference: { url: string; headers?: Record<string, string> } },
    methods: Json[],
    requests: number,
    options: { slugPrefix?: string; config?: Json } = {},
  ) {
    const slug = `${options.slugPrefix ?? 'regtest'}-${Date.now()}-${Math.random().toString(36).slice(2)}`;
    const chain = await post<Json>(stack.app, '/v1/chains', auth, { name: 'Regtest', slug, family: 'bitcoin' });
    expect(chain.status, JSON.stringify(chain.body)).toBe(201);
    const endpoint = async (name: string, e: { url: string; headers?: Record<string, string> }) => {
      const created = await post<Json>(stack.app, '/v1/endpoints', auth, { chain_id: chain.body.id, name, url: e.url, headers: e.headers ?? {}, timeout_ms: 5_000 });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      return created.body.id as string;
    };
    const candidateId = await endpoint('candidate', endpoints.candidate);
    const referenceId = await endpoint('reference', endpoints.reference);
    const suite = await post<Json>(stack.app, '/v1/suites', auth, {
      chain_id: chain.body.id,
      name: 'bitcoin suite',
      config: {
        targets: [{ endpoint_id: candidateId }],
        reference_endpoint_id: referenceId,
        workload: { methods, requests_per_target: requests, concurrency: 4, warmup_requests: 2, timeout_ms: 5_000, block_lag: BLOCK_LAG },
        retry: { max_attempts: 2, initial_interval_ms: 200 },
        thresholds: { correctness_enabled: true, correctness_min_pct: 100, latency_p95_max_ms: 5_000, latency_vs_reference_max_pct: 10_000 },
        ...options.config,
      },
    });
    expect(suite.status, JSON.stringify(suite.body)).toBe(201);
    const created = await post<Json>(stack.app, `/v1/suites/${suite.body.id}/runs`, auth);
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const run = await waitForRun(stack.app, auth, created.body.id, 60_000);
    const verdict = await get<Json>(stack.app, `/v1/runs/${run.id}/verdict`, auth);
    expect(verdict.status).toBe(200);
    const [row] = await stack.sql<{ pinned_block: string | null; pinned_context: Record<string, string> | null }[]>`
      select pinned_block, pinned_context from runs where id = ${run.id}`;
    const targetId = (role: string) => run.targets.find((t: Json) => t.role === role).id as string;
    const samples = async (role: string) => {
      const all: Json[] = [];
      for (;;) {
        const page = await get<{ data: Json[]; pagination: Json }>(stack.app, `/v1/runs/${run.id}/samples?limit=200&offset=${all.length}&target_id=${targetId(role)}`, auth);
        expect(page.status).toBe(200);
        all.push(...page.body.data);
        if (!page.body.pagination.has_more) return all;
      }
    };
    return {
      run,
      verdict: verdict.body,
      pinned: row!.pinned_block === null ? null : Number(row!.pinned_block),
      pinnedContext: row!.pinned_context,
      samples,
      correctness: verdict.body.checks.find((c: Json) => c.name === 'correctness'),
      integrity: verdict.body.checks.find((c: Json) => c.name === 'integrity'),
    };
  }

  /** Reads made at a block well below the head, with hashes and a txid read from the reference node. */
  async function pinnedReads(pair: BitcoinPair, height: number) {
    const hash = (await pair.a.rpc('getblockhash', [height])) as string;
    const block = (await pair.a.rpc('getblock', [hash, 1])) as { tx: string[] };
    const txid = block.tx[0]!;
    return { hash, txid };
  }

  it('integrity on litecoind (scrypt work: a litecoin- slug): every provable answer proven against the reference\'s hash of the pinned block; one output value changed in front of BOTH nodes: correctness passes, integrity fails naming it', async () => {
    const { auth } = await stack.newTenant();
    const { hash, txid } = await pinnedReads(litecoin, 100);
    const methods = [
      { method: 'getblockhash', params: ['{{pinned_height}}'], weight: 1 },
      { method: 'getblockheader', params: [hash], weight: 1 },
      { method: 'getblock', params: [hash, 2], weight: 1 },
      { method: 'getrawtransaction', params: [txid, true], weight: 1 },
      { method: 'gettxout', params: [txid, 0], weight: 1 },
    ];
    const integrity = { config: { integrity: {} }, slugPrefix: 'litecoin-regtest' };
    const honest = await runSuite(auth, { candidate: { url: litecoin.b.authUrl }, reference: { url: litecoin.a.authUrl } }, methods, 20, integrity);
    expect(honest.run.status).toBe('success');
    expect(honest.integrity.status, honest.integrity.message).toBe('pass');
    const [candidate] = honest.integrity.details.candidates;
    expect(candidate.wrong).toBe(0);
    expect(candidate.proven).toBe(4);
    expect(candidate.not_provable).toBe(1);
    expect(honest.integrity.details.anchor.source).toBe('reference');

    // The same lie from both nodes (one proxy's rule in front of each): the first output of the
    // transaction is worth one satoshi more, in the transaction and in the block that lists it.
    const more = (tx: Json) => ({ ...tx, vout: tx.vout.map((o: Json, i: number) => (i === 0 ? { ...o, value: Math.round(o.value * 1e8 + 1) / 1e8 } : o)) });
    const lie = (method: string, result: unknown) => {
      if (method === 'getrawtransaction' && result && typeof result === 'object') return more(result as Json);
      if (method === 'getblock' && result && typeof result === 'object' && Array.isArray((result as Json).tx) && typeof (result as Json).tx[0] === 'object') return { ...(result as Json), tx: [more((result as Json).tx[0]), ...(result as Json).tx.slice(1)] };
      return result;
    };
    const [candidateProxy, referenceProxy] = await Promise.all([startBitcoinProxy(litecoin.b, lie), startBitcoinProxy(litecoin.a, lie)]);
    proxies.push(candidateProxy, referenceProxy);
    const lied = await runSuite(auth, { candidate: { url: candidateProxy.url }, reference: { url: referenceProxy.url } }, methods, 20, integrity);
    expect(lied.correctness.status, lied.correctness.message).toBe('pass');
    expect(lied.integrity.status, lied.integrity.message).toBe('fail');
    const wrong = lied.integrity.details.candidates[0].wrong_answers;
    expect(wrong.map((f: Json) => f.method).sort()).toEqual(['getblock', 'getrawtransaction']);
    expect(wrong.every((f: Json) => /vout\[0\]\.value/.test(f.path)), JSON.stringify(wrong)).toBe(true);
    expect(lied.verdict.verdict).toBe('fail');
  });

  it('two peered litecoind nodes: every call ok, head read as a height, pinned reads match, the verdict passes', async () => {
    const { auth } = await stack.newTenant();
    const head = (await litecoin.a.rpc('getblockcount')) as number;
    const { hash, txid } = await pinnedReads(litecoin, 100);
    const methods = [
      { method: 'getblockchaininfo', params: [], weight: 1 },
      { method: 'getblockcount', params: [], weight: 1 },
      { method: 'getbestblockhash', params: [], weight: 1 },
      { method: 'getblockhash', params: ['{{pinned_height}}'], weight: 2 },
      { method: 'getblockstats', params: ['{{pinned_block}}'], weight: 1 },
      { method: 'getblockheader', params: [hash], weight: 1 },
      { method: 'getblock', params: [hash, 1], weight: 1 },
      { method: 'getblock', params: [hash, 2], weight: 1 },
      { method: 'getrawtransaction', params: [txid, true], weight: 1 },
      { method: 'gettxout', params: [txid, 0], weight: 1 },
      { method: 'getmempoolinfo', params: [], weight: 1 },
      { method: 'estimatesmartfee', params: [6], weight: 1 },
    ];
    const { run, verdict, pinned, samples, correctness } = await runSuite(
      auth,
      // Credentials both ways: the URL's userinfo (the client turns it into Basic auth), and a header.
      { candidate: { url: litecoin.b.authUrl }, reference: { url: litecoin.a.url, headers: { authorization: basic(RPC_USER, RPC_PASSWORD) } } },
      methods,
      240,
    );
    expect(run.status, JSON.stringify(run.retry_history)).toBe('success');
    // The head was read as a height (getblockchaininfo's `blocks`) and pinned BLOCK_LAG below it.
    expect(pinned).toBe(head - BLOCK_LAG);
    const candidate = await samples('primary');
    expect(candidate).toHaveLength(240);
    const notOk = candidate.filter((s) => s.outcome !== 'ok');
    expect(notOk, JSON.stringify(notOk.slice(0, 3))).toEqual([]);
    expect(new Set(candidate.map((s) => s.method))).toEqual(new Set(methods.map((m) => m.method)));
    expect(candidate.every((s) => s.matches_reference === true)).toBe(true);
    expect(correctness).toMatchObject({ status: 'pass', details: { compared: 240, matched: 240, mismatched: 0, match_rate_pct: 100 } });
    expect(verdict.reference_comparison.head_lag_blocks).toBe(0);
    expect(verdict).toMatchObject({ verdict: 'pass', exit_code: 0 });
    // Nothing in the summary speaks EVM.
    for (const evm of ['eth_', 'gwei', 'block tag', 'latest']) expect(verdict.markdown_summary).not.toContain(evm);
    // The URL's password is a secret like any other: never in the run, its samples, the verdict,
    // the logs or the run's workflow history (payloads decoded).
    await stack.client.workflow.getHandle(workflowIdForRun(run.id)).result();
    const history = await stack.client.workflow.getHandle(workflowIdForRun(run.id)).fetchHistory();
    const historyText = JSON.stringify(history, (_key, value: unknown) => (value instanceof Uint8Array ? Buffer.from(value).toString('utf8') : value));
    expect(historyText).toContain(run.id);
    const everything = [JSON.stringify([run, verdict, candidate, await samples('reference')]), historyText, ...stack.logs].join('\n');
    expect(everything).not.toContain(RPC_PASSWORD);
    expect(everything).not.toContain(basic(RPC_USER, RPC_PASSWORD).slice('Basic '.length));
    expect(run.targets.find((t: Json) => t.role === 'primary').endpoint_url).not.toContain(RPC_USER);
  });

  it('an unknown method (HTTP 404) and an out-of-range height (HTTP 500) are rpc_errors with their codes; wrong credentials are http_error 401', async () => {
    const { auth } = await stack.newTenant();
    const methods = [
      { method: 'getnosuchthing', params: [], weight: 1 },
      { method: 'getblockhash', params: [1_000_000], weight: 1 },
    ];
    const wrong = `http://${RPC_USER}:wrong-${RPC_PASSWORD}@${new URL(litecoin.b.url).host}/`;
    const { run, samples } = await runSuite(auth, { candidate: { url: litecoin.b.authUrl }, reference: { url: wrong } }, methods, 40);
    expect(run.status).toBe('success');
    const candidate = await samples('primary');
    expect(candidate).toHaveLength(40);
    const byMethod = (method: string) => candidate.filter((s) => s.method === method);
    expect(byMethod('getnosuchthing').length).toBeGreaterThan(0);
    for (const s of byMethod('getnosuchthing')) expect(s).toMatchObject({ outcome: 'rpc_error', rpc_error_code: -32601, http_status: 404 });
    for (const s of byMethod('getblockhash')) expect(s).toMatchObject({ outcome: 'rpc_error', rpc_error_code: -8, http_status: 500 });
    const reference = await samples('reference');
    expect(reference.length).toBeGreaterThan(0);
    for (const s of reference) expect(s).toMatchObject({ outcome: 'http_error', http_status: 401, rpc_error_code: null });
    expect(JSON.stringify([run, reference])).not.toContain(`wrong-${RPC_PASSWORD}`);
    expect(stack.logs.join('\n')).not.toContain(RPC_PASSWORD);
  });

  it('two peered btcd nodes: the same envelope is read, pinned reads match, the verdict passes', async () => {
    const { auth } = await stack.newTenant();
    const head = (await btcd.a.rpc('getblockcount')) as number;
    const { hash, txid } = await pinnedReads(btcd, 100);
    const methods = [
      { method: 'getblockchaininfo', params: [], weight: 1 },
      { method: 'getblockcount', params: [], weight: 1 },
      { method: 'getbestblockhash', params: [], weight: 1 },
      { method: 'getblockhash', params: ['{{pinned_height}}'], weight: 2 },
      { method: 'getblockheader', params: [hash], weight: 1 },
      { method: 'getblock', params: [hash, 1], weight: 1 },
      { method: 'getblock', params: [hash, 2], weight: 1 },
      { method: 'getrawtransaction', params: [txid, 1], weight: 1 },
      { method: 'gettxout', params: [txid, 0], weight: 1 },
      { method: 'getmempoolinfo', params: [], weight: 1 },
    ];
    const { run, verdict, pinned, samples, correctness } = await runSuite(
      auth,
      { candidate: { url: btcd.b.authUrl }, reference: { url: btcd.a.authUrl } },
      methods,
      200,
    );
    expect(run.status, JSON.stringify(run.retry_history)).toBe('success');
    expect(pinned).toBe(head - BLOCK_LAG);
    const candidate = await samples('primary');
    const notOk = candidate.filter((s) => s.outcome !== 'ok');
    expect(notOk, JSON.stringify(notOk.slice(0, 3))).toEqual([]);
    expect(correctness).toMatchObject({ status: 'pass', details: { compared: 200, matched: 200, mismatched: 0 } });
    expect(verdict).toMatchObject({ verdict: 'pass', exit_code: 0 });
  });

  it('two peered btcd nodes: block and transaction reads pinned by the pinned context match', async () => {
    const { auth } = await stack.newTenant();
    const methods = [
      { method: 'getblockhash', params: ['{{pinned_height}}'], weight: 1 },
      { method: 'getblockheader', params: ['{{pinned_block_hash}}', true], weight: 1 },
      { method: 'getblock', params: ['{{pinned_block_hash}}', 1], weight: 1 },
      { method: 'getblock', params: ['{{pinned_block_hash}}', 2], weight: 1 },
      // btcd takes no block hash here (it has -txindex).
      { method: 'getrawtransaction', params: ['{{pinned_txid}}', 1], weight: 1 },
      { method: 'gettxout', params: ['{{pinned_txid}}', 0], weight: 1 },
    ];
    const { run, pinned, pinnedContext, samples, correctness } = await runSuite(auth, { candidate: { url: btcd.b.authUrl }, reference: { url: btcd.a.authUrl } }, methods, 120);
    expect(run.status, JSON.stringify(run.retry_history)).toBe('success');
    const { hash, txid } = await pinnedReads(btcd, pinned!);
    expect(pinnedContext).toEqual({ pinned_block_hash: hash, pinned_txid: txid });
    const candidate = await samples('primary');
    expect(candidate.filter((s) => s.outcome !== 'ok')).toEqual([]);
    expect(new Set(candidate.map((s) => s.method))).toEqual(new Set(methods.map((m) => m.method)));
    expect(correctness).toMatchObject({ status: 'pass', details: { compared: 120, matched: 120 } });
  });

  it('a proxy altering getblock’s transaction list and getrawtransaction’s outputs fails correctness, naming the methods and paths', async () => {
    const { auth } = await stack.newTenant();
    const { hash, txid } = await pinnedReads(litecoin, 100);
    const proxy = await startBitcoinProxy(litecoin.b, (method, result) => {
      if (method === 'getblock') return { ...(result as Json), tx: [...(result as Json).tx, 'ff'.repeat(32)] };
      if (method === 'getrawtransaction') {
        const tx = result as Json;
        return { ...tx, vout: tx.vout.map((out: Json, i: number) => (i === 0 ? { ...out, value: out.value + 1 } : out)) };
      }
      return result;
    });
    proxies.push(proxy);
    const methods = [
      { method: 'getblock', params: [hash, 1], weight: 1 },
      { method: 'getrawtransaction', params: [txid, true], weight: 1 },
      { method: 'getblockhash', params: ['{{pinned_height}}'], weight: 1 },
    ];
    const { verdict, samples, correctness } = await runSuite(auth, { candidate: { url: proxy.url }, reference: { url: litecoin.a.authUrl } }, methods, 60);
    expect(verdict).toMatchObject({ verdict: 'fail', exit_code: 1 });
    const candidate = await samples('primary');
    for (const s of candidate) expect(s.matches_reference, s.method).toBe(s.method === 'getblockhash');
    expect(correctness.status).toBe('fail');
    expect(correctness.details.mismatches_by_method.map((m: Json) => m.method).sort()).toEqual(['getblock', 'getrawtransaction']);
    const listed = (method: string) => correctness.details.mismatches.find((m: Json) => m.method === method);
    expect(listed('getblock')).toMatchObject({ params: [hash, 1], differences_status: 'shown' });
    expect(listed('getblock').differences.map((d: Json) => d.path)).toEqual(['$.tx[1]']);
    expect(listed('getrawtransaction').differences.map((d: Json) => d.path)).toEqual(['$.vout[0].value']);
  });

  it('blocks mined during a run: pinned reads never mismatch, and no tip read is counted as a mismatch', async () => {
    const { auth } = await stack.newTenant();
    const { hash, txid } = await pinnedReads(litecoin, 100);
    let mining = true;
    let mined = 0;
    const miner = (async () => {
      while (mining) {
        await litecoin.a.rpc('generatetoaddress', [1, 'mipcBbFg9gMiCh81Kj8tqqdgoZub1ZJRfn']);
        mined++;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    })();
    const methods = [
      { method: 'getblockhash', params: ['{{pinned_height}}'], weight: 2 },
      { method: 'getblockheader', params: [hash], weight: 2 },
      { method: 'getblock', params: [hash, 2], weight: 2 },
      { method: 'getrawtransaction', params: [txid, true], weight: 2 },
      { method: 'getblockcount', params: [], weight: 1 },
      { method: 'getbestblockhash', params: [], weight: 1 },
    ];
    let result;
    try {
      result = await runSuite(auth, { candidate: { url: litecoin.b.authUrl }, reference: { url: litecoin.a.authUrl } }, methods, 300);
    } finally {
      mining = false;
      await miner;
    }
    expect(mined).toBeGreaterThan(2);
    const candidate = await result.samples('primary');
    expect(candidate.every((s) => s.outcome === 'ok')).toBe(true);
    const pinned = candidate.filter((s) => !['getblockcount', 'getbestblockhash'].includes(s.method));
    expect(pinned.every((s) => s.matches_reference === true)).toBe(true);
    expect(result.correctness.details.mismatched, JSON.stringify(result.correctness)).toBe(0);
  });

  it('two peered litecoind nodes pass correctness at 100 % on the bitcoin-standard preset', async () => {
    const { auth } = await stack.newTenant();
    const preset = BITCOIN_WORKLOAD_PRESETS.find((p) => p.slug === 'bitcoin-standard')!;
    const methods = preset.workload.methods as Json[];
    const head = (await litecoin.a.rpc('getblockcount')) as number;
    const { run, verdict, pinned, pinnedContext, samples, correctness } = await runSuite(
      auth,
      { candidate: { url: litecoin.b.authUrl }, reference: { url: litecoin.a.authUrl } },
      methods,
      200,
    );
    expect(run.status, JSON.stringify(run.retry_history)).toBe('success');
    // The pinned block's hash and its (only, coinbase) transaction, read from the reference at planning time.
    expect(pinned).toBe(head - BLOCK_LAG);
    const { hash, txid } = await pinnedReads(litecoin, pinned!);
    expect(pinnedContext).toEqual({ pinned_block_hash: hash, pinned_txid: txid });
    const candidate = await samples('primary');
    expect(new Set(candidate.map((s) => s.method))).toEqual(new Set(methods.map((m) => m.method)));
    for (const method of ['getblock', 'getblockheader', 'getrawtransaction', 'gettxout']) expect(candidate.some((s) => s.method === method), method).toBe(true);
    expect(candidate.filter((s) => s.outcome !== 'ok')).toEqual([]);
    expect(candidate.every((s) => s.matches_reference === true)).toBe(true);
    expect(correctness).toMatchObject({ status: 'pass', details: { compared: 200, matched: 200, match_rate_pct: 100 } });
    expect(verdict).toMatchObject({ verdict: 'pass', exit_code: 0 });
  });

  it('bitcoin-standard through a proxy altering the pinned block’s transaction list and the pinned transaction’s outputs fails, naming the paths', async () => {
    const { auth } = await stack.newTenant();
    const preset = BITCOIN_WORKLOAD_PRESETS.find((p) => p.slug === 'bitcoin-standard')!;
    const proxy = await startBitcoinProxy(litecoin.b, (method, result) => {
      if (method === 'getblock') return { ...(result as Json), tx: [...(result as Json).tx, 'ff'.repeat(32)] };
      if (method === 'getrawtransaction') {
        const tx = result as Json;
        return { ...tx, vout: tx.vout.map((out: Json, i: number) => (i === 0 ? { ...out, value: out.value + 1 } : out)) };
      }
      return result;
    });
    proxies.push(proxy);
    const { verdict, pinned, pinnedContext, samples, correctness } = await runSuite(
      auth,
      { candidate: { url: proxy.url }, reference: { url: litecoin.a.authUrl } },
      preset.workload.methods as Json[],
      200,
    );
    expect(verdict).toMatchObject({ verdict: 'fail', exit_code: 1 });
    const { hash, txid } = await pinnedReads(litecoin, pinned!);
    expect(pinnedContext).toEqual({ pinned_block_hash: hash, pinned_txid: txid });
    const candidate = await samples('primary');
    expect(candidate.filter((s) => s.outcome !== 'ok')).toEqual([]);
    for (const s of candidate.filter((c) => ['getblock', 'getrawtransaction'].includes(c.method))) expect(s.matches_reference, s.method).toBe(false);
    for (const s of candidate.filter((c) => ['getblockhash', 'getblockheader', 'gettxout'].includes(c.method))) expect(s.matches_reference, s.method).toBe(true);
    expect(correctness.status).toBe('fail');
    expect(correctness.details.mismatches_by_method.map((m: Json) => m.method).sort()).toEqual(['getblock', 'getrawtransaction']);
    const listed = (method: string) => correctness.details.mismatches.filter((m: Json) => m.method === method);
    expect(new Set(listed('getblock').map((m: Json) => JSON.stringify(m.params)))).toEqual(new Set([JSON.stringify([hash, 1]), JSON.stringify([hash, 2])]));
    for (const m of listed('getblock')) expect(m.differences.map((d: Json) => d.path)).toEqual(['$.tx[1]']);
    expect(listed('getrawtransaction')[0]).toMatchObject({ params: [txid, true, hash], differences_status: 'shown' });
    expect(listed('getrawtransaction')[0].differences.map((d: Json) => d.path)).toEqual(['$.vout[0].value']);
  });

  it('a suite on a bitcoin chain gets getblockcount when it names no methods, and refuses EVM method names', async () => {
    const { auth } = await stack.newTenant();
    const chain = await post<Json>(stack.app, '/v1/chains', auth, { name: 'Regtest', slug: `regtest-${Date.now()}`, family: 'bitcoin' });
    const endpoint = await post<Json>(stack.app, '/v1/endpoints', auth, { chain_id: chain.body.id, name: 'node', url: litecoin.a.authUrl });
    expect(endpoint.status, JSON.stringify(endpoint.body)).toBe(201);
    const suite = await post<Json>(stack.app, '/v1/suites', auth, { chain_id: chain.body.id, name: 'defaults', config: { targets: [{ endpoint_id: endpoint.body.id }] } });
    expect(suite.status, JSON.stringify(suite.body)).toBe(201);
    expect(suite.body.config.workload.methods).toEqual([{ method: 'getblockcount', params: [], weight: 1 }]);
    const evm = await post<Json>(stack.app, '/v1/suites', auth, {
      chain_id: chain.body.id,
      name: 'evm names',
      config: { targets: [{ endpoint_id: endpoint.body.id }], workload: { methods: [{ method: 'eth_blockNumber' }] } },
    });
    expect(evm.status).toBe(400);
    expect(evm.body.error.details).toEqual([{ field: 'config.workload.methods.0.method', message: 'must be a Bitcoin Core RPC method name (lower case)' }]);
  });
});
