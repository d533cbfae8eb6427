import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SecretBox } from '../../src/crypto/secret-box';
import { chooseBuckets } from '../../src/db/histogram';
import { buildApp } from '../../src/app';
import { createLogger } from '../../src/logger';
import { DASHBOARD_TOKEN_TTL_MS, signDashboardToken } from '../../src/services/dashboard-token';
import { loadConfig } from '../../src/config';
import { temporalUiUrl } from '../../src/services/dashboard';
import { createSuite, get, post, waitForRun } from '../helpers/api';
import { answers, startFakeNode, type FakeNode } from '../helpers/json-rpc-node';
import { startStack, type Stack } from '../helpers/stack';

const HOUR = 60 * 60 * 1000;

function expectStrictPageHeaders(headers: Record<string, unknown>): void {
  const csp = String(headers['content-security-policy']);
  expect(csp).toContain("default-src 'none'");
  expect(csp).toContain("script-src 'self'");
  expect(csp).toContain("style-src 'self'");
  expect(csp).toContain("frame-ancestors 'none'");
  expect(csp).not.toContain('unsafe-inline');
  expect(csp).not.toContain('unsafe-eval');
  expect(headers['referrer-policy']).toBe('no-referrer');
  expect(headers['x-content-type-options']).toBe('nosniff');
  expect(headers['cache-control']).toBe('no-store');
}

/** Flips the last character of the token's signature. */
function tamper(token: string): string {
  const last = token.at(-1) === 'A' ? 'B' : 'A';
  return `${token.slice(0, -1)}${last}`;
}

