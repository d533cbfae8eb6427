import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSuite, get, post, waitForRun } from '../helpers/api';
import { answers, startFakeNode, type FakeNode } from '../helpers/json-rpc-node';
import { startStack, type Stack } from '../helpers/stack';

type Auth = { authorization: string };
const WORKLOAD = { requests_per_target: 30, concurrency: 2, warmup_requests: 2, timeout_ms: 2_000 };
// These tests are about which runs form a baseline, not about its decision: a floor of 1 s keeps a
// loaded machine's slow loopback run from failing a verdict (and then, rightly, not joining).
const THRESHOLDS = { latency_regression_min_ms: 1_000 };

/**
 * Branch-aware baselines: `history` and `previous_success` read only runs of the suite's
 * baseline branch (and runs naming none); a pull request's runs compare against it and never join
 * it, so experimental branches cannot drag main's baseline along.
 */
describe('branch-aware baselines', () => {
  let stack: Stack;
  let node: FakeNode;
  let preview: FakeNode;
  beforeAll(async () => {
    stack = await startStack();
    [node, preview] = await Promise.all([startFakeNode(answers.ok()), startFakeNode(answers.ok())]);
  });
  afterAll(async () => {
    await Promise.all([node?.close(), preview?.close()]);
    await stack?.close();
  });

  async function runOn(auth: Auth, suiteId: string, body: Record<string, unknown>) {
    const created = await post<{ id: string }>(stack.app, `/v1/suites/${suiteId}/runs`, auth, body);
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const run = await waitForRun(stack.app, auth, created.body.id);
    expect(run.status).toBe('success');
    const verdict = (await get<any>(stack.app, `/v1/runs/${run.id}/verdict`, auth)).body;
    expect(verdict.verdict, verdict.markdown_summary).toBe('pass');
    return { id: run.id as string, run, verdict };
  }

  it('previous_success: a PR branch\'s passing runs do not move main\'s baseline, main\'s do; runs naming no branch count as main', async () => {
    const { auth } = await stack.newTenant();
    const { suiteId } = await createSuite(stack.app, auth, { candidates: [node.url], config: { workload: WORKLOAD, thresholds: THRESHOLDS, baseline: { mode: 'previous_success' } } });
    const pr = (n: number) => ({ branch: 'feature/x', commit: `${n}`.repeat(7) });

    const m1 = await runOn(auth, suiteId, { branch: 'main', commit: 'aaaaaaa' });
    expect(m1.verdict.baseline_comparison).toBeNull();
    const p1 = await runOn(auth, suiteId, pr(1));
    expect(p1.run.baseline_run_id).toBe(m1.id);
    // The PR's earlier passing run is not its baseline: main's is.
    const p2 = await runOn(auth, suiteId, pr(2));
    expect(p2.run.baseline_run_id).toBe(m1.id);
    // Main never compares against the PR.
    const m2 = await runOn(auth, suiteId, { branch: 'main' });
    expect(m2.run.baseline_run_id).toBe(m1.id);
    // Main's new run moved the baseline, for main and for the PR alike.
    const p3 = await runOn(auth, suiteId, pr(3));
    expect(p3.run.baseline_run_id).toBe(m2.id);
    // A run naming no branch (a schedule, plain curl) is main's: it compares against main and joins it.
    const plain = await runOn(auth, suiteId, {});
    expect(plain.run).toMatchObject({ baseline_run_id: m2.id, branch: null, commit: null, baseline_branch: 'main' });
    const p4 = await runOn(auth, suiteId, pr(4));
    expect(p4.run.baseline_run_id).toBe(plain.id);

    // The verdict says which branch and commit it judged and what baseline branch it read.
    expect(p4.verdict).toMatchObject({ branch: 'feature/x', commit: '4444444', baseline_branch: 'main' });
    expect(p4.verdict.baseline_comparison.run_id).toBe(plain.id);
    expect(p4.verdict.markdown_summary).toContain('Branch `feature/x` @ `4444444` · baseline branch `main` (compared with it; never joins it)');
    expect(plain.verdict.markdown_summary).not.toContain('baseline branch');

    // The trend, whole and filtered: points carry branch, commit and whether they are on the baseline branch.
    const trend = (await get<{ data: any[] }>(stack.app, `/v1/suites/${suiteId}/trend`, auth)).body.data;
    expect(trend.map((p) => [p.run_id, p.branch, p.commit, p.on_baseline_branch])).toEqual([
      [p4.id, 'feature/x', '4444444', false],
      [plain.id, null, null, true],
      [p3.id, 'feature/x', '3333333', false],
      [m2.id, 'main', null, true],
      [p2.id, 'feature/x', '2222222', false],
      [p1.id, 'feature/x', '1111111', false],
      [m1.id, 'main', 'aaaaaaa', true],
    ]);
    const ofPr = (await get<{ data: any[] }>(stack.app, `/v1/suites/${suiteId}/trend?branch=feature/x`, auth)).body;
    expect(ofPr.data.map((p) => p.run_id)).toEqual([p4.id, p3.id, p2.id, p1.id]);
    // main's includes the run that named no branch: it counted as main.
    const ofMain = (await get<{ data: any[] }>(stack.app, `/v1/suites/${suiteId}/trend?branch=main`, auth)).body;
    expect(ofMain.data.map((p) => p.run_id)).toEqual([plain.id, m2.id, m1.id]);
    const bad = await get<any>(stack.app, `/v1/suites/${suiteId}/trend?branch=${encodeURIComponent('a b')}`, auth);
    expect(bad.status).toBe(400);
    expect(bad.body.error.details[0].field).toBe('branch');
  });

  it('history: the band holds only baseline-branch runs; PR runs with their own --target-url compare against it', async () => {
    const { auth } = await stack.newTenant();
    const { suiteId } = await createSuite(stack.app, auth, {
      candidates: [node.url],
      config: { workload: WORKLOAD, thresholds: THRESHOLDS, baseline: { mode: 'history', min_runs: 2, window: 10, branch: 'trunk' } },
    });
    const suite = await get<any>(stack.app, `/v1/suites/${suiteId}`, auth);
    expect(suite.body.config.baseline.branch).toBe('trunk');
    const prRun = () => runOn(auth, suiteId, { branch: 'pr-9', targets: [{ url: preview.url }] });

    const t1 = await runOn(auth, suiteId, { branch: 'trunk' });
    const t2 = await runOn(auth, suiteId, {});
    // "main" is not this suite's baseline branch: compared against trunk's runs, never joins them.
    const onMain = await runOn(auth, suiteId, { branch: 'main' });
    expect(onMain.verdict.baseline_comparison).toMatchObject({ model: 'history', run_ids: [t2.id, t1.id] });
    expect(onMain.run.baseline_branch).toBe('trunk');
    const pr1 = await prRun();
    const pr2 = await prRun();
    // Each PR run probed its own endpoint, yet is compared with trunk's history (the per-run target stands in for the suite's).
    expect(pr1.run.targets[0]).toMatchObject({ ephemeral: true });
    expect(pr2.run.targets[0].endpoint_id).not.toBe(pr1.run.targets[0].endpoint_id);
    for (const pr of [pr1, pr2]) {
      expect(pr.verdict.baseline_comparison).toMatchObject({ model: 'history', run_ids: [t2.id, t1.id] });
      expect(pr.verdict.checks.map((c: any) => c.name)).toContain('latency_vs_baseline');
    }
    // Trunk's next run: its band is trunk's runs only, none of main's or the PR's.
    const t3 = await runOn(auth, suiteId, { branch: 'trunk' });
    expect(t3.verdict.baseline_comparison.run_ids).toEqual([t2.id, t1.id]);
    const pr3 = await prRun();
    expect(pr3.verdict.baseline_comparison.run_ids).toEqual([t3.id, t2.id, t1.id]);
  });
});
