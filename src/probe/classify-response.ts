import { RPC_ERROR_REASONS, type RpcErrorReason, type SampleOutcome } from '../domain/sample-outcome';
import { jsonShape, MAX_RESULT_DEPTH, MAX_RESULT_VALUES } from '../domain/canonical-json';
import { fingerprintWith } from '../domain/correctness';
import { scalarAnswer } from '../domain/answer-diff';
import type { AnswerEnvelope, ChainAdapter } from '../chains/types';
import { ANSWER_SHAPE_CAPS, MAX_ANSWER_TOKENS, scanJsonShape, type JsonShapeCaps } from './json-shape-budget';

/** What classification needs of a chain family: its envelope and its comparison rules. */
export type AnswerRules = Pick<ChainAdapter, 'envelope' | 'normalize' | 'rpcErrorOutcome' | 'comparison'>;

/**
 * Why an answer was not a usable JSON-RPC response: short fixed texts, never bytes of the answer
 * (which may be anything an endpoint chooses to send, secrets of other systems included).
 */
export const INVALID_REASONS = {
  notJson: 'body is not JSON',
  notJsonRpc: 'not a JSON-RPC 2.0 response object',
  notJsonRpc1: 'not a JSON-RPC 1.0 response object',
  tooDeep: `result nested deeper than ${MAX_RESULT_DEPTH} levels`,
  tooManyValues: `result holds more than ${MAX_RESULT_VALUES.toLocaleString('en-US')} values`,
  tooLarge: 'response larger than the size cap',
  tooDense: `response holds more than ${MAX_ANSWER_TOKENS.toLocaleString('en-US')} JSON values and keys (the parse cap)`,
  badHttp: 'malformed HTTP response',
  unexpected: 'response could not be classified',
  notInBatch: 'no answer for this call in the batch answer',
} as const;
export type InvalidReason = (typeof INVALID_REASONS)[keyof typeof INVALID_REASONS];

/** A sample's `reason`: a fixed text of the probe's, never bytes of the answer. */
export type SampleReason = InvalidReason | RpcErrorReason;