describe('run dashboard', () => {
  let stack: Stack;
  let node: FakeNode;
  let auth: { authorization: string };
  let runId: string;
  let suiteName: string;
  let pageUrl: string;
  let token: string;

  beforeAll(async () => {
    stack = await startStack();
    node = await startFakeNode(answers.delay(2, answers.ok('0x1234')));
    ({ auth } = await stack.newTenant());
    const setup = await createSuite(stack.app, auth, { candidates: [node.url] });
    const created = await post<{ id: string }>(stack.app, `/v1/suites/${setup.suiteId}/runs`, auth);
    const run = await waitForRun(stack.app, auth, created.body.id);
    expect(run.status).toBe('success');
    runId = run.id;
    suiteName = run.suite.name;
    const verdict = await get<{ dashboard_url: string }>(stack.app, `/v1/runs/${runId}/verdict`, auth);
    const url = new URL(verdict.body.dashboard_url);
    pageUrl = `${url.pathname}${url.search}`;
    token = url.searchParams.get('token')!;
  });
  afterAll(async () => {
    await node?.close();
    await stack?.close();
  });

  it('serves the page for a valid token, with strict security headers and no inline script', async () => {
    expect(pageUrl).toBe(`/dashboard/runs/${runId}?token=${token}`);
    const response = await stack.app.inject({ method: 'GET', url: pageUrl });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
    expectStrictPageHeaders(response.headers);
    const html = response.body;
    expect(html).toMatch(/<script src="\/dashboard\/assets\/dashboard\.js\?v=[0-9a-f]+" defer><\/script>/);
    expect(html).toMatch(/<link rel="stylesheet" href="\/dashboard\/assets\/dashboard\.css\?v=[0-9a-f]+">/);
    // Every script has a src: nothing inline for the CSP to have to allow.
    expect(html.match(/<script\b[^>]*>/g)!.every((tag) => tag.includes(' src='))).toBe(true);
    expect(html).not.toMatch(/\son[a-z]+=/i);
  });

  it('serves the script, stylesheet and icon from memory with their content types', async () => {
    const html = (await stack.app.inject({ method: 'GET', url: pageUrl })).body;
    const script = /src="([^"]+dashboard\.js[^"]*)"/.exec(html)![1]!;
    const style = /href="([^"]+dashboard\.css[^"]*)"/.exec(html)![1]!;
    const icon = /href="([^"]+favicon\.svg[^"]*)"/.exec(html)![1]!;
    for (const [url, type] of [
      [script, 'text/javascript; charset=utf-8'],
      [style, 'text/css; charset=utf-8'],
      [icon, 'image/svg+xml'],
    ] as const) {
      const response = await stack.app.inject({ method: 'GET', url });
      expect(response.statusCode, url).toBe(200);
      expect(response.headers['content-type']).toBe(type);
      expect(response.headers['x-content-type-options']).toBe('nosniff');
      expect(response.body.length).toBeGreaterThan(100);
    }
    // No API key is needed for any of it, and nothing else is served from the asset path.
    const unknown = await stack.app.inject({ method: 'GET', url: '/dashboard/assets/../../package.json' });
    expect(unknown.statusCode).toBe(404);
  });

  it('returns run, verdict, metrics, histogram and the Temporal UI link as JSON', async () => {
    const response = await stack.app.inject({ method: 'GET', url: `/dashboard/api/runs/${runId}?token=${token}` });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expect(response.headers['cache-control']).toBe('no-store');
    expect(response.headers['referrer-policy']).toBe('no-referrer');
    const body = response.json<Record<string, any>>();
    expect(body.run).toMatchObject({ id: runId, status: 'success', suite: { name: suiteName } });
    expect(body.run.stats.calls).toEqual({ total: 50, successful: 50, failed: 0 });
    expect(body.verdict).toMatchObject({ verdict: 'pass', exit_code: 0, checks: [{ name: 'latency_p95', status: 'pass' }, { name: 'availability' }] });
    // A link holder must not be able to mint a fresh (longer-lived) link from the data.
    expect(body.verdict).not.toHaveProperty('dashboard_url');
    expect(JSON.stringify(body)).not.toContain('token=');
    expect(body.metrics.run_id).toBe(runId);
    expect(body.metrics.targets).toHaveLength(1);
    expect(body.metrics.targets[0].buckets.length).toBeGreaterThan(0);
    expect(body.metrics.by_method).toEqual([expect.objectContaining({ method: 'eth_blockNumber', calls: 50, failed: 0 })]);
    // The histogram counts every successful sample exactly once, on shared buckets.
    const histogram = body.histogram;
    expect(histogram.buckets).toBeGreaterThan(0);
    expect(histogram.bucket_ms).toBeGreaterThan(0);
    expect(histogram.targets).toHaveLength(1);
    const [target] = histogram.targets;
    expect(target).toMatchObject({ target_id: body.run.targets[0].id, role: 'primary', endpoint_name: 'candidate 0', total: 50 });
    expect(target.counts).toHaveLength(histogram.buckets);
    expect(target.counts.reduce((a: number, b: number) => a + b, 0) + target.overflow).toBe(50);
    // The test stack names no Temporal UI (RVS_TEMPORAL_UI_URL unset): no link, not a guessed localhost:8233.
    expect(body.temporal_ui_url).toBeNull();
  });

  it('refuses a missing, tampered, expired, foreign or wrongly signed token with a 403 page that shows nothing of the run', async () => {
    const [payload] = token.split('.');
    const otherRunToken = signDashboardToken(stack.box, randomUUID(), new Date(Date.now() + HOUR));
    const foreignKeyToken = signDashboardToken(new SecretBox(randomBytes(32).toString('hex')), runId, new Date(Date.now() + HOUR));
    const cases: Record<string, string> = {
      missing: `/dashboard/runs/${runId}`,
      empty: `/dashboard/runs/${runId}?token=`,
      tampered_signature: `/dashboard/runs/${runId}?token=${tamper(token)}`,
      tampered_payload: `/dashboard/runs/${runId}?token=${Buffer.from(JSON.stringify({ run: runId, exp: 4102444800 })).toString('base64url')}.${token.split('.')[1]}`,
      no_signature: `/dashboard/runs/${runId}?token=${payload}`,
      expired: `/dashboard/runs/${runId}?token=${signDashboardToken(stack.box, runId, new Date(Date.now() - 1000))}`,
      other_run: `/dashboard/runs/${runId}?token=${otherRunToken}`,
      other_key: `/dashboard/runs/${runId}?token=${foreignKeyToken}`,
      repeated: `/dashboard/runs/${runId}?token=${token}&token=${token}`,
      malformed_run_id: `/dashboard/runs/not-a-uuid?token=${token}`,
      api_key_instead: `/dashboard/runs/${runId}?token=${auth.authorization.slice('Bearer '.length)}`,
    };
    for (const [name, url] of Object.entries(cases)) {
      const page = await stack.app.inject({ method: 'GET', url });
      expect(page.statusCode, name).toBe(403);
      expect(page.headers['content-type'], name).toBe('text/html; charset=utf-8');
      expectStrictPageHeaders(page.headers);
      expect(page.body, name).toContain('This dashboard link is not valid');
      expect(page.body, name).not.toContain(runId);
      expect(page.body, name).not.toContain(suiteName);
      expect(page.body, name).not.toContain('<script');

      const api = await stack.app.inject({ method: 'GET', url: url.replace('/dashboard/runs/', '/dashboard/api/runs/') });
      expect(api.statusCode, name).toBe(403);
      expect(api.json(), name).toMatchObject({ error: { code: 'forbidden', details: [] } });
      expect(api.body, name).not.toContain(suiteName);
      expect(api.body, name).not.toContain('"stats"');
      expect(api.headers['cache-control'], name).toBe('no-store');
    }
  });

  it('refuses every link issued before RVS_DASHBOARD_LINKS_NOT_BEFORE (the operator\'s revocation), and opens links issued after it', async () => {
    const revokedAt = new Date(Date.now() + 1_000);
    const app = buildApp(
      { config: { ...stack.config, dashboardLinksNotBefore: revokedAt }, sql: stack.sql, box: stack.box, temporal: stack.client, jwt: null },
      createLogger('silent', 'test'),
    );
    await app.ready();
    try {
      for (const url of [pageUrl, `/dashboard/api/runs/${runId}?token=${token}`, `/dashboard/api/runs/${runId}/suite?token=${token}`, `/dashboard/api/runs/${runId}/heads?token=${token}`]) {
        expect((await stack.app.inject({ method: 'GET', url })).statusCode, url).toBe(200);
        expect((await app.inject({ method: 'GET', url })).statusCode, url).toBe(403);
      }
      const reissued = signDashboardToken(stack.box, runId, new Date(revokedAt.getTime() + 1_000 + DASHBOARD_TOKEN_TTL_MS));
      expect((await app.inject({ method: 'GET', url: `/dashboard/api/runs/${runId}?token=${reissued}` })).statusCode).toBe(200);
    } finally {
      await app.close();
    }
  });

  it("a valid link of another tenant's run opens that run only", async () => {
    const other = await stack.newTenant();
    const setup = await createSuite(stack.app, other.auth, { candidates: [node.url] });
    const created = await post<{ id: string }>(stack.app, `/v1/suites/${setup.suiteId}/runs`, other.auth);
    const otherToken = signDashboardToken(stack.box, created.body.id, new Date(Date.now() + HOUR));
    // The other run's token does not open this run...
    const refused = await stack.app.inject({ method: 'GET', url: `/dashboard/api/runs/${runId}?token=${otherToken}` });
    expect(refused.statusCode).toBe(403);
    expect((await stack.app.inject({ method: 'GET', url: `/dashboard/api/runs/${runId}/heads?token=${otherToken}` })).statusCode).toBe(403);
    // ...and opens the other run with the other tenant's data: once it has finished, its verdict
    // (the run going, with a null verdict, is the next test's case).
    const finished = await waitForRun(stack.app, other.auth, created.body.id);
    const own = await stack.app.inject({ method: 'GET', url: `/dashboard/api/runs/${created.body.id}?token=${otherToken}` });
    expect(own.statusCode).toBe(200);
    const body = own.json<Record<string, any>>();
    expect(body.run.id).toBe(created.body.id);
    expect(body.run.status).toBe(finished.status);
    const verdict = await get<Record<string, any>>(stack.app, `/v1/runs/${created.body.id}/verdict`, other.auth);
    expect(verdict.status).toBe(200);
    expect(body.verdict).toMatchObject({ verdict: verdict.body.verdict, summary: verdict.body.summary });
  });

  it('gives a verdict of null, not an error, while the run is going', async () => {
    const slow = await startFakeNode(answers.delay(60));
    try {
      const setup = await createSuite(stack.app, auth, {
        candidates: [slow.url],
        config: { workload: { requests_per_target: 30, concurrency: 1, warmup_requests: 0 } },
      });
      const created = await post<{ id: string }>(stack.app, `/v1/suites/${setup.suiteId}/runs`, auth);
      const liveToken = signDashboardToken(stack.box, created.body.id, new Date(Date.now() + HOUR));
      const response = await stack.app.inject({ method: 'GET', url: `/dashboard/api/runs/${created.body.id}?token=${liveToken}` });
      expect(response.statusCode).toBe(200);
      const body = response.json<Record<string, any>>();
      expect(['queued', 'claimed', 'running']).toContain(body.run.status);
      expect(body.verdict).toBeNull();
      expect(body.run.progress.calls_planned).toBe(30);
      await waitForRun(stack.app, auth, created.body.id);
      const after = await stack.app.inject({ method: 'GET', url: `/dashboard/api/runs/${created.body.id}?token=${liveToken}` });
      expect(after.json<Record<string, any>>().verdict).toMatchObject({ verdict: 'pass' });
    } finally {
      await slow.close();
    }
  });

  it("opens each run the suite page lists, with a link of that run's own that expires with the one used, and nothing of another suite", async () => {
    // A second run of the same suite, and a run of another suite of the same tenant.
    const setup = await get<{ test_suite_id: string }>(stack.app, `/v1/runs/${runId}`, auth);
    const sibling = await post<{ id: string }>(stack.app, `/v1/suites/${setup.body.test_suite_id}/runs`, auth);
    expect((await waitForRun(stack.app, auth, sibling.body.id)).status).toBe('success');
    const elsewhere = await createSuite(stack.app, auth, { candidates: [node.url] });
    const foreign = await post<{ id: string }>(stack.app, `/v1/suites/${elsewhere.suiteId}/runs`, auth);
    await waitForRun(stack.app, auth, foreign.body.id);

    const expiresAt = new Date(Math.floor(Date.now() / 1000) * 1000 + HOUR);
    const used = signDashboardToken(stack.box, runId, expiresAt);
    const response = await stack.app.inject({ method: 'GET', url: `/dashboard/api/runs/${runId}/suite?token=${used}` });
    expect(response.statusCode).toBe(200);
    const body = response.json<{ run_links: { run_id: string; path: string }[]; link_expires_at: string; trend: { data: { run_id: string }[] } }>();
    expect(body.link_expires_at).toBe(expiresAt.toISOString());
    expect(body.run_links.map((l) => l.run_id)).toEqual(body.trend.data.map((p) => p.run_id));
    expect(body.run_links.map((l) => l.run_id).sort()).toEqual([runId, sibling.body.id].sort());
    for (const link of body.run_links) {
      const url = new URL(link.path, 'http://x');
      expect(url.pathname).toBe(`/dashboard/runs/${link.run_id}`);
      const linkToken = url.searchParams.get('token')!;
      if (link.run_id === runId) expect(linkToken).toBe(used);
      // Same expiry as the link used, never later: following links cannot renew one.
      const claims = JSON.parse(Buffer.from(linkToken.split('.')[0]!, 'base64url').toString('utf8'));
      expect(claims).toEqual({ run: link.run_id, exp: expiresAt.getTime() / 1000 });
      const page = await stack.app.inject({ method: 'GET', url: link.path });
      expect(page.statusCode, link.run_id).toBe(200);
      const data = await stack.app.inject({ method: 'GET', url: link.path.replace('/dashboard/runs/', '/dashboard/api/runs/') });
      expect(data.statusCode, link.run_id).toBe(200);
      expect(data.json<{ run: { id: string } }>().run.id).toBe(link.run_id);
      // Each opens its own run only.
      const cross = link.run_id === runId ? sibling.body.id : runId;
      expect((await stack.app.inject({ method: 'GET', url: `/dashboard/api/runs/${cross}?token=${linkToken}` })).statusCode).toBe(403);
    }
    expect(response.body).not.toContain(foreign.body.id);
    // An expired link gets no links at all.
    const expired = signDashboardToken(stack.box, runId, new Date(Date.now() - 1000));
    expect((await stack.app.inject({ method: 'GET', url: `/dashboard/api/runs/${runId}/suite?token=${expired}` })).statusCode).toBe(403);
  });

  it('gives the Run resource a dashboard_url from its trigger on, which opens the live page; the page\'s data never carries one', async () => {
    const slow = await startFakeNode(answers.delay(40));
    try {
      const setup = await createSuite(stack.app, auth, {
        candidates: [slow.url],
        // Open loop, 10 calls/s for 6 s: one 30-second chunk holds the whole run.
        config: { workload: { requests_per_target: 60, rate_per_second: 10, concurrency: 2, warmup_requests: 0 } },
      });
      const created = await post<{ id: string; dashboard_url: string }>(stack.app, `/v1/suites/${setup.suiteId}/runs`, auth);
      expect(created.status).toBe(201);
      const link = new URL(created.body.dashboard_url);
      expect(link.origin).toBe('http://rvs.test');
      expect(link.pathname).toBe(`/dashboard/runs/${created.body.id}`);
      const page = await stack.app.inject({ method: 'GET', url: `${link.pathname}${link.search}` });
      expect(page.statusCode).toBe(200);
      const data = await stack.app.inject({ method: 'GET', url: `${link.pathname.replace('/dashboard/runs/', '/dashboard/api/runs/')}${link.search}` });
      expect(data.statusCode).toBe(200);
      expect(data.json<{ run: Record<string, unknown> }>().run).not.toHaveProperty('dashboard_url');
      expect(data.body).not.toContain('token=');

      // Progress is committed while the chunk goes on, not only when it ends.
      let seen: { status: string; progress: { calls_done: number; calls_planned: number } } | null = null;
      for (const until = Date.now() + 30_000; Date.now() < until; ) {
        const run = await get<{ status: string; dashboard_url: string; progress: { calls_done: number; calls_planned: number } }>(stack.app, `/v1/runs/${created.body.id}`, auth);
        expect(run.body.dashboard_url).toMatch(new RegExp(`^http://rvs\\.test/dashboard/runs/${created.body.id}\\?token=`));
        if (run.body.progress.calls_done > 0 || ['success', 'failed', 'cancelled'].includes(run.body.status)) {
          seen = run.body;
          break;
        }
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(seen?.status).toBe('running');
      expect(seen!.progress.calls_done).toBeGreaterThan(0);
      expect(seen!.progress.calls_done).toBeLessThan(seen!.progress.calls_planned);
      await waitForRun(stack.app, auth, created.body.id);
    } finally {
      await slow.close();
    }
  });

  it('links to the Temporal UI configured in RVS_TEMPORAL_UI_URL, and to none when it is unknown', () => {
    const config = (env: Record<string, string>) => loadConfig({ RVS_SECRET_KEY: 'k'.repeat(32), ...env });
    const ui = (env: Record<string, string>, namespace?: string) =>
      temporalUiUrl(namespace ? { temporal: { ...config(env).temporal, namespace } } : config(env), 'run-1');
    expect(ui({ RVS_TEMPORAL_UI_URL: 'https://temporal.example.com/ui/' }, 'team a')).toBe('https://temporal.example.com/ui/namespaces/team%20a/workflows/run-1');
    expect(ui({ RVS_TEMPORAL_UI_URL: 'http://localhost:18233', TEMPORAL_ADDRESS: 'temporal:7233' })).toBe('http://localhost:18233/namespaces/default/workflows/run-1');
    // Not configured: no link, whether Temporal is on this machine (its UI port is not known) or not.
    expect(ui({ TEMPORAL_ADDRESS: '127.0.0.1:7233', RVS_TEMPORAL_UI_PORT: '18233' })).toBeNull();
    expect(ui({ TEMPORAL_ADDRESS: 'temporal:7233' })).toBeNull();
    expect(() => config({ RVS_TEMPORAL_UI_URL: 'javascript:alert(1)' })).toThrow(/RVS_TEMPORAL_UI_URL/);
  });

  it('chooses histogram buckets of a readable width that keep the 99th percentile inside the chart', () => {
    expect(chooseBuckets(900, 30_000)).toEqual({ fromUs: 0, bucketUs: 2_000, buckets: 16 });
    expect(chooseBuckets(5_000, 5_000)).toEqual({ fromUs: 5_000, bucketUs: 100, buckets: 1 });
    expect(chooseBuckets(110_000, 480_000)).toEqual({ fromUs: 100_000, bucketUs: 20_000, buckets: 20 });
  });
});

/**
 * Dashboard links are pasted into pull requests and every poll of the data route runs about ten
 * aggregate queries: each link token, and each client address over all links, has a quota.
 */
describe('dashboard rate limits', () => {
  let stack: Stack;
  beforeAll(async () => {
    // 3 per token and minute; a client address gets 5 × that (15) over all links.
    stack = await startStack({ worker: false, env: { RVS_DASHBOARD_RATE_LIMIT_PER_MINUTE: '3' } });
  });
  afterAll(async () => {
    await stack?.close();
  });

  const link = (runId: string) => `/dashboard/runs/${runId}?token=${signDashboardToken(stack.box, runId, new Date(Date.now() + HOUR))}`;
  const open = (url: string, remoteAddress: string) => stack.app.inject({ method: 'GET', url, remoteAddress });

  /** Repeats when a minute boundary passed meanwhile: the windows are fixed minutes. */
  async function withinOneWindow(attempt: (n: number) => Promise<void>): Promise<void> {
    const minute = () => Math.floor(Date.now() / 60_000);
    for (let n = 0; ; n++) {
      const start = minute();
      await attempt(n);
      if (minute() === start || n === 2) return;
    }
  }

  it('limits each run\'s links together, whatever the token or address, with RateLimit headers and Retry-After', async () => {
    await withinOneWindow(async (n) => {
      const url = link(randomUUID());
      const responses = [];
      for (let i = 0; i < 4; i++) responses.push(await open(url, `127.0.1.${10 * n + i + 1}`));
      expect(responses.map((r) => r.statusCode)).toEqual([200, 200, 200, 429]);
      expect(responses[0]!.headers['ratelimit-limit']).toBe('3');
      expect(responses[0]!.headers['ratelimit-remaining']).toBe('2');
      const refused = responses[3]!;
      expect(refused.json().error.code).toBe('rate_limited');
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
      // The data route shares the token's quota.
      const runId = new URL(url, 'http://x').pathname.split('/').at(-1)!;
      const data = await stack.app.inject({ method: 'GET', url: url.replace(`/dashboard/runs/${runId}`, `/dashboard/api/runs/${runId}`), remoteAddress: `127.0.1.${10 * n + 9}` });
      expect(data.statusCode).toBe(429);
      // Another link is not affected.
      expect((await open(link(randomUUID()), `127.0.1.${10 * n + 1}`)).statusCode).toBe(200);
      // Another link to the same run (each verdict fetch signs a new one) shares the run's quota,
      // so fetching links does not multiply it; the bucket names the run, never the token.
      const again = `/dashboard/runs/${runId}?token=${signDashboardToken(stack.box, runId, new Date(Date.now() + 2 * HOUR))}`;
      expect(again).not.toBe(url);
      expect((await open(again, `127.0.1.${10 * n + 8}`)).statusCode).toBe(429);
      const token = new URL(url, 'http://x').searchParams.get('token')!;
      const buckets = await stack.sql<{ bucket: string }[]>`select bucket from rate_limit_windows where bucket like 'dashboard-%' and bucket not like 'dashboard-address:%'`;
      expect(buckets.map((b) => b.bucket)).toContain(`dashboard-run:${runId}`);
      for (const { bucket } of buckets) expect(bucket).not.toContain(token.split('.')[1]!.slice(0, 16));
    });
  });

  it('limits each client address over all links, valid or not', async () => {
    await withinOneWindow(async (n) => {
      const address = `127.0.2.${n + 1}`;
      const statuses: number[] = [];
      for (let i = 0; i < 15; i++) statuses.push((await open(i % 2 === 0 ? link(randomUUID()) : `/dashboard/runs/${randomUUID()}?token=forged`, address)).statusCode);
      expect(statuses.filter((s) => s === 429)).toEqual([]);
      const over = await open(link(randomUUID()), address);
      expect(over.statusCode).toBe(429);
      expect(over.headers['ratelimit-limit']).toBe('15');
      expect((await open(link(randomUUID()), `127.0.2.${n + 101}`)).statusCode).toBe(200);
    });
  });
});
