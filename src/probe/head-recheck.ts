import type { RecheckOutcome } from '../domain/correctness';
import type { JsonRpcClient } from './json-rpc-client';

/** One head-moved difference to re-send: the same call to both sides, its block pinned. */
export interface RecheckCall {
  seq: number;
  method: string;
  /** The request's params with the head tag replaced by a fixed block (pinHeadDependentParams). */
  params: unknown[];
  /** Null when the side could not be opened (e.g. its address is now refused): the re-check fails. */
  candidate: JsonRpcClient | null;
  reference: JsonRpcClient | null;
}

export interface RecheckAnswer {
  outcome: RecheckOutcome;
  candidateHash: string | null;
  referenceHash: string | null;
}

async function fingerprintOf(client: JsonRpcClient | null, call: RecheckCall): Promise<string | null> {
  if (client === null) return null;
  try {
    const result = await client.call({ seq: call.seq, method: call.method, params: call.params });
    return result.outcome === 'ok' ? result.responseHash : null;
  } catch {
    // Only a refused address is thrown (before anything is sent): this side has no answer.
    return null;
  }
}

/**
 * Sends the call to both sides at the same time and compares the fingerprints of their answers
 * (the probe client's, so normalised as the probes' were): equal → `resolved`, different →
 * `confirmed`; a side that failed (timeout, HTTP or JSON-RPC error, refused, an answer too deep
 * to fingerprint) → `failed`, and a side without a client fails it before anything is sent.
 * Never throws: the far side's failures are data.
 */
export async function recheck(call: RecheckCall): Promise<RecheckAnswer> {
  if (call.candidate === null || call.reference === null) return { outcome: 'failed', candidateHash: null, referenceHash: null };
  const [candidateHash, referenceHash] = await Promise.all([fingerprintOf(call.candidate, call), fingerprintOf(call.reference, call)]);
  if (candidateHash === null || referenceHash === null) return { outcome: 'failed', candidateHash, referenceHash };
  return { outcome: candidateHash === referenceHash ? 'resolved' : 'confirmed', candidateHash, referenceHash };
}

/**
 * recheck() for every call, at most `concurrency` at once; answers in the order of `calls`. No
 * call is started after `deadlineMs` (Date.now() time): those answers are undefined.
 */
export async function recheckAll(
  calls: readonly RecheckCall[],
  concurrency: number,
  deadlineMs = Number.POSITIVE_INFINITY,
): Promise<(RecheckAnswer | undefined)[]> {
  const answers: (RecheckAnswer | undefined)[] = new Array(calls.length).fill(undefined);
  let next = 0;
  const worker = async () => {
    while (next < calls.length && Date.now() < deadlineMs) {
      const index = next++;
      answers[index] = await recheck(calls[index]!);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, calls.length)) }, worker));
  return answers;
}
