import type { SampleOutcome } from '../db/samples';
import { fingerprint } from '../domain/correctness';

export interface Classified {
  outcome: SampleOutcome;
  rpcErrorCode: number | null;
  responseHash: string | null;
}

/** Key-order-independent JSON, so equal results hash equally whatever the server's key order. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * Pure: turns an HTTP status and body into a sample outcome. A 200 carrying a JSON-RPC error
 * is a failed call (rpc_error), never a success. The response hash of a success is the
 * JSON-RPC-aware fingerprint of the result for `method` (quantities by value, key order and
 * log order ignored, …), so equal hashes of a candidate and a reference sample mean matching
 * answers for the correctness check. With `method` null no fingerprint is computed (a run
 * that compares nothing does not pay for hashing every answer).
 */
export function classifyResponse(status: number, body: string, method: string | null): Classified {
  if (status < 200 || status > 299) return { outcome: 'http_error', rpcErrorCode: null, responseHash: null };
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return { outcome: 'invalid_response', rpcErrorCode: null, responseHash: null };
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    return { outcome: 'invalid_response', rpcErrorCode: null, responseHash: null };
  }
  const message = parsed as Record<string, unknown>;
  if ('error' in message && message.error !== null && message.error !== undefined) {
    const code = (message.error as { code?: unknown }).code;
    return {
      outcome: 'rpc_error',
      rpcErrorCode: typeof code === 'number' && Number.isInteger(code) ? code : null,
      responseHash: null,
    };
  }
  if (message.jsonrpc !== '2.0' || !('result' in message)) {
    return { outcome: 'invalid_response', rpcErrorCode: null, responseHash: null };
  }
  return {
    outcome: 'ok',
    rpcErrorCode: null,
    responseHash: method === null ? null : fingerprint(method, message.result),
  };
}
