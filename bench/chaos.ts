/*
 * bench:chaos — the hostile nodes of issue 30, cycled against ONE worker process (started as
 * `npm run worker` starts it, its 160 MB heap cap included) through the real stack, for
 * BENCH_CHAOS_DURATION_S seconds (default 600). Runs go one after another, mode by mode: HTTP
 * value-dense answers and batches, a 4 MB eth_blockNumber, WebSocket value-dense results and
 * unmatched messages, 200 early notifications of 255 KB before a subscription's answer, endless
 * zero-length continuation frames. Prints worker deaths (the worker is never restarted: a death
 * ends the benchmark), its max RSS (sampled every 100 ms from /proc) and whether every run
 * reached a terminal state on its own within RUN_BOUND_MS.
 */
import { readFileSync } from 'node:fs';
import { startHostileNode } from '../test/helpers/hostile-node';
import { startHostileWsNode } from '../test/helpers/hostile-ws-node';
import { fmt, runBench, startStack, table } from './lib';

const DURATION_MS = Number(process.env.BENCH_CHAOS_DURATION_S ?? 600) * 1000;
/** A run not terminal by then counts as one that did not end on its own. */
const RUN_BOUND_MS = 180_000;

type Json = Record<string, any>;

runBench('bench:chaos', DURATION_MS + 10 * 60_000, async (parts, aborted) => {
  const stack = await startStack(parts);
  await stack.waitForWorker();
  const pid = stack.worker.pid!;
  let deaths = 0;
  stack.worker.once('exit', () => deaths++);
  let maxRssKb = 0;
  const sampler = setInterval(() => {
    try {
      const rss = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
      if (rss) maxRssKb = Math.max(maxRssKb, Number(rss[1]));
    } catch {
      // Gone: counted by the exit listener.
    }
  }, 100);
  parts.closers.push({ name: 'rss sampler', close: async () => clearInterval(sampler) });

  const dense = await startHostileNode('value-dense');
  const hugeHex = await startHostileNode('huge-hex');
  const wsDense = await startHostileWsNode('dense-result');
  const wsUnmatched = await startHostileWsNode('dense-unmatched');
  const wsFlood = await startHostileWsNode('early-flood');
  const wsZero = await startHostileWsNode('zero-continuations');
  const honest = await startHostileWsNode('ok');
  for (const node of [dense, hugeHex, wsDense, wsUnmatched, wsFlood, wsZero, honest]) parts.closers.push({ name: 'hostile node', close: () => node.close() });

  const chain = await stack.call<{ id: string }>('POST', '/v1/chains', { name: 'Chaos', slug: `chaos-${Date.now()}`, chain_id: 1337 });
  const endpoint = async (name: string, body: { url: string; ws_url?: string }) =>
    (await stack.call<{ id: string }>('POST', '/v1/endpoints', { chain_id: chain.id, name, timeout_ms: 5_000, ...body })).id;
  const workload = (extra: Json = {}) => ({ methods: [{ method: 'eth_chainId', params: [] }], requests_per_target: 20, concurrency: 4, warmup_requests: 0, timeout_ms: 5_000, ...extra });
  const reference = await endpoint('honest', { url: honest.url, ws_url: honest.wsUrl });
  const modes: { name: string; config: Json }[] = [
    { name: 'http value-dense', config: { targets: [{ endpoint_id: await endpoint('dense', { url: dense.url }) }], workload: workload() } },
    { name: 'http value-dense batch', config: { targets: [{ endpoint_id: await endpoint('dense batch', { url: dense.url }) }], workload: workload({ batch_size: 5 }) } },
    { name: 'http 4 MB eth_blockNumber', config: { targets: [{ endpoint_id: await endpoint('huge hex', { url: hugeHex.url }) }], workload: workload({ methods: [{ method: 'eth_blockNumber', params: [] }] }) } },
    { name: 'ws value-dense result', config: { targets: [{ endpoint_id: await endpoint('ws dense', { url: wsDense.url, ws_url: wsDense.wsUrl }) }], workload: workload({ transport: 'ws' }) } },
    { name: 'ws value-dense unmatched', config: { targets: [{ endpoint_id: await endpoint('ws unmatched', { url: wsUnmatched.url, ws_url: wsUnmatched.wsUrl }) }], workload: workload({ transport: 'ws' }) } },
    {
      name: 'ws early notification flood',
      config: {
        targets: [{ endpoint_id: await endpoint('ws flood', { url: wsFlood.url, ws_url: wsFlood.wsUrl }) }],
        reference_endpoint_id: reference,
        workload: workload({ methods: [{ method: 'eth_blockNumber', params: [] }], requests_per_target: 5, concurrency: 1 }),
        freshness: { duration_s: 8, grace_ms: 1_500 },
      },
    },
    { name: 'ws zero-length continuations', config: { targets: [{ endpoint_id: await endpoint('ws zero', { url: wsZero.url, ws_url: wsZero.wsUrl }) }], workload: workload({ transport: 'ws' }) } },
  ];
  const suites: string[] = [];
  for (const mode of modes) {
    suites.push((await stack.call<{ id: string }>('POST', '/v1/suites', { chain_id: chain.id, name: mode.name, config: { retry: { max_attempts: 2, initial_interval_ms: 200 }, ...mode.config } })).id);
  }

  const tally = modes.map(() => ({ runs: 0, terminal: 0, statuses: new Map<string, number>() }));
  const startedAt = Date.now();
  let i = 0;
  while (Date.now() - startedAt < DURATION_MS && !aborted() && deaths === 0) {
    const m = i++ % modes.length;
    const run = await stack.call<{ id: string }>('POST', `/v1/suites/${suites[m]}/runs`);
    tally[m]!.runs++;
    const deadline = Date.now() + RUN_BOUND_MS;
    let status = 'running';
    while (Date.now() < deadline && deaths === 0) {
      status = (await stack.call<Json>('GET', `/v1/runs/${run.id}`)).status as string;
      if (['success', 'failed', 'cancelled'].includes(status)) break;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    if (['success', 'failed', 'cancelled'].includes(status)) tally[m]!.terminal++;
    tally[m]!.statuses.set(status, (tally[m]!.statuses.get(status) ?? 0) + 1);
    console.log(`${fmt((Date.now() - startedAt) / 1000)} s  ${modes[m]!.name}: ${status}  (max RSS ${fmt(maxRssKb / 1024, 1)} MiB)`);
  }

  console.log(
    table(
      ['mode', 'runs', 'terminal on their own', 'statuses'],
      modes.map((mode, m) => [mode.name, String(tally[m]!.runs), String(tally[m]!.terminal), [...tally[m]!.statuses].map(([s, n]) => `${s} ${n}`).join(', ')]),
    ),
  );
  const runs = tally.reduce((sum, t) => sum + t.runs, 0);
  const terminal = tally.reduce((sum, t) => sum + t.terminal, 0);
  console.log(`duration ${fmt((Date.now() - startedAt) / 1000)} s; worker pid ${pid}; worker deaths ${deaths}; max RSS ${fmt(maxRssKb / 1024, 1)} MiB; runs ${runs}, terminal on their own ${terminal}${terminal === runs ? ' (all)' : ''}`);
  if (deaths > 0 || terminal !== runs) process.exitCode = 1;
});
