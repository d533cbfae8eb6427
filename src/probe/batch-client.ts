import { accepted, batchLimitOf, emptyBatchLimitState, nextProbeSize, refused, sameRefusal, type BatchRefusal } from '../domain/batch-limit';
import type { SampleOutcome } from '../domain/sample-outcome';
import type { PlannedCall } from '../domain/workload';
import { WORKLOAD_LIMITS } from '../domain/suite-config';
import { classifyBatchElement, INVALID_REASONS, REQUEST_VERSION, shapeRefusal, type AnswerRules, type Classified, type InvalidReason } from './classify-response';
import { ANSWER_SHAPE_CAPS } from './json-shape-budget';
import { answeredResult, callTiming, latencyStartMs, type CallResult } from './call-accounting';
import type { HttpJsonRpcClient, JsonRpcClient, PostAnswer } from './json-rpc-client';

interface Member {
  planned: PlannedCall;
  intendedStartMs: number | undefined;
  resolve: (result: CallResult) => void;
  reject: (error: unknown) => void;
}

/**
 * Sends calls made together as JSON-RPC 2.0 batches over one HTTP client: the calls made in the
 * same turn of the event loop (up to `batchSize`) go out as one array. Every call still settles as
 * its own CallResult: its outcome from the element whose id is its seq (elements in any order; a
 * duplicate is ignored, a missing one is invalid_response), its latency the batch's. A batch refused
 * as a whole (an HTTP error such as 413, a single error object such as -32600 "batch too large", a
 * non-array answer; geth's one-element array holding -32600 "batch too large") gives every member
 * that outcome. The answer is bounded as a single call's is (size cap and response budget in the
 * HTTP client, depth and value caps per result).
 *
 * A batch refused for its size (domain/batch-limit.ts) also starts a search for the endpoint's
 * limit, once per client: a bisection between the largest size answered and the smallest refused,
 * with at most MAX_PROBES extra batch requests made of the refused batch's own calls (negative ids;
 * they are not samples). `batchLimit()` waits for it and says what was found.
 */
export function createBatchClient(
  http: HttpJsonRpcClient,
  options: { batchSize: number; answers: AnswerRules; fingerprintResults?: boolean },
): JsonRpcClient & Required<Pick<JsonRpcClient, 'batchLimit'>> {
  const batchSize = Math.max(1, Math.min(WORKLOAD_LIMITS.maxBatchSize, Math.floor(options.batchSize)));
  const jsonrpc = REQUEST_VERSION['json-rpc-2.0'];
  const fingerprint = options.fingerprintResults !== false;
  let pending: Member[] = [];
  let scheduled: NodeJS.Immediate | null = null;
  let limits = emptyBatchLimitState();
  let searching: Promise<void> | null = null;

  /** What one answer says about the batch size: answered as a batch, refused as a whole (and how), or nothing. */
  const learn = (size: number, read: ReadBatch, status: number): BatchRefusal | null => {
    if ('elements' in read) {
      limits = accepted(limits, size);
      return null;
    }
    const { outcome, rpcErrorCode, reason } = read.whole;
    // A body that is not JSON at all is garbage, not a refusal; a JSON object instead of an array is one.
    if (outcome === 'invalid_response' && reason !== INVALID_REASONS.notJsonRpc) return null;
    if (outcome !== 'rpc_error' && outcome !== 'http_error' && outcome !== 'invalid_response') return null;
    const refusal: BatchRefusal = { outcome, rpc_error_code: rpcErrorCode, http_status: status };
    limits = refused(limits, size, refusal);
    return refusal;
  };

  /** Bisects between the largest size answered and the smallest refused, with the refused batch's calls. */
  async function searchLimit(template: readonly PlannedCall[]): Promise<void> {
    for (let size = nextProbeSize(limits); size !== null; size = nextProbeSize(limits)) {
      limits = { ...limits, probes: limits.probes + 1 };
      const body = JSON.stringify(
        Array.from({ length: size }, (_, i) => {
          const planned = template[i % template.length]!;
          return { jsonrpc, id: -1 - i, method: planned.method, params: planned.params };
        }),
      );
      let answer: PostAnswer;
      try {
        answer = await http.post(body);
      } catch {
        return;
      }
      // A timeout, a dropped connection or another kind of refusal says nothing about the size: stop there.
      if (!('status' in answer)) return;
      const first = limits.refusedWith;
      const refusal = learn(size, readWhole(options.answers, answer.status, answer.text, size), answer.status);
      if (refusal !== null && (first === null || !sameRefusal(first, refusal))) return;
    }
  }

  const flush = (): void => {
    if (scheduled !== null) clearImmediate(scheduled);
    scheduled = null;
    const members = pending;
    pending = [];
    if (members.length > 0) void send(members);
  };

  async function send(members: Member[]): Promise<void> {
    // The batch's latency counts from its earliest member's start (open loop: its intended instant).
    const now = performance.now();
    let startMs = now;
    for (const m of members) startMs = Math.min(startMs, latencyStartMs(m.intendedStartMs, now));
    const body = JSON.stringify(members.map((m) => ({ jsonrpc, id: m.planned.seq, method: m.planned.method, params: m.planned.params })));
    let answer: PostAnswer;
    try {
      answer = await http.post(body);
    } catch (error) {
      for (const m of members) m.reject(error);
      return;
    }
    const timing = callTiming(startMs, 'pausedMs' in answer ? answer.pausedMs : 0);
    const settle = (m: Member, c: Classified, httpStatus: number | null) => m.resolve(answeredResult(m.planned, timing, c, httpStatus));
    try {
      if (!('status' in answer)) {
        for (const m of members) settle(m, whole(answer.outcome, answer.reason), null);
        return;
      }
      const { status } = answer;
      const read = readWhole(options.answers, status, answer.text, members.length);
      if (learn(members.length, read, status) !== null && searching === null && nextProbeSize(limits) !== null) {
        const template = members.map((m) => m.planned);
        searching = searchLimit(template).catch(() => undefined);
      }
      if ('whole' in read) {
        for (const m of members) settle(m, read.whole, status);
        return;
      }
      const bySeq = new Map(members.map((m) => [m.planned.seq, m]));
      for (const element of read.elements) {
        const id = (element as { id?: unknown } | null)?.id;
        const member = typeof id === 'number' ? bySeq.get(id) : undefined;
        // Unknown ids and duplicates (the member already settled) are ignored.
        if (member === undefined) continue;
        bySeq.delete(id as number);
        settle(member, classifyBatchElement(options.answers, element, fingerprint ? member.planned.method : null), status);
      }
      for (const member of bySeq.values()) settle(member, whole('invalid_response', INVALID_REASONS.notInBatch), status);
    } catch {
      // Defence in depth: a member settles once, so this only reaches the ones still waiting.
      for (const m of members) settle(m, whole('invalid_response', INVALID_REASONS.unexpected), null);
    }
  }

  return {
    call(planned, intendedStartMs) {
      return new Promise((resolve, reject) => {
        pending.push({ planned, intendedStartMs, resolve, reject });
        if (pending.length >= batchSize) flush();
        // Calls made in the same turn (a closed loop's callers, an open loop's batch) join one batch.
        else scheduled ??= setImmediate(flush);
      });
    },
    result: (method, params) => http.result(method, params),
    async batchLimit() {
      await searching;
      return batchLimitOf(limits);
    },
    async close() {
      flush();
      await searching;
      await http.close();
    },
  };
}

