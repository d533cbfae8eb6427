import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSuite, post, waitForRun } from '../helpers/api';
import { answers, startFakeNode, type FakeNode } from '../helpers/json-rpc-node';
import { startStack, type Stack } from '../helpers/stack';
describe('the endpoint keeps the suite\'s retry budget', () => {
  let stack: Stack;
  let node: FakeNode;
  beforeAll(async () => {
    stack = await startStack();
    node = await startFakeNode(answers.rpcError());
  });
  afterAll(async () => {
    await node.close();
    await stack.close();
  });

  it('fails the run after max_attempts endpoint failures, each on record with the suite\'s backoff', { timeout: 60_000 }, async () => {
    const { auth } = await stack.newTenant();
    const setup = await createSuite(stack.app, auth, {
      candidates: [node.url],
      config: {
        // A pinned block: planRun must read the head, and this node answers every call with an error.
        workload: {
          methods: [{ method: 'eth_getBalance', params: ['0x00000000000000000000000000000000000000aa', '{{pinned_block}}'] }],
          requests_per_target: 10,
          concurrency: 1,
          warmup_requests: 0,
        },
        retry: { max_attempts: 3, initial_interval_ms: 200, backoff_coefficient: 2, max_interval_ms: 1_000 },
      },
    });
    const created = await post<{ id: string }>(stack.app, `/v1/suites/${setup.suiteId}/runs`, auth);
    const run = await waitForRun(stack.app, auth, created.body.id, 45_000);
    expect(run.status).toBe('failed');
    expect(run.failure_reason).toMatch(/^a probe exhausted its retries: /);
    const history = run.retry_history as { activity: string; chunk: number | null; attempt: number; error_type: string; failed_at: string; next_attempt_at: string | null }[];
    expect(history.map((h) => [h.activity, h.chunk, h.attempt, h.error_type])).toEqual([
      ['planRun', null, 1, 'EndpointFailure'],
      ['planRun', null, 2, 'EndpointFailure'],
      ['planRun', null, 3, 'EndpointFailure'],
    ]);
    const delays = history.map((h) => (h.next_attempt_at === null ? null : Date.parse(h.next_attempt_at) - Date.parse(h.failed_at)));
    expect(delays).toEqual([200, 400, null]);
  });
});

