import type { SampleOutcome } from '../domain/sample-outcome';
import { jsonShape, MAX_RESULT_DEPTH, MAX_RESULT_VALUES } from '../domain/canonical-json';
import { fingerprint } from '../domain/correctness';

/**
 * Why an answer was not a usable JSON-RPC response: short fixed texts, never bytes of the answer
 * (which may be anything an endpoint chooses to send, secrets of other systems included).
 */
export const INVALID_REASONS = {
  notJson: 'body is not JSON',
  notJsonRpc: 'not a JSON-RPC 2.0 response object',
  tooDeep: `result nested deeper than ${MAX_RESULT_DEPTH} levels`,
  tooManyValues: `result holds more than ${MAX_RESULT_VALUES.toLocaleString('en-US')} values`,
  tooLarge: 'response larger than the size cap',
  badHttp: 'malformed HTTP response',
  unexpected: 'response could not be classified',
} as const;
export type InvalidReason = (typeof INVALID_REASONS)[keyof typeof INVALID_REASONS];

export interface Classified {
  outcome: SampleOutcome;
  rpcErrorCode: number | null;
  responseHash: string | null;
  /** Set for invalid_response only. */
  reason: InvalidReason | null;
}

const invalid = (reason: InvalidReason): Classified => ({ outcome: 'invalid_response', rpcErrorCode: null, responseHash: null, reason });

/**
 * Pure: turns an HTTP status and body into a sample outcome. A 200 carrying a JSON-RPC error
 * is a failed call (rpc_error), never a success. The response hash of a success is the
 * JSON-RPC-aware fingerprint of the result for `method` (quantities by value, key order and
 * log order ignored, …), so equal hashes of a candidate and a reference sample mean matching
 * answers for the correctness check. With `method` null no fingerprint is computed (a run
 * that compares nothing does not pay for hashing every answer).
 *
 * Never throws, whatever the body: it runs inside a socket handler, where an exception would
 * take the worker down (DESIGN §7). A result nested deeper than MAX_RESULT_DEPTH is
 * invalid_response whether or not it is fingerprinted, so the outcome does not depend on the
 * run's correctness setting.
 */
export function classifyResponse(status: number, body: string, method: string | null): Classified {
  try {
    return classify(status, body, method);
  } catch {
    // Defence in depth: nothing above is expected to throw on any input.
    return invalid(INVALID_REASONS.unexpected);
  }
}

function classify(status: number, body: string, method: string | null): Classified {
  if (status < 200 || status > 299) return { outcome: 'http_error', rpcErrorCode: null, responseHash: null, reason: null };
  let parsed: unknown;
  try {
    // V8's JSON.parse is iterative: any nesting depth parses without growing the stack.
    parsed = JSON.parse(body);
  } catch {
    return invalid(INVALID_REASONS.notJson);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return invalid(INVALID_REASONS.notJsonRpc);
  const message = parsed as Record<string, unknown>;
  if ('error' in message && message.error !== null && message.error !== undefined) {
    const code = (message.error as { code?: unknown }).code;
    return {
      outcome: 'rpc_error',
      rpcErrorCode: typeof code === 'number' && Number.isInteger(code) ? code : null,
      responseHash: null,
      reason: null,
    };
  }
  if (message.jsonrpc !== '2.0' || !('result' in message)) return invalid(INVALID_REASONS.notJsonRpc);
  const shape = jsonShape(message.result, MAX_RESULT_DEPTH, MAX_RESULT_VALUES);
  if (shape === 'too_deep') return invalid(INVALID_REASONS.tooDeep);
  if (shape === 'too_many_values') return invalid(INVALID_REASONS.tooManyValues);
  return {
    outcome: 'ok',
    rpcErrorCode: null,
    responseHash: method === null ? null : fingerprint(method, message.result),
    reason: null,
  };
}
