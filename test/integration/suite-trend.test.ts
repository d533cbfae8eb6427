import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backfillRunSummaries } from '../../src/db/runs';
import { createSuite, get, post, waitForRun } from '../helpers/api';
import { answers, startFakeNode, type FakeNode } from '../helpers/json-rpc-node';
import { startStack, type Stack } from '../helpers/stack';

type Point = Record<string, any>;

describe('suite trend', () => {
  let stack: Stack;
  let node: FakeNode;
  let auth: { authorization: string };
  let suiteId: string;
  /** Run ids in the order they were triggered (oldest first). */
  const runIds: string[] = [];
  let tokenOfSecond: string;

  beforeAll(async () => {
    stack = await startStack();
    node = await startFakeNode(answers.delay(1, answers.ok('0x1234')));
    ({ auth } = await stack.newTenant());
    ({ suiteId } = await createSuite(stack.app, auth, { candidates: [node.url] }));
    for (let i = 0; i < 3; i++) {
      const created = await post<{ id: string }>(stack.app, `/v1/suites/${suiteId}/runs`, auth);
      expect(created.status).toBe(201);
      const run = await waitForRun(stack.app, auth, created.body.id);
      expect(run.status).toBe('success');
      runIds.push(run.id as string);
    }
    const verdict = await get<{ dashboard_url: string }>(stack.app, `/v1/runs/${runIds[1]}/verdict`, auth);
    tokenOfSecond = new URL(verdict.body.dashboard_url).searchParams.get('token')!;
  });
  afterAll(async () => {
    await node?.close();
    await stack?.close();
  });

  it('lists one point per finished run, newest first, with the verdict, percentiles, intervals and baseline limits', async () => {
    const response = await get<{ data: Point[]; pagination: Record<string, unknown> }>(stack.app, `/v1/suites/${suiteId}/trend`, auth);
    expect(response.status).toBe(200);
    expect(response.body.pagination).toEqual({ total: 3, limit: 50, offset: 0, has_more: false });
    const points = response.body.data;
    expect(points.map((p) => p.run_id)).toEqual([...runIds].reverse());
    for (const point of points) {
      const verdict = (await get<Record<string, any>>(stack.app, `/v1/runs/${point.run_id}/verdict`, auth)).body;
      const run = (await get<Record<string, any>>(stack.app, `/v1/runs/${point.run_id}`, auth)).body;
      const p95Check = verdict.checks.find((c: Point) => c.name === 'latency_p95');
      expect(point).toEqual({
        run_id: run.id,
        status: 'success',
        requested_at: run.requested_at,
        finished_at: run.finished_at,
        verdict: verdict.verdict,
        candidate: {
          p50_ms: run.stats.latency.successful.p50_ms,
          p95_ms: run.stats.latency.successful.p95_ms,
          p99_ms: run.stats.latency.successful.p99_ms,
          intervals_ms: p95Check.details.intervals_ms,
        },
        match_rate_pct: null,
        baseline: verdict.baseline_comparison
          ? { model: verdict.baseline_comparison.model, limits: verdict.baseline_comparison.limits }
          : null,
        // Triggered without a branch: counted as the baseline branch.
        branch: null,
        commit: null,
        on_baseline_branch: true,
      });
      expect(point.candidate.intervals_ms.p95).toMatchObject({ point: expect.any(Number), lower: expect.any(Number) });
    }
    // The first run had nothing to compare with; the later ones were compared with a baseline.
    expect(points[2]!.baseline).toBeNull();
    expect(points[0]!.baseline).toMatchObject({ model: expect.any(String), limits: { max_pct: expect.any(Number), floor_ms: expect.any(Number) } });
  });

  it('pages with limit and offset in the standard envelope', async () => {
    const first = await get<{ data: Point[]; pagination: Record<string, unknown> }>(stack.app, `/v1/suites/${suiteId}/trend?limit=2`, auth);
    expect(first.status).toBe(200);
    expect(first.body.data.map((p) => p.run_id)).toEqual([runIds[2], runIds[1]]);
    expect(first.body.pagination).toEqual({ total: 3, limit: 2, offset: 0, has_more: true });
    const second = await get<{ data: Point[]; pagination: Record<string, unknown> }>(stack.app, `/v1/suites/${suiteId}/trend?limit=2&offset=2`, auth);
    expect(second.body.data.map((p) => p.run_id)).toEqual([runIds[0]]);
    expect(second.body.pagination).toEqual({ total: 3, limit: 2, offset: 2, has_more: false });
  });

  it('gives null intervals and null match rate for a run judged before intervals were stored', async () => {
    // An old verdict: the latency_p95 check without intervals_ms (as stored before they existed),
    // and no history summary (as stored before migration 032): the trend reads the verdict.
    await stack.sql`
      update runs set trend_point = null, verdict_value = null, verdict = jsonb_set(verdict, '{checks}', (
        select jsonb_agg(case when c->>'name' = 'latency_p95' then c #- '{details,intervals_ms}' else c end)
        from jsonb_array_elements(verdict->'checks') c))
      where id = ${runIds[0]!}`;
    const response = await get<{ data: Point[] }>(stack.app, `/v1/suites/${suiteId}/trend?offset=2`, auth);
    expect(response.body.data[0]).toMatchObject({ run_id: runIds[0], candidate: { intervals_ms: null, p95_ms: expect.any(Number) }, match_rate_pct: null });
    // Summarised by the backfill: the same point.
    expect(await backfillRunSummaries(stack.sql)).toBeGreaterThanOrEqual(1);
    const summarised = await get<{ data: Point[] }>(stack.app, `/v1/suites/${suiteId}/trend?offset=2`, auth);
    expect(summarised.body.data[0]).toEqual(response.body.data[0]);
  });

  it("answers another tenant's suite exactly as the suite's own route does (403), and an unknown suite 404", async () => {
    const other = await stack.newTenant();
    const trend = await get(stack.app, `/v1/suites/${suiteId}/trend`, other.auth);
    const suite = await get(stack.app, `/v1/suites/${suiteId}`, other.auth);
    expect(trend.status).toBe(403);
    expect(trend.status).toBe(suite.status);
    expect(trend.body).toMatchObject({ error: { code: (suite.body as Point).error.code } });
    expect(JSON.stringify(trend.body)).not.toContain(runIds[0]);
    const missing = await get(stack.app, `/v1/suites/${randomUUID()}/trend`, auth);
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ error: { code: 'not_found' } });
  });

  it('needs runs:read, not suites:read', async () => {
    const suitesOnly = await stack.newTenant(['suites:read']);
    expect((await get(stack.app, `/v1/suites/${suiteId}/trend`, suitesOnly.auth)).status).toBe(403);
    expect((await get(stack.app, `/v1/suites/${suiteId}/trend`, { authorization: 'Bearer rvs_nope' })).status).toBe(401);
  });

  it('rejects a bad limit, offset or suite id with validation_error', async () => {
    for (const query of ['limit=0', 'limit=201', 'limit=abc', 'offset=-1']) {
      const response = await get(stack.app, `/v1/suites/${suiteId}/trend?${query}`, auth);
      expect(response.status, query).toBe(400);
      expect(response.body, query).toMatchObject({ error: { code: 'validation_error' } });
    }
    expect((await get(stack.app, '/v1/suites/not-a-uuid/trend', auth)).status).toBe(400);
  });

  it("gives a run's dashboard link the trend of that run's suite and nothing else", async () => {
    const response = await stack.app.inject({ method: 'GET', url: `/dashboard/api/runs/${runIds[1]}/suite?token=${encodeURIComponent(tokenOfSecond)}` });
    expect(response.statusCode).toBe(200);
    expect(response.headers['cache-control']).toBe('no-store');
    const body = response.json<Record<string, any>>();
    expect(body.run_id).toBe(runIds[1]);
    expect(body.suite).toEqual({ id: suiteId, name: 'suite under test' });
    expect(body.trend.data.map((p: Point) => p.run_id)).toEqual([...runIds].reverse());
    expect(body.trend.pagination).toMatchObject({ total: 3, offset: 0 });
    const api = await get<{ data: Point[] }>(stack.app, `/v1/suites/${suiteId}/trend`, auth);
    expect(body.trend.data).toEqual(api.body.data);
    // Tokens only in run_links: one per listed run of this suite, each for that run alone, expiring
    // with the link used (so following links never renews one).
    expect(body.run_links.map((l: { run_id: string }) => l.run_id)).toEqual([...runIds].reverse());
    for (const link of body.run_links as { run_id: string; path: string }[]) {
      const token = new URL(link.path, 'http://x').searchParams.get('token')!;
      expect(JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString()).run).toBe(link.run_id);
    }
    expect(JSON.stringify({ ...body, run_links: null })).not.toContain('token');

    // The page itself, and the 403s: another run's id with this token, a tampered or missing token.
    const page = await stack.app.inject({ method: 'GET', url: `/dashboard/runs/${runIds[1]}/suite?token=${encodeURIComponent(tokenOfSecond)}` });
    expect(page.statusCode).toBe(200);
    expect(page.body).toMatch(/<script src="\/dashboard\/assets\/suite\.js\?v=[0-9a-f]+" defer><\/script>/);
    expect(String(page.headers['content-security-policy'])).toContain("script-src 'self'");
    const script = /src="([^"]+suite\.js[^"]*)"/.exec(page.body)![1]!;
    expect((await stack.app.inject({ method: 'GET', url: script })).statusCode).toBe(200);
    for (const url of [
      `/dashboard/api/runs/${runIds[0]}/suite?token=${encodeURIComponent(tokenOfSecond)}`,
      `/dashboard/api/runs/${runIds[1]}/suite?token=${encodeURIComponent(`${tokenOfSecond.slice(0, -1)}${tokenOfSecond.endsWith('A') ? 'B' : 'A'}`)}`,
      `/dashboard/api/runs/${runIds[1]}/suite`,
      `/dashboard/runs/${runIds[0]}/suite?token=${encodeURIComponent(tokenOfSecond)}`,
    ]) {
      expect((await stack.app.inject({ method: 'GET', url })).statusCode, url).toBe(403);
    }
  });
});
