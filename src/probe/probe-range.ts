import type { CallResult, JsonRpcClient } from './json-rpc-client';
import type { PlannedCall } from './workload';

/**
 * Closed loop: `concurrency` callers each send their next request as soon as their last one
 * answered, until every sequence number in [from, to) has been sent or `signal` aborts.
 * Results come back ordered by seq.
 */
export async function probeRange(options: {
  client: JsonRpcClient;
  plan: (seq: number) => PlannedCall;
  from: number;
  to: number;
  concurrency: number;
  signal?: AbortSignal;
}): Promise<CallResult[]> {
  const { client, plan, from, to, signal } = options;
  const results: CallResult[] = new Array<CallResult>(Math.max(0, to - from));
  let next = from;
  const caller = async () => {
    while (next < to && !signal?.aborted) {
      const seq = next++;
      results[seq - from] = await client.call(plan(seq));
    }
  };
  await Promise.all(Array.from({ length: Math.min(options.concurrency, Math.max(1, to - from)) }, caller));
  return signal?.aborted ? results.filter(Boolean) : results;
}