const whole = (outcome: SampleOutcome, reason: InvalidReason | null): Classified => ({ outcome, rpcErrorCode: null, responseHash: null, reason });

type ReadBatch = { elements: unknown[] } | { whole: Classified };

const errorOf = (message: unknown): unknown => (message !== null && typeof message === 'object' ? (message as { error?: unknown }).error : undefined);
const codeOf = (error: unknown): unknown => (error !== null && typeof error === 'object' ? (error as { code?: unknown }).code : undefined);

/**
 * The answer to a batch of `size` calls as an array of elements, or what every member of a batch
 * refused as a whole gets: an HTTP error, an answer that is not JSON or not an array, a single
 * error object (e.g. -32600), or — geth's way — an array of one -32600 "Invalid Request" error for
 * a batch of several calls (geth puts the first call's id on it: "the protocol doesn't have a way
 * of reporting an error for the entire batch", rpc/handler.go respondWithBatchTooLarge).
 */
function readWhole(rules: AnswerRules, status: number, text: string, size: number): ReadBatch {
  if (status < 200 || status > 299) return { whole: whole('http_error', null) };
  // Bounded before it is parsed: the byte cap alone lets 8 MiB of `[{},…]` take 200 MB of heap.
  // Nesting is left to each element's own check (an element too deep fails that call alone): it
  // costs JSON.parse no stack, and the token cap bounds its memory.
  const refusal = shapeRefusal(text, BATCH_SHAPE_CAPS);
  if (refusal !== null) return { whole: whole('invalid_response', refusal) };
  let message: unknown;
  try {
    // V8's JSON.parse is iterative: any nesting depth parses without growing the stack.
    message = JSON.parse(text);
  } catch {
    return { whole: whole('invalid_response', INVALID_REASONS.notJson) };
  }
  if (Array.isArray(message)) {
    const error = message.length === 1 && size > 1 ? errorOf(message[0]) : undefined;
    if (error !== undefined && error !== null && codeOf(error) === INVALID_REQUEST) return { whole: classifyBatchElement(rules, { error }, null) };
    return { elements: message };
  }
  const error = errorOf(message);
  // A single error object (e.g. -32600 "batch too large") refuses the whole batch.
  if (error !== undefined && error !== null) return { whole: classifyBatchElement(rules, { error }, null) };
  return { whole: whole('invalid_response', INVALID_REASONS.notJsonRpc) };
}

const BATCH_SHAPE_CAPS = { ...ANSWER_SHAPE_CAPS, maxNesting: Number.POSITIVE_INFINITY };

/** JSON-RPC 2.0's "Invalid Request": what a batch refused as a whole is answered with. */
const INVALID_REQUEST = -32600;
