/**
 * One probing process for npm run bench:sweep: the engine a worker's sweep step runs (probeRange
 * open loop over createJsonRpcClient, with a sweep's pool and in-flight cap) in a process of its
 * own. Told over IPC { url, rate, warmupS, measureS }, it probes that long at that rate and
 * answers with its send-lag percentiles and achieved rate over the measured part (warm-up left out).
 */
import { CHAINS } from '../src/chains/registry';
import { createPlanner } from '../src/domain/workload';
import { createJsonRpcClient, type JsonRpcClient } from '../src/probe/json-rpc-client';
import { probeRange, type ProbedCall } from '../src/probe/probe-range';

export interface ProberTrial {
  url: string;
  rate: number;
  warmupS: number;
  measureS: number;
}

export interface ProberResult {
  calls: number;
  failed: number;
  achievedRps: number;
  lagP50Us: number;
  lagP99Us: number;
  lagMaxUs: number;
}

const SWEEP_CONNECTIONS = 256; // activities/probe-sweep-step.ts
const SWEEP_IN_FLIGHT_CONCURRENCY = 256;
const plan = createPlanner({ methods: [{ method: 'eth_blockNumber', params: [], weight: 1 }] }, 42, null, CHAINS.evm.renderPinned);
let client: JsonRpcClient | null = null;

async function trial(t: ProberTrial): Promise<ProberResult> {
  client ??= createJsonRpcClient({ url: t.url, headers: {}, timeoutMs: 5_000 }, { connections: SWEEP_CONNECTIONS, allowPrivateTargets: true, answers: CHAINS.evm, fingerprintResults: false });
  const warmupCalls = Math.ceil(t.rate * t.warmupS);
  const total = warmupCalls + Math.ceil(t.rate * t.measureS);
  const measured: ProbedCall[] = [];
  await probeRange({
    client,
    plan,
    from: 0,
    to: total,
    concurrency: SWEEP_IN_FLIGHT_CONCURRENCY,
    ratePerSecond: t.rate,
    batchCalls: 1_000,
    onBatch: (results) => {
      for (const r of results) if (r.seq >= warmupCalls) measured.push(r);
    },
  });
  const lags = Float64Array.from(measured.map((r) => r.sendLagUs ?? 0)).sort();
  const at = (f: number) => lags[Math.min(lags.length - 1, Math.max(0, Math.ceil(f * lags.length) - 1))] ?? Number.NaN;
  const sent = measured.map((r) => r.startedAt.getTime() + Math.max(0, (r.sendLagUs ?? 0) / 1000)).sort((a, b) => a - b);
  const spanS = sent.length > 1 ? (sent[sent.length - 1]! - sent[0]!) / 1000 : Number.NaN;
  return {
    calls: measured.length,
    failed: measured.filter((r) => r.outcome !== 'ok').length,
    achievedRps: (measured.length - 1) / spanS,
    lagP50Us: at(0.5),
    lagP99Us: at(0.99),
    lagMaxUs: lags[lags.length - 1] ?? Number.NaN,
  };
}

process.on('message', (message: ProberTrial | { exit: true }) => {
  if ('exit' in message) {
    void client?.close().finally(() => process.exit(0));
    return;
  }
  void trial(message).then((result) => process.send!(result));
});
process.on('disconnect', () => process.exit(0));
process.send!({ ready: true });
