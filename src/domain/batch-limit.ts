import { z } from 'zod';
import { component, count, int } from './shape-blocks';

/*
 * An endpoint's batch limit, as a run learns it: the sizes of the JSON-RPC batches it answered
 * and of those it refused as a whole (geth's --rpc.batch-request-limit answers -32600 "batch too
 * large", proxies answer HTTP 413, some servers a single object instead of an array). Pure: the
 * batch client feeds it what it saw and asks it which size to try next, so every boundary is a
 * table-driven unit test.
 *
 * The limit is found by bisection between the largest size answered and the smallest refused,
 * with a few extra batch requests (at most MAX_PROBES): exact when the two sizes meet (the limit
 * is the largest answered), otherwise reported as bounds.
 */

/** An endpoint's batch limit as the run reports it (target metadata, the verdict's batch_limits): declared once, its type inferred. */
export const batchLimitSchema = component(
  'BatchLimit',
  z
    .object({
      max_accepted: count.nullable().describe('the largest batch the endpoint answered as a batch; null when none was'),
      min_refused: count.describe('the smallest batch it refused as a whole'),
      limit: count
        .nullable()
        .describe('its limit, calls per batch, when the two meet (max_accepted + 1 = min_refused; 0: even a batch of one is refused); null when only the bounds are known'),
      refused_with: z
        .object({
          outcome: z.enum(['rpc_error', 'http_error', 'invalid_response']),
          rpc_error_code: int.nullable(),
          http_status: int.nullable(),
        })
        .describe('how it refused: e.g. rpc_error -32600 (geth\'s "batch too large"), http_error 413, invalid_response (a JSON answer that is not an array)'),
      probes: count.describe('extra batch requests the run sent to find the limit (bisection, at most 8; not samples)'),
    })
    .describe('An endpoint\'s JSON-RPC batch limit as the run found it, when a batch (workload.batch_size) was refused as a whole for its size'),
);

export type BatchLimit = z.output<typeof batchLimitSchema>;
/** How an endpoint refused a batch as a whole (the first refusal seen). */
export type BatchRefusal = BatchLimit['refused_with'];

/** At most this many extra batch requests per endpoint client: enough to pin any limit below 128. */
export const MAX_PROBES = 8;

/** The size refusals the limit is learnt from; any other failure (a 429, a timeout) says nothing about size. */
export function isSizeRefusal(r: BatchRefusal): boolean {
  if (r.outcome === 'rpc_error') return true; // one error object (or geth's one-element array of -32600) for the batch
  if (r.outcome === 'http_error') return r.http_status === 413;
  return true; // a JSON answer that is not an array (the batch client passes no other invalid answer here)
}

export const sameRefusal = (a: BatchRefusal, b: BatchRefusal): boolean =>
  a.outcome === b.outcome && a.rpc_error_code === b.rpc_error_code && a.http_status === b.http_status;

/** What is known so far; null until a size refusal was seen. */
export interface BatchLimitState {
  maxAccepted: number | null;
  minRefused: number | null;
  refusedWith: BatchRefusal | null;
  probes: number;
}

export const emptyBatchLimitState = (): BatchLimitState => ({ maxAccepted: null, minRefused: null, refusedWith: null, probes: 0 });

/** A batch of `size` answered as an array. */
export function accepted(state: BatchLimitState, size: number): BatchLimitState {
  return { ...state, maxAccepted: Math.max(state.maxAccepted ?? 0, size) };
}

/** A batch of `size` refused as a whole with `refusal`; other refusals than the first kind seen are ignored. */
export function refused(state: BatchLimitState, size: number, refusal: BatchRefusal): BatchLimitState {
  if (!isSizeRefusal(refusal)) return state;
  if (state.refusedWith !== null && !sameRefusal(state.refusedWith, refusal)) return state;
  return { ...state, minRefused: Math.min(state.minRefused ?? size, size), refusedWith: state.refusedWith ?? refusal };
}

/** The next size to try, or null when the limit is pinned, nothing was refused, or the probes are spent. */
export function nextProbeSize(state: BatchLimitState): number | null {
  if (state.minRefused === null || state.probes >= MAX_PROBES) return null;
  const low = state.maxAccepted ?? 0;
  if (state.minRefused - low <= 1) return null;
  return Math.floor((low + state.minRefused) / 2);
}

/** The limit as the run reports it; null when no batch was refused for its size. */
export function batchLimitOf(state: BatchLimitState): BatchLimit | null {
  if (state.minRefused === null || state.refusedWith === null) return null;
  const low = state.maxAccepted ?? 0;
  return {
    max_accepted: state.maxAccepted,
    min_refused: state.minRefused,
    limit: low + 1 === state.minRefused ? low : null,
    refused_with: state.refusedWith,
    probes: state.probes,
  };
}

/** "5 calls", "between 5 and 9 calls", "none (a batch of 1 is refused)": how the Markdown and the CLI say it. */
export function describeBatchLimit(limit: BatchLimit): string {
  if (limit.limit === 0) return 'batches refused at every size (a batch of 1 too)';
  if (limit.limit !== null) return `${limit.limit} calls per batch`;
  if (limit.max_accepted === null) return `below ${limit.min_refused} calls per batch`;
  if (limit.max_accepted >= limit.min_refused) return `unclear (answered ${limit.max_accepted}, refused ${limit.min_refused})`;
  return `between ${limit.max_accepted} and ${limit.min_refused - 1} calls per batch`;
}

/** "-32600", "HTTP 413", "a non-array answer". */
export function describeRefusal(r: BatchRefusal): string {
  if (r.outcome === 'rpc_error') return r.rpc_error_code === null ? 'an error object' : `error ${r.rpc_error_code}`;
  if (r.outcome === 'http_error') return `HTTP ${r.http_status ?? '?'}`;
  return 'a non-array answer';
}
