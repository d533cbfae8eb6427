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

async function resultOf(client: JsonRpcClient | null, call: RecheckCall): Promise<{ result: unknown } | null> {
  if (client === null) return null;
  try {
    return { result: await client.result(call.method, call.params) };
  } catch {
    // A failed call (timeout, HTTP or JSON-RPC error) or a refused address: this side has no answer.
    return null;
  }
}

/**
 * Like recheck, but with both answers in hand for `judge` (a history list: whether the shorter
 * answer is a strict prefix of the longer needs both). A side that failed → `failed`, as in
 * recheck. Never throws.
 */
export async function recheckAnswers(call: RecheckCall, judge: (candidate: unknown, reference: unknown) => RecheckAnswer): Promise<RecheckAnswer> {
  if (call.candidate === null || call.reference === null) return { outcome: 'failed', candidateHash: null, referenceHash: null };
  const [candidate, reference] = await Promise.all([resultOf(call.candidate, call), resultOf(call.reference, call)]);
  if (candidate === null || reference === null) return { outcome: 'failed', candidateHash: null, referenceHash: null };
  return judge(candidate.result, reference.result);
}

/** recheckAnswers() for every call with its judge, at most `concurrency` at once, none started after `deadlineMs`. */
export const recheckAllAnswers = (
  calls: readonly (RecheckCall & { judge: (candidate: unknown, reference: unknown) => RecheckAnswer })[],
  concurrency: number,
  deadlineMs = Number.POSITIVE_INFINITY,
) => askAll(calls, (call) => recheckAnswers(call, call.judge), concurrency, deadlineMs);

/**
 * `ask` for every call, at most `concurrency` at once; answers in the order of `calls`. No call
 * is started after `deadlineMs` (Date.now() time): those answers are undefined.
 */
async function askAll<C>(
  calls: readonly C[],
  ask: (call: C) => Promise<RecheckAnswer>,
  concurrency: number,
  deadlineMs: number,
): Promise<(RecheckAnswer | undefined)[]> {
  const answers: (RecheckAnswer | undefined)[] = new Array(calls.length).fill(undefined);
  let next = 0;
  const worker = async () => {
    while (next < calls.length && Date.now() < deadlineMs) {
      const index = next++;
      answers[index] = await ask(calls[index]!);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, calls.length)) }, worker));
  return answers;
}

/** recheck() for every call, at most `concurrency` at once, none started after `deadlineMs` (askAll). */
export const recheckAll = (calls: readonly RecheckCall[], concurrency: number, deadlineMs = Number.POSITIVE_INFINITY) =>
  askAll(calls, recheck, concurrency, deadlineMs);

/** One pair answered at different context slots, to re-ask until both sides answer at one slot. */
export interface SlotRecheckCall {
  seq: number;
  method: string;
  /** The higher of the two answers' context slots. */
  slot: number;
  /** The params asking for an answer at or above `slot` (minContextSlot), or the call's own params when it takes none. */
  paramsAt(slot: number): unknown[];
  candidate: JsonRpcClient | null;
  reference: JsonRpcClient | null;
}

/** Bounds of one pair's re-ask: requests per side, and how long a side behind the slot is waited for between asks. */
export const SLOT_RECHECK = { maxAsksPerSide: 25, behindWaitMs: 100 } as const;

type SlotAnswer = { kind: 'answer'; slot: number; hash: string } | { kind: 'behind' } | { kind: 'failed' };

async function askAtSlot(client: JsonRpcClient, call: SlotRecheckCall, slot: number): Promise<SlotAnswer> {
  try {
    const result = await client.call({ seq: call.seq, method: call.method, params: call.paramsAt(slot) });
    if (result.outcome === 'behind') return { kind: 'behind' };
    if (result.outcome !== 'ok' || result.responseHash === null || result.answerContext === undefined || result.answerContext === null) return { kind: 'failed' };
    return { kind: 'answer', slot: result.answerContext, hash: result.responseHash };
  } catch {
    return { kind: 'failed' };
  }
}

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Re-asks a pair answered at different context slots until both sides answer at one slot, then
 * compares the two answers there: equal → `resolved`, different → `confirmed`. Both sides are
 * asked with minContextSlot = the higher slot; the side whose answer is at a lower slot is asked
 * again with the other's slot (waiting SLOT_RECHECK.behindWaitMs while it answers -32016, the
 * node behind), keeping the answer of the side ahead. A side that overshoots becomes the one
 * ahead and the other is asked again. Bounded by SLOT_RECHECK.maxAsksPerSide asks per side:
 * never at one slot within it → `not_comparable`; a side failing (timeout, error, an answer
 * without a context slot) → `failed`. Never throws.
 */
export async function recheckAtOneSlot(call: SlotRecheckCall): Promise<RecheckAnswer> {
  const sides = [call.candidate, call.reference];
  if (sides[0] === null || sides[1] === null) return { outcome: 'failed', candidateHash: null, referenceHash: null };
  const clients = sides as [JsonRpcClient, JsonRpcClient];
  const asks: [number, number] = [0, 0];
  const held: [SlotAnswer | null, SlotAnswer | null] = [null, null];
  const ask = async (side: 0 | 1, slot: number): Promise<SlotAnswer> => {
    asks[side]++;
    return askAtSlot(clients[side], call, slot);
  };
  let target = call.slot;
  [held[0], held[1]] = await Promise.all([ask(0, target), ask(1, target)]);
  for (;;) {
    const [a, b] = held;
    if (a!.kind === 'failed' || b!.kind === 'failed') {
      return { outcome: 'failed', candidateHash: a!.kind === 'answer' ? a!.hash : null, referenceHash: b!.kind === 'answer' ? b!.hash : null };
    }
    if (a!.kind === 'answer' && b!.kind === 'answer' && a!.slot === b!.slot) {
      return { outcome: a!.hash === b!.hash ? 'resolved' : 'confirmed', candidateHash: a!.hash, referenceHash: b!.hash };
    }
    // The side to ask again: one behind the target, else the one answering at the lower slot.
    const slots = held.map((h) => (h!.kind === 'answer' ? h!.slot : -1));
    target = Math.max(target, ...slots);
    const lagging: 0 | 1 = slots[0]! < slots[1]! ? 0 : 1;
    if (asks[lagging] >= SLOT_RECHECK.maxAsksPerSide) {
      return { outcome: 'not_comparable', candidateHash: a!.kind === 'answer' ? a!.hash : null, referenceHash: b!.kind === 'answer' ? b!.hash : null };
    }
    if (held[lagging]!.kind === 'behind') await pause(SLOT_RECHECK.behindWaitMs);
    held[lagging] = await ask(lagging, target);
  }
}

/** recheckAtOneSlot() for every call, at most `concurrency` at once, none started after `deadlineMs` (askAll). */
export const recheckAllAtOneSlot = (calls: readonly SlotRecheckCall[], concurrency: number, deadlineMs = Number.POSITIVE_INFINITY) =>
  askAll(calls, recheckAtOneSlot, concurrency, deadlineMs);
