import { describe, expect, it } from 'vitest';
import {
  accepted,
  batchLimitOf,
  describeBatchLimit,
  describeRefusal,
  emptyBatchLimitState,
  isSizeRefusal,
  MAX_PROBES,
  nextProbeSize,
  refused,
  type BatchLimitState,
  type BatchRefusal,
} from '../../src/domain/batch-limit';

const TOO_LARGE: BatchRefusal = { outcome: 'rpc_error', rpc_error_code: -32600, http_status: 200 };
const HTTP_413: BatchRefusal = { outcome: 'http_error', rpc_error_code: null, http_status: 413 };

/** The search the batch client runs, against an endpoint that answers batches up to `limit`. */
function search(limit: number, firstRefused: number, refusal: BatchRefusal = TOO_LARGE): BatchLimitState {
  let state = refused(emptyBatchLimitState(), firstRefused, refusal);
  for (let size = nextProbeSize(state); size !== null; size = nextProbeSize(state)) {
    state = { ...state, probes: state.probes + 1 };
    state = size <= limit ? accepted(state, size) : refused(state, size, refusal);
  }
  return state;
}

describe('batch limit', () => {
  it.each([
    // limit, first refused batch, probes the bisection needs
    [5, 10, 3],
    [5, 6, 3],
    [1, 2, 1],
    [0, 2, 1],
    [0, 1, 0],
    [9, 10, 4],
    [50, 100, 6],
    [99, 100, 7],
  ])('pins a limit of %i after a batch of %i was refused, with %i extra requests', (limit, firstRefused, probes) => {
    const state = search(limit, firstRefused);
    expect(batchLimitOf(state)).toEqual({
      max_accepted: limit === 0 ? null : limit,
      min_refused: limit + 1,
      limit,
      refused_with: TOO_LARGE,
      probes,
    });
    expect(probes).toBeLessThanOrEqual(MAX_PROBES);
  });

  it('starts from what the run already saw: an answered batch of 8 and a refused one of 10 need one probe', () => {
    const state = refused(accepted(emptyBatchLimitState(), 8), 10, HTTP_413);
    expect(nextProbeSize(state)).toBe(9);
    expect(batchLimitOf(accepted(state, 9))).toMatchObject({ limit: 9, max_accepted: 9, min_refused: 10 });
  });

  it('reports bounds when the search stops early, and says so in words', () => {
    const state = { ...refused(accepted(emptyBatchLimitState(), 3), 10, TOO_LARGE), probes: MAX_PROBES };
    expect(nextProbeSize(state)).toBeNull();
    const limit = batchLimitOf(state)!;
    expect(limit).toMatchObject({ limit: null, max_accepted: 3, min_refused: 10 });
    expect(describeBatchLimit(limit)).toBe('between 3 and 9 calls per batch');
    expect(describeBatchLimit({ ...limit, max_accepted: null })).toBe('below 10 calls per batch');
    expect(describeBatchLimit({ ...limit, limit: 5 })).toBe('5 calls per batch');
    expect(describeBatchLimit({ ...limit, limit: 0 })).toBe('batches refused at every size (a batch of 1 too)');
  });

  it('what was seen disagreeing (an answered batch larger than a refused one) leaves the limit unknown', () => {
    const state = accepted(refused(emptyBatchLimitState(), 6, TOO_LARGE), 8);
    expect(nextProbeSize(state)).toBeNull();
    expect(batchLimitOf(state)).toMatchObject({ limit: null, max_accepted: 8, min_refused: 6 });
    expect(describeBatchLimit(batchLimitOf(state)!)).toBe('unclear (answered 8, refused 6)');
  });

  it.each<[BatchRefusal, boolean]>([
    [TOO_LARGE, true],
    [{ outcome: 'rpc_error', rpc_error_code: -32601, http_status: 200 }, true],
    [HTTP_413, true],
    [{ outcome: 'http_error', rpc_error_code: null, http_status: 429 }, false],
    [{ outcome: 'http_error', rpc_error_code: null, http_status: 503 }, false],
    [{ outcome: 'invalid_response', rpc_error_code: null, http_status: 200 }, true],
  ])('%j is a size refusal: %s', (refusal, expected) => {
    expect(isSizeRefusal(refusal)).toBe(expected);
    // Anything else is no refusal of size: nothing is learnt from it.
    expect(batchLimitOf(refused(emptyBatchLimitState(), 10, refusal)) !== null).toBe(expected);
  });

  it('a refusal of another kind than the first does not move the bounds', () => {
    const state = refused(refused(emptyBatchLimitState(), 10, TOO_LARGE), 4, HTTP_413);
    expect(batchLimitOf(state)).toMatchObject({ min_refused: 10, refused_with: TOO_LARGE });
  });

  it('names the refusal', () => {
    expect(describeRefusal(TOO_LARGE)).toBe('error -32600');
    expect(describeRefusal(HTTP_413)).toBe('HTTP 413');
    expect(describeRefusal({ outcome: 'invalid_response', rpc_error_code: null, http_status: 200 })).toBe('a non-array answer');
  });
});
