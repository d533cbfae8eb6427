/**
 * The sending loop of bench/sweep-lag.ts's thread modes in a worker thread of its own: a sweep
 * step's open loop (probeRange over the sweep's pool and in-flight cap) whose batches are posted
 * to the main thread, which builds the sample rows and writes them. Told its range in workerData.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { CHAINS } from '../src/chains/registry';
import { createPlanner } from '../src/domain/workload';
import { createJsonRpcClient } from '../src/probe/json-rpc-client';
import { performanceTimeAt, probeRange } from '../src/probe/probe-range';

const { url, rate, from, to, anchorEpochMs } = workerData as { url: string; rate: number; from: number; to: number; anchorEpochMs: number };
const plan = createPlanner({ methods: [{ method: 'eth_blockNumber', params: [], weight: 1 }] }, 42, null, CHAINS.evm.renderPinned);

async function main(): Promise<void> {
  const client = createJsonRpcClient({ url, headers: {}, timeoutMs: 5_000 }, { connections: 256, allowPrivateTargets: true, answers: CHAINS.evm, fingerprintResults: false });
  await probeRange({
    client,
    plan,
    from,
    to,
    concurrency: 256,
    ratePerSecond: rate,
    // The threads' performance clocks differ: the anchor crosses as a wall-clock instant.
    scheduleOriginMs: performanceTimeAt(anchorEpochMs) - from * (1000 / rate),
    batchCalls: 1_000,
    batchMaxMs: 1_000,
    onBatch: (results, fromSeq, toSeq) => parentPort!.postMessage({ results, fromSeq, toSeq }),
  });
  await client.close();
  parentPort!.postMessage({ done: true });
}

void main();