export interface Classified {
  outcome: SampleOutcome;
  rpcErrorCode: number | null;
  responseHash: string | null;
  /** Where an ok answer says it was read (AnswerRules.comparison.answerContext); absent or null: none. */
  answerContext?: number | null;
  /**
   * An ok answer whose result is a scalar (string, number, boolean, null): its value as shown
   * (scalarAnswer — bounded, URLs redacted), kept so a listed mismatch can show both values.
   */
  scalarAnswer?: string | null;
  /** invalid_response: why; rpc_error: RPC_ERROR_REASONS.historyDepth or null; else null. */
  reason: SampleReason | null;
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
export function classifyResponse(rules: AnswerRules, status: number, body: string, method: string | null): Classified {
  try {
    return ENVELOPES[rules.envelope](rules, status, body, method);
  } catch {
    // Defence in depth: nothing above is expected to throw on any input.
    return invalid(INVALID_REASONS.unexpected);
  }
}

/** The `jsonrpc` member a request carries under each envelope (Bitcoin Core reads "1.0" as legacy). */
export const REQUEST_VERSION: Readonly<Record<AnswerEnvelope, string>> = { 'json-rpc-2.0': '2.0', 'json-rpc-1.0': '1.0' };

const HTTP_ERROR: Classified = Object.freeze({ outcome: 'http_error', rpcErrorCode: null, responseHash: null, reason: null });

type Classify = (rules: AnswerRules, status: number, body: string, method: string | null) => Classified;

/** The answer envelope is the family's choice (ChainAdapter.envelope); each one is read here. */
const ENVELOPES: Record<AnswerEnvelope, Classify> = {
  'json-rpc-2.0': (rules, status, body, method) => {
    if (status < 200 || status > 299) return HTTP_ERROR;
    const message = parseBody(body);
    if (message === NOT_JSON) return invalid(INVALID_REASONS.notJson);
    if (message === TOO_DENSE || message === TOO_DEEP) return invalid(refusedShape(message));
    if (!isObject(message)) return invalid(INVALID_REASONS.notJsonRpc);
    if (hasError(message)) return rpcError(rules, message);
    if (message.jsonrpc !== '2.0' || !('result' in message)) return invalid(INVALID_REASONS.notJsonRpc);
    return ok(rules, message.result, method);
  },
  // Bitcoin Core before 28 (and its forks): every answer has result, error and id, and an RPC
  // error comes with HTTP 500 (or 404 for an unknown method), so those statuses are read too.
  'json-rpc-1.0': (rules, status, body, method) => {
    const errorStatus = status === 404 || status === 500;
    if ((status < 200 || status > 299) && !errorStatus) return HTTP_ERROR;
    const message = parseBody(body);
    if (message === TOO_DENSE || message === TOO_DEEP) return invalid(refusedShape(message));
    if (message === NOT_JSON || !isObject(message) || !('result' in message) || !('error' in message) || !('id' in message)) {
      if (errorStatus) return HTTP_ERROR;
      return invalid(message === NOT_JSON ? INVALID_REASONS.notJson : INVALID_REASONS.notJsonRpc1);
    }
    if (hasError(message)) return rpcError(rules, message);
    if (errorStatus) return HTTP_ERROR;
    return ok(rules, message.result, method);
  },
};

const NOT_JSON = Symbol('not JSON');
const TOO_DENSE = Symbol('too many JSON values');
const TOO_DEEP = Symbol('nested too deep');

const refusedShape = (shape: typeof TOO_DENSE | typeof TOO_DEEP): InvalidReason => (shape === TOO_DENSE ? INVALID_REASONS.tooDense : INVALID_REASONS.tooDeep);

/**
 * Why `text` must not be parsed (json-shape-budget.ts: too many values or nested too deep for the
 * parse cap), or null when it may be. For answers read outside classifyResponse (a batch answer).
 */
export function shapeRefusal(text: string, caps: JsonShapeCaps = ANSWER_SHAPE_CAPS): InvalidReason | null {
  const shape = scanJsonShape(text, caps);
  return shape === 'ok' ? null : shape === 'too_many_tokens' ? INVALID_REASONS.tooDense : INVALID_REASONS.tooDeep;
}

/**
 * The answer parsed, or why not: its shape is checked first (json-shape-budget.ts), so what
 * JSON.parse builds is bounded whatever the bytes.
 */
function parseBody(body: string): unknown {
  const shape = scanJsonShape(body);
  if (shape === 'too_many_tokens') return TOO_DENSE;
  if (shape === 'too_deep') return TOO_DEEP;
  try {
    // V8's JSON.parse is iterative: any nesting depth parses without growing the stack.
    return JSON.parse(body);
  } catch {
    return NOT_JSON;
  }
}

const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

const hasError = (message: Record<string, unknown>): boolean => 'error' in message && message.error !== null && message.error !== undefined;

function rpcError(rules: AnswerRules, message: Record<string, unknown>): Classified {
  const error = message.error as { code?: unknown; message?: unknown; data?: unknown };
  const code = error.code;
  const rpcErrorCode = typeof code === 'number' && Number.isInteger(code) ? code : null;
  const outcome = rules.rpcErrorOutcome({ code: rpcErrorCode, message: error.message, data: error.data });
  return outcome === 'history_depth'
    ? { outcome: 'rpc_error', rpcErrorCode, responseHash: null, reason: RPC_ERROR_REASONS.historyDepth }
    : { outcome, rpcErrorCode, responseHash: null, reason: null };
}

function ok(rules: AnswerRules, result: unknown, method: string | null): Classified {
  const shape = jsonShape(result, MAX_RESULT_DEPTH, MAX_RESULT_VALUES);
  if (shape === 'too_deep') return invalid(INVALID_REASONS.tooDeep);
  if (shape === 'too_many_values') return invalid(INVALID_REASONS.tooManyValues);
  const answerContext = rules.comparison.answerContext(result);
  return {
    outcome: 'ok',
    rpcErrorCode: null,
    responseHash: method === null ? null : fingerprintWith(rules.normalize, method, result),
    // Only an answer naming a context says one (the others' classification is unchanged).
    ...(answerContext === null ? {} : { answerContext }),
    scalarAnswer: scalarAnswer(result),
    reason: null,
  };
}

/**
 * One element of a JSON-RPC 2.0 batch answer (already parsed, its HTTP status 2xx), read as a
 * single answer is; never throws.
 */
export function classifyBatchElement(rules: AnswerRules, element: unknown, method: string | null): Classified {
  try {
    if (!isObject(element)) return invalid(INVALID_REASONS.notJsonRpc);
    if (hasError(element)) return rpcError(rules, element);
    if (element.jsonrpc !== '2.0' || !('result' in element)) return invalid(INVALID_REASONS.notJsonRpc);
    return ok(rules, element.result, method);
  } catch {
    return invalid(INVALID_REASONS.unexpected);
  }
}
