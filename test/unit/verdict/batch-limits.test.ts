import { describe, expect, it } from 'vitest';
import { computeVerdict, type EndpointBatchLimit } from '../../../src/domain/verdict';
import { input, steady } from './fixtures';

const CANDIDATE_ID = '44444444-4444-4444-8444-444444444444';
const REFERENCE_ID = '55555555-5555-4555-8555-555555555555';

const found = (over: Partial<EndpointBatchLimit> = {}): EndpointBatchLimit => ({
  endpoint_id: CANDIDATE_ID,
  endpoint_name: 'geth | limited',
  role: 'primary',
  max_accepted: 5,
  min_refused: 6,
  limit: 5,
  refused_with: { outcome: 'rpc_error', rpc_error_code: -32600, http_status: 200 },
  probes: 3,
  ...over,
});

describe('computeVerdict: batch_limits', () => {
  const c = steady(100, 500);

  it('lists each endpoint\'s limit and says it in the Markdown (exact, bounds, every size refused)', () => {
    const limits = [
      found(),
      found({ endpoint_id: REFERENCE_ID, endpoint_name: 'ref', role: 'reference', limit: null, max_accepted: 3, min_refused: 10, refused_with: { outcome: 'http_error', rpc_error_code: null, http_status: 413 }, probes: 1 }),
    ];
    const result = computeVerdict(input({ candidate: c.stats, candidateLatencies: c.latencies, batchLimits: limits }));
    expect(result.batch_limits).toEqual(limits);
    const lines = result.markdown_summary.split('\n');
    expect(lines).toContain('Batch limit of candidate (geth \\| limited): 5 calls per batch — batches of 6 were refused as a whole with error -32600, found with 3 extra batch requests.');
    expect(lines).toContain('Batch limit of reference (ref): between 3 and 9 calls per batch — batches of 10 were refused as a whole with HTTP 413, found with 1 extra batch request.');

    const none = computeVerdict(input({ candidate: c.stats, candidateLatencies: c.latencies, batchLimits: [found({ limit: 0, max_accepted: null, min_refused: 1, probes: 0 })] }));
    expect(none.markdown_summary).toContain('Batch limit of candidate (geth \\| limited): batches refused at every size (a batch of 1 too) — batches of 1 were refused as a whole with error -32600.');
  });

  it('is absent when no batch was refused for its size, and the verdict is unchanged by a limit (it reports, it does not judge)', () => {
    const without = computeVerdict(input({ candidate: c.stats, candidateLatencies: c.latencies }));
    expect(without).not.toHaveProperty('batch_limits');
    expect(without.markdown_summary).not.toContain('Batch limit');
    const withLimit = computeVerdict(input({ candidate: c.stats, candidateLatencies: c.latencies, batchLimits: [found()] }));
    expect(withLimit.verdict).toBe(without.verdict);
    expect(withLimit.checks).toEqual(without.checks);
  });
});
