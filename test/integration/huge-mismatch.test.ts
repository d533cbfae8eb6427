import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_PATH_CHARS } from '../../src/domain/answer-diff';
import { MAX_MARKDOWN_CHARS } from '../../src/domain/verdict/markdown';
import { createSuite, get, post, waitForRun } from '../helpers/api';
import { startFakeNode, type Behaviour, type FakeNode } from '../helpers/json-rpc-node';
import { startStack, type Stack } from '../helpers/stack';

/*
 * A candidate that answers a huge differing object: four keys of 250,000 characters where the
 * reference answers a small object. Before paths were cut, one such answer made a 3 MB verdict and
 * a 1.5 MB Markdown summary (over GitHub's 1 MiB step summary), sent in every webhook too.
 */

const TX = `0x${'ab'.repeat(32)}`;
const node = (result: unknown): Behaviour => (req, res) => {
  const answer = req.method === 'eth_getTransactionByHash' ? result : '0x10';
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', id: req.id, result: answer }));
};

describe('a node answering a huge differing object', () => {
  let stack: Stack;
  let candidate: FakeNode;
  let reference: FakeNode;
  beforeAll(async () => {
    stack = await startStack();
    const huge = Object.fromEntries(['a', 'b', 'c', 'd'].map((c) => [c.repeat(250_000), 1]));
    candidate = await startFakeNode(node({ hash: TX, ...huge }));
    reference = await startFakeNode(node({ hash: TX, nonce: '0x1' }));
  });
  afterAll(async () => {
    await candidate?.close();
    await reference?.close();
    await stack?.close();
  });

  it('gives a verdict of a few kilobytes: paths cut, Markdown bounded, the correctness failure still named', async () => {
    const { auth } = await stack.newTenant();
    const setup = await createSuite(stack.app, auth, {
      candidates: [candidate.url],
      reference: reference.url,
      config: {
        workload: { requests_per_target: 12, concurrency: 2, warmup_requests: 0, timeout_ms: 5_000, methods: [{ method: 'eth_getTransactionByHash', params: [TX] }] },
        thresholds: { correctness_enabled: true, correctness_min_pct: 99 },
      },
    });
    const created = await post<{ id: string }>(stack.app, `/v1/suites/${setup.suiteId}/runs`, auth);
    expect(created.status).toBe(201);
    const run = await waitForRun(stack.app, auth, created.body.id, 120_000);
    expect(run.status, JSON.stringify(run.failure_reason)).toBe('success');
    const verdict = await get<any>(stack.app, `/v1/runs/${created.body.id}/verdict`, auth);
    expect(verdict.status).toBe(200);
    const correctness = verdict.body.checks.find((c: { name: string }) => c.name === 'correctness');
    expect(correctness.status).toBe('fail');
    const shown = correctness.details.mismatches.filter((m: { differences_status?: string }) => m.differences_status === 'shown');
    expect(shown.length).toBeGreaterThan(0);
    for (const m of shown) {
      expect(m.differences).toHaveLength(3);
      expect(m.more_differences).toBe(true);
      for (const d of m.differences) expect(d.path.length).toBeLessThanOrEqual(MAX_PATH_CHARS);
      expect(m.differences[0].path).toBe(`$.${'a'.repeat(47)}…`);
    }
    // A few kilobytes, where one answer made 3.0 MB.
    expect(JSON.stringify(verdict.body).length).toBeLessThan(64 * 1024);
    expect(verdict.body.markdown_summary.length).toBeLessThanOrEqual(MAX_MARKDOWN_CHARS);
    expect(verdict.body.markdown_summary).toContain('more paths differ, not shown');
  });
});
