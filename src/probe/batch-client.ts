import type { SampleOutcome } from '../domain/sample-outcome';
import type { PlannedCall } from '../domain/workload';
import { WORKLOAD_LIMITS } from '../domain/suite-config';
import { classifyBatchElement, INVALID_REASONS, REQUEST_VERSION, type AnswerRules, type Classified, type InvalidReason } from './classify-response';
import type { CallResult, HttpJsonRpcClient, JsonRpcClient, PostAnswer } from './json-rpc-client';


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
 * non-array answer) gives every member that outcome. The answer is bounded as a single call's is
 * (size cap and response budget in the HTTP client, depth and value caps per result).
 */
export function createBatchClient(
  http: HttpJsonRpcClient,
  options: { batchSize: number; answers: AnswerRules; fingerprintResults?: boolean },
): JsonRpcClient {
  const batchSize = Math.max(1, Math.min(WORKLOAD_LIMITS.maxBatchSize, Math.floor(options.batchSize)));
  const jsonrpc = REQUEST_VERSION['json-rpc-2.0'];
  const fingerprint = options.fingerprintResults !== false;
  let pending: Member[] = [];
  let scheduled: NodeJS.Immediate | null = null;

  const flush = (): void => {
    if (scheduled !== null) clearImmediate(scheduled);
    scheduled = null;
    const members = pending;
    pending = [];
    if (members.length > 0) void send(members);
  };

  async function send(members: Member[]): Promise<void> {
    const now = performance.now();
    // The batch's latency counts from its earliest member's intended instant (open loop), else from now.
    let startMs = now;
    for (const m of members) if (m.intendedStartMs !== undefined && m.intendedStartMs < startMs) startMs = m.intendedStartMs;
    const body = JSON.stringify(members.map((m) => ({ jsonrpc, id: m.planned.seq, method: m.planned.method, params: m.planned.params })));
    let answer: PostAnswer;
    try {
      answer = await http.post(body);
    } catch (error) {
      for (const m of members) m.reject(error);
      return;
    }
    const endMs = performance.now();
    const pausedMs = 'pausedMs' in answer ? answer.pausedMs : 0;
    const latencyUs = Math.round((endMs - startMs - pausedMs) * 1000);
    const startedAt = new Date(Date.now() - (endMs - startMs));
    const settle = (m: Member, c: Classified, httpStatus: number | null) =>
      m.resolve({
        seq: m.planned.seq,
        method: m.planned.method,
        startedAt,
        latencyUs,
        outcome: c.outcome,
        httpStatus,
        rpcErrorCode: c.rpcErrorCode,
        responseHash: c.responseHash,
        contextSlot: c.contextSlot ?? null,
        reason: c.reason,
      });
    try {
      if (!('status' in answer)) {
        for (const m of members) settle(m, whole(answer.outcome, answer.reason), null);
        return;
      }
      const { status } = answer;
      const wholeBatch = readWhole(options.answers, status, answer.text);
      if (!Array.isArray(wholeBatch)) {
        for (const m of members) settle(m, wholeBatch, status);
        return;
      }
      const bySeq = new Map(members.map((m) => [m.planned.seq, m]));
      for (const element of wholeBatch) {
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
    async close() {
      flush();
      await http.close();
    },
  };
}

const whole = (outcome: SampleOutcome, reason: InvalidReason | null): Classified => ({ outcome, rpcErrorCode: null, responseHash: null, reason });

/** The answer as an array of elements, or what every member of a batch refused as a whole gets. */
function readWhole(rules: AnswerRules, status: number, text: string): unknown[] | Classified {
  if (status < 200 || status > 299) return whole('http_error', null);
  let message: unknown;
  try {
    // V8's JSON.parse is iterative: any nesting depth parses without growing the stack.
    message = JSON.parse(text);
  } catch {
    return whole('invalid_response', INVALID_REASONS.notJson);
  }
  if (Array.isArray(message)) return message;
  const error = message !== null && typeof message === 'object' ? (message as { error?: unknown }).error : undefined;
  // A single error object (e.g. -32600 "batch too large") refuses the whole batch.
  if (error !== undefined && error !== null) return classifyBatchElement(rules, { error }, null);
  return whole('invalid_response', INVALID_REASONS.notJsonRpc);
}
