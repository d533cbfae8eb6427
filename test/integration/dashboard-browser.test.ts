import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { showMsRange, displayMsInterval } from '../../src/domain/interval-display';
import { signDashboardToken } from '../../src/services/dashboard-token';
import { createSuite, get, post, waitForRun } from '../helpers/api';
import { startAnvil } from '../helpers/anvil';
import { answers, startFakeNode, type Behaviour, type FakeNode } from '../helpers/json-rpc-node';
import { startStack, type Stack } from '../helpers/stack';
import { startWsLagProxy } from '../helpers/ws-lag-proxy';

/** Debian's chromium; CI installs it (`apt-get install -y chromium`). Never a downloaded browser. */
const CHROMIUM = '/usr/bin/chromium';
const SCREENSHOT = path.resolve('test-results', 'dashboard.png');

/** Answers after a random few milliseconds so the charts have a distribution to show. */
function jittered(minMs: number, maxMs: number, answer: Behaviour): Behaviour {
  return async (req, res) => {
    await sleep(minMs + Math.random() * (maxMs - minMs));
    await answer(req, res);
  };
}

/** Collects what a clean page must not produce: console errors (CSP violations, 404s) and uncaught exceptions. */
function watchErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(`console: ${message.text()}`);
  });
  page.on('pageerror', (error) => errors.push(`pageerror: ${error.message}`));
  return errors;
}

/** Waits for the page to render its data; on timeout, says what the page showed and logged instead. */
async function waitLoaded(page: Page, errors: string[]): Promise<void> {
  try {
    await page.waitForSelector('#app[data-state="loaded"]');
  } catch (error) {
    const state = await page.getAttribute('#app', 'data-state').catch(() => null);
    const banner = await page.textContent('#error-banner').catch(() => null);
    throw new Error(`page not loaded (state ${state}, banner ${JSON.stringify(banner)}, errors ${JSON.stringify(errors)}): ${String(error)}`);
  }
}

type Intervals = Record<'p50' | 'p95' | 'p99', { point: number; lower: number; upper: number | null }>;

/** The candidates' percentile intervals as the latency_p95 check measured them. */
function latencyP95Intervals(verdict: Record<string, any>): Intervals {
  return (verdict.checks as { name: string; details: { intervals_ms: Intervals } }[]).find((c) => c.name === 'latency_p95')!.details.intervals_ms;
}

describe('run dashboard in a real browser', () => {
  let stack: Stack;
  let browser: Browser | undefined;
  let origin: string;
  let candidate: FakeNode;
  let reference: FakeNode;
  /** While set, the candidate holds its answers: a run stays live until the test lets it go on. */
  let hold: Promise<void> | null = null;

  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) {
      throw new Error(`${CHROMIUM} is missing: the dashboard browser test needs Debian's chromium (apt-get install -y chromium)`);
    }
    stack = await startStack({ env: { RVS_TEMPORAL_UI_URL: 'http://127.0.0.1:18233/' } });
    await stack.app.listen({ host: '127.0.0.1', port: 0 });
    origin = `http://127.0.0.1:${(stack.app.server.address() as AddressInfo).port}`;
    // The candidate answers net_version (a few percent of the calls) wrongly, every time: the verdict lists those mismatches.
    const answer = (method: string, version: string) => (method === 'net_version' ? version : method === 'eth_chainId' ? '0x1' : '0x1234');
    candidate = await startFakeNode(
      jittered(3, 24, async (req, res) => {
        if (hold) await hold;
        return answers.ok(answer(req.method, '2'))(req, res);
      }),
    );
    reference = await startFakeNode(jittered(6, 36, (req, res) => answers.ok(answer(req.method, '1'))(req, res)));
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-quic', '--no-first-run', '--disable-component-update', '--disable-sync'],
    });
  });
  afterAll(async () => {
    await browser?.close();
    await candidate?.close();
    await reference?.close();
    await stack?.close();
  });

  it('shows a live run, then its verdict, checks, stats, charts and tables; refuses a tampered link', { timeout: 120_000 }, async () => {
    const { auth } = await stack.newTenant();
    const setup = await createSuite(stack.app, auth, {
      candidates: [candidate.url],
      reference: reference.url,
      config: {
        workload: {
          methods: [
            { method: 'eth_blockNumber', weight: 1 },
            { method: 'eth_chainId', weight: 1 },
            { method: 'net_version', weight: 0.1 },
          ],
          requests_per_target: 240,
          concurrency: 2,
          warmup_requests: 2,
          // Long enough for the held answers below (a loaded machine takes seconds to open a page).
          timeout_ms: 20_000,
        },
        thresholds: { correctness_enabled: true, correctness_min_pct: 90, latency_vs_reference_max_pct: 100, latency_regression_max_pct: 1000 },
      },
    });
    // A first run becomes the baseline of the second.
    const first = await post<{ id: string }>(stack.app, `/v1/suites/${setup.suiteId}/runs`, auth);
    expect((await waitForRun(stack.app, auth, first.body.id)).status).toBe('success');

    // Open the second run's dashboard while it is going: the page refreshes until the run ends.
    // The candidate holds its answers until the page has shown the live run (else a fast run may end first).
    let release = () => {};
    hold = new Promise<void>((resolve) => {
      release = () => {
        hold = null;
        resolve();
      };
    });
    const second = await post<{ id: string }>(stack.app, `/v1/suites/${setup.suiteId}/runs`, auth);
    const runId = second.body.id;
    const liveToken = signDashboardToken(stack.box, runId, new Date(Date.now() + 60 * 60 * 1000));
    const live = await browser!.newPage();
    const liveErrors = watchErrors(live);
    let apiCalls = 0;
    live.on('request', (request) => {
      if (request.url().includes('/dashboard/api/')) apiCalls++;
    });
    try {
      await live.goto(`${origin}/dashboard/runs/${runId}?token=${liveToken}`);
      await waitLoaded(live, liveErrors);
      expect(['queued', 'claimed', 'running']).toContain(await live.getAttribute('#app', 'data-run-status'));
      expect(await live.textContent('#verdict-badge')).toBe('verdict pending');
      await mkdir(path.dirname(SCREENSHOT), { recursive: true });
      await live.screenshot({ path: SCREENSHOT.replace('.png', '-live.png'), fullPage: true });
    } finally {
      release();
    }
    await live.waitForSelector('#app[data-run-status="success"]', { timeout: 60_000 });
    const callsAtEnd = apiCalls;
    const endedAt = Date.now();
    expect(callsAtEnd).toBeGreaterThan(1);
    expect(await live.textContent('#run-status')).toBe('run completed');

    const run = await waitForRun(stack.app, auth, runId);
    expect(run.status).toBe('success');
    const verdict = await get<Record<string, any>>(stack.app, `/v1/runs/${runId}/verdict`, auth);
    expect(verdict.status).toBe(200);
    const link = new URL(verdict.body.dashboard_url);
    expect(link.origin).toBe('http://rvs.test');
    const local = `${origin}${link.pathname}${link.search}`;

    const page = await browser!.newPage({ viewport: { width: 1360, height: 900 } });
    const errors = watchErrors(page);
    const response = await page.goto(local);
    expect(response!.status()).toBe(200);
    await page.waitForSelector('#app[data-state="loaded"]');

    // Header: the verdict first; the run's own state beside it in words that are no outcome, and not in a pass's green.
    expect(await page.textContent('#run-status')).toBe('run completed');
    expect(await page.getAttribute('#run-status', 'title')).toContain('The verdict says whether the endpoint passed');
    expect(await page.textContent('#verdict-badge')).toBe(`verdict: ${verdict.body.verdict}`);
    expect(await page.locator('.hero-title .badge').evaluateAll((nodes) => nodes.map((n) => n.id))).toEqual(['verdict-badge', 'run-status']);
    type Computed = { getComputedStyle(node: unknown): { backgroundColor: string } };
    const background = (selector: string) =>
      page.locator(selector).evaluate((node) => (globalThis as unknown as Computed).getComputedStyle(node).backgroundColor);
    expect(await background('#run-status')).not.toBe(await background('#verdict-badge'));
    expect(await background('#run-status')).toBe('rgb(243, 244, 246)');
    expect(await page.textContent('#verdict-summary')).toBe(verdict.body.summary);
    expect(await page.textContent('#progress-text')).toContain('480 / 480 calls');
    expect(await page.getAttribute('#temporal-link', 'href')).toBe(`http://127.0.0.1:18233/namespaces/default/workflows/run-${runId}`);

    // Every check of the verdict, with its status.
    const checkNames = verdict.body.checks.map((c: { name: string }) => c.name);
    expect(checkNames).toEqual(['latency_p95', 'latency_vs_reference', 'correctness', 'latency_vs_baseline', 'availability']);
    for (const check of verdict.body.checks) {
      const row = page.locator(`[data-testid="check-${check.name}"]`);
      expect(await row.getAttribute('data-status')).toBe(check.status);
      expect(await row.locator('[data-testid="check-status"]').textContent()).toBe(check.status);
      expect(await row.textContent()).toContain(check.message);
    }
    const p95 = page.locator('[data-testid="check-latency_p95"]');
    expect(await p95.getAttribute('data-status')).toBe('pass');
    expect(await p95.textContent()).toContain(`p95 ${displayMsInterval(latencyP95Intervals(verdict.body).p95).point} ms`);
    expect(await p95.textContent()).toContain('≤ 500 ms');

    // Stats: the run's candidates, then each target.
    const runRow = page.locator('[data-testid="stats-row-run"]');
    expect(await runRow.locator('[data-field="calls_total"]').textContent()).toBe('240');
    expect(await runRow.locator('[data-field="calls_failed"]').textContent()).toBe('0');
    // The point shown with an interval is the interval's own, rounded with it (the whole-ms statistic can fall outside it).
    expect(await runRow.locator('[data-field="p95_ms"] [data-field="point"]').first().textContent()).toBe(`${displayMsInterval(latencyP95Intervals(verdict.body).p95).point} ms`);
    expect(await page.locator('[data-testid="stats-row-primary"]').count()).toBe(1);
    expect(await page.locator('[data-testid="stats-row-reference"]').count()).toBe(1);
    expect(await page.locator('#stats-table tbody tr').count()).toBe(3);

    // Every percentile of the successful calls with its 95% interval, "[lo–hi]" as the verdict states it.
    const range = showMsRange;
    const latencyP95 = verdict.body.checks.find((c: { name: string }) => c.name === 'latency_p95');
    const runIntervals = latencyP95.details.intervals_ms;
    const referenceIntervals = verdict.body.reference_comparison.latency.reference_intervals_ms;
    for (const [row, intervals] of [
      [runRow, runIntervals],
      [page.locator('[data-testid="stats-row-primary"]'), latencyP95.details.targets[0].intervals_ms],
      [page.locator('[data-testid="stats-row-reference"]'), referenceIntervals],
    ] as const) {
      for (const p of ['p50', 'p95', 'p99']) {
        expect(await row.locator(`[data-field="${p}_ms"] [data-field="interval"]`).textContent()).toBe(range(intervals[p]));
        // Never a point outside its own interval.
        const shown = displayMsInterval(intervals[p]);
        expect(await row.locator(`[data-field="${p}_ms"] [data-field="point"]`).first().textContent()).toBe(`${shown.point} ms`);
        expect(Number(shown.lower)).toBeLessThanOrEqual(Number(shown.point));
        if (shown.upper !== '∞') expect(Number(shown.point)).toBeLessThanOrEqual(Number(shown.upper));
      }
    }
    expect(await p95.locator('[data-field="interval"]').textContent()).toBe(range(runIntervals.p95));

    // The interval chart: a bar and a whisker per percentile and target, the whisker spanning the verdict's interval.
    for (const [role, intervals] of [['primary', latencyP95.details.targets[0].intervals_ms], ['reference', referenceIntervals]] as const) {
      for (const p of ['p50', 'p95', 'p99']) {
        const whisker = page.locator(`#chart-intervals svg g[data-role="${role}"] line.whisker[data-percentile="${p}"]`);
        expect(await whisker.count()).toBe(1);
        expect(Number(await whisker.getAttribute('data-lower'))).toBe(intervals[p].lower);
        const upper = await whisker.getAttribute('data-upper');
        expect(upper === 'unbounded' ? null : Number(upper)).toBe(intervals[p].upper);
        const [y1, y2] = [Number(await whisker.getAttribute('y1')), Number(await whisker.getAttribute('y2'))];
        // SVG y grows downwards: the lower bound is drawn below the upper one.
        expect(y1).toBeGreaterThanOrEqual(y2);
        expect(await page.locator(`#chart-intervals svg g[data-role="${role}"] rect[data-percentile="${p}"]`).count()).toBe(1);
      }
    }
    // Closed loop: the comparison is unpaired, and the page says why.
    expect(await page.textContent('[data-testid="reference-pairing"]')).toBe('unpaired: closed loop');
    expect(await page.textContent('[data-testid="reference-percentiles"]')).toContain(`p95 ${displayMsInterval(referenceIntervals.p95).point} ms ${range(referenceIntervals.p95)}`);

    // 240 successful calls cannot show a 99% success rate (about 381 would): availability is
    // inconclusive, shown in a neutral colour of its own with its one-sentence reason, and it does not fail the verdict.
    const availability = verdict.body.checks.find((c: { name: string }) => c.name === 'availability');
    expect(availability.status).toBe('inconclusive');
    expect(verdict.body.verdict).toBe('pass');
    const unsureBadge = page.locator('[data-testid="check-availability"] [data-testid="check-status"] .badge');
    expect(await unsureBadge.getAttribute('class')).toContain('status-inconclusive');
    // Runs in the page, where globalThis is the window (this project's types have no DOM library).
    type Styles = { getComputedStyle(node: unknown): { backgroundColor: string; color: string } };
    const colours = async (name: string) =>
      page.locator(`[data-testid="check-${name}"] .badge`).evaluate((node) => {
        const style = (globalThis as unknown as Styles).getComputedStyle(node);
        return [style.backgroundColor, style.color];
      });
    const unsure = await colours('availability');
    expect(unsure).toEqual(['rgb(226, 232, 240)', 'rgb(51, 65, 85)']);
    expect(unsure).not.toEqual(await colours('latency_p95'));
    const note = await page.textContent('[data-testid="inconclusive-availability"]');
    expect(note).toBe(`availability is inconclusive: ${availability.message.split(' — ').pop().replace(/^inconclusive: /, '')} (this does not fail the verdict).`);
    expect(note).toMatch(/about [\d,]+ calls would decide/);
    expect(await page.locator('[data-testid="inconclusive-notes"] li').count()).toBe(
      verdict.body.checks.filter((c: { status: string }) => c.status === 'inconclusive').length,
    );

    // Charts: latency over time (p50 and p95 lines per target) and the distribution (bars per target).
    for (const role of ['primary', 'reference']) {
      expect(await page.locator(`#chart-latency-time svg g[data-role="${role}"] path`).count()).toBe(2);
      expect(await page.locator(`#chart-latency-time svg g[data-role="${role}"] circle`).count()).toBeGreaterThanOrEqual(2);
      expect(await page.locator(`#chart-latency-histogram svg g[data-role="${role}"] rect`).count()).toBeGreaterThan(1);
    }
    // Both charts list the candidate before the reference, in the same colours.
    expect(await page.locator('#chart-latency-histogram svg g.series').first().getAttribute('data-role')).toBe('primary');
    expect(await page.locator('#chart-latency-time svg g.series').first().getAttribute('data-role')).toBe('primary');
    const path95 = await page.locator('#chart-latency-time svg g[data-role="primary"] path[data-percentile="p95_ms"]').getAttribute('d');
    expect(path95).toMatch(/^M[\d.]+,[\d.]+( L[\d.]+,[\d.]+)+$/);

    // Per-method table: three methods × candidate and reference.
    expect(await page.locator('#methods-table tbody tr').count()).toBe(6);
    expect(await page.locator('#methods-table tbody tr[data-method="eth_chainId"][data-role="reference"]').count()).toBe(1);

    // Correctness mismatches, comparisons, retries.
    const correctness = verdict.body.checks.find((c: { name: string }) => c.name === 'correctness');
    expect(correctness.details.mismatches.length).toBeGreaterThan(0);
    // The candidate gave the same wrong answer each time: one row counting them all (not a row per
    // mismatch), with what differs: finalize asked both sides again and got the recorded answers.
    expect(correctness.details.mismatches).toHaveLength(1);
    const [mismatch] = correctness.details.mismatches;
    expect(mismatch).toMatchObject({
      method: 'net_version',
      params: [],
      occurrences: correctness.details.mismatched,
      differences_status: 'shown',
      differences: [{ path: '$', candidate: '"2"', reference: '"1"' }],
    });
    expect(await page.locator('[data-testid="mismatch-row"]').count()).toBe(1);
    expect(await page.textContent('[data-testid="mismatch-row"] [data-field="occurrences"]')).toBe(`×${correctness.details.mismatched}`);
    expect(await page.locator('[data-testid="mismatch-difference"] td').allTextContents()).toEqual(['$', '"2"', '"1"']);
    await page.locator('#mismatches-section').screenshot({ path: SCREENSHOT.replace('.png', '-mismatches.png') });
    expect(await page.locator('#mismatches-section').isVisible()).toBe(true);
    expect(await page.textContent('#reference-comparison')).toContain('reference');
    expect(await page.textContent('#reference-comparison')).toContain(`${verdict.body.reference_comparison.latency.reference_p95_ms} ms`);
    expect(await page.textContent('#baseline-comparison')).toContain(first.body.id);
    expect(await page.textContent('#retry-history')).toContain('No retries');
    expect(await page.locator('#error-banner').isVisible()).toBe(false);
    // No head watch in this suite: no head-arrivals section.
    expect(await page.locator('#freshness-section').isVisible()).toBe(false);

    await page.screenshot({ path: SCREENSHOT, fullPage: true });
    expect(errors).toEqual([]);

    // The live page stopped polling once the run had ended.
    await sleep(Math.max(0, 4_500 - (Date.now() - endedAt)));
    expect(apiCalls).toBe(callsAtEnd);
    expect(liveErrors).toEqual([]);

    // A tampered link: the 403 page, nothing of the run.
    const tampered = new URL(local);
    const token = tampered.searchParams.get('token')!;
    tampered.searchParams.set('token', `${token.slice(0, -2)}${token.endsWith('AA') ? 'BB' : 'AA'}`);
    const refusedPage = await browser!.newPage();
    const refusedErrors: string[] = [];
    refusedPage.on('pageerror', (error) => refusedErrors.push(error.message));
    const refused = await refusedPage.goto(tampered.toString());
    expect(refused!.status()).toBe(403);
    expect(await refusedPage.textContent('h1')).toBe('This dashboard link is not valid');
    const html = await refusedPage.content();
    expect(html).not.toContain(runId);
    expect(html).not.toContain('suite under test');
    expect(refusedErrors).toEqual([]);
    await refusedPage.screenshot({ path: SCREENSHOT.replace('.png', '-forbidden.png') });
  });

  it('reaches the suite page from a run page: p95 trend, history band, verdicts, links back to the runs', { timeout: 120_000 }, async () => {
    const { auth } = await stack.newTenant();
    const setup = await createSuite(stack.app, auth, {
      candidates: [candidate.url],
      config: {
        baseline: { mode: 'history', min_runs: 2, window: 10 },
        workload: { requests_per_target: 60, concurrency: 2, warmup_requests: 2, timeout_ms: 2_000 },
        thresholds: { latency_regression_max_pct: 1000 },
      },
    });
    const runIds: string[] = [];
    // The third run is a pull request's: marked with its branch and commit, hollow in the chart.
    const triggers = [{ branch: 'main', commit: 'a'.repeat(40) }, {}, { branch: 'feature/x', commit: 'BCDEF0123456' }, { branch: 'main' }];
    for (let i = 0; i < 4; i++) {
      const created = await post<{ id: string }>(stack.app, `/v1/suites/${setup.suiteId}/runs`, auth, triggers[i]);
      expect((await waitForRun(stack.app, auth, created.body.id)).status).toBe('success');
      runIds.push(created.body.id);
    }
    const trend = await get<{ data: Record<string, any>[] }>(stack.app, `/v1/suites/${setup.suiteId}/trend`, auth);
    expect(trend.body.data).toHaveLength(4);
    const last = runIds.at(-1)!;
    const verdict = await get<Record<string, any>>(stack.app, `/v1/runs/${last}/verdict`, auth);
    const link = new URL(verdict.body.dashboard_url);
    const token = link.searchParams.get('token')!;

    const page = await browser!.newPage({ viewport: { width: 1360, height: 900 } });
    const errors = watchErrors(page);
    await page.goto(`${origin}${link.pathname}${link.search}`);
    await page.waitForSelector('#app[data-state="loaded"]');
    expect(await page.getAttribute('#suite-link', 'href')).toBe(`/dashboard/runs/${last}/suite?token=${encodeURIComponent(token)}`);
    await page.click('#suite-link');
    await page.waitForSelector('#app[data-state="ready"]');
    expect(new URL(page.url()).pathname).toBe(`/dashboard/runs/${last}/suite`);
    expect(await page.textContent('#suite-title')).toBe('suite under test');

    // One point per run, coloured by its verdict; the band wherever history limits were in force.
    const points = trend.body.data;
    const circles = page.locator('#chart-trend svg [data-testid="trend-points"] circle');
    expect(await circles.count()).toBe(4);
    // The chart runs oldest → newest.
    expect(await circles.evaluateAll((nodes) => nodes.map((n) => [n.getAttribute('data-run'), n.getAttribute('data-verdict')]))).toEqual(
      [...points].reverse().map((p) => [p.run_id, p.verdict]),
    );
    const withHistory = points.filter((p) => p.baseline?.limits?.history_upper_ms !== undefined);
    expect(withHistory.length).toBeGreaterThanOrEqual(1);
    expect(await page.locator('#chart-trend svg [data-testid="history-band"] rect').count()).toBe(withHistory.length);

    // The table: newest first, each verdict, each run's page linked (only this run's link carries the token).
    const rows = page.locator('#trend-table tbody tr');
    expect(await rows.count()).toBe(4);
    expect(await rows.evaluateAll((nodes) => nodes.map((n) => n.getAttribute('data-run')))).toEqual(points.map((p) => p.run_id));
    expect(await page.locator('[data-testid="trend-verdict"]').allTextContents()).toEqual(points.map((p) => p.verdict));
    // Each run's p95 with its interval: a whisker in the chart and "[lo–hi]" in the table.
    expect(await page.locator('#chart-trend svg [data-testid="trend-points"] line').count()).toBe(4);
    for (const p of points) {
      for (const key of ['p50', 'p95', 'p99']) {
        const q = p.candidate.intervals_ms[key];
        const cell = page.locator(`#trend-table tr[data-run="${p.run_id}"] [data-field="${key}"]`);
        expect(await cell.locator('[data-field="interval"]').textContent()).toBe(showMsRange(q));
        expect(await cell.locator('[data-field="point"]').textContent()).toBe(`${displayMsInterval(q).point} ms`);
      }
    }
    // Branch and commit per run; only runs of the baseline branch (or naming none) carry the mark.
    expect(points.map((p) => p.on_baseline_branch)).toEqual([true, false, true, true]);
    const branchCells = await page.locator('#trend-table tbody [data-field="branch"]').allTextContents();
    expect(branchCells).toEqual(['mainbaseline', 'feature/x @ bcdef01', '—baseline', 'main @ aaaaaaabaseline']);
    expect(await circles.evaluateAll((nodes) => nodes.map((n) => n.getAttribute('data-baseline-branch')))).toEqual(['true', 'true', 'false', 'true']);
    // The run's state is no outcome: "completed", beside the verdict.
    expect(await page.locator('[data-testid="trend-run-state"]').allTextContents()).toEqual(points.map(() => 'completed'));
    // Every run link opens what it shows: this run with its own link, the others with links of their own
    // that expire with this one.
    const hrefs = await page.locator('[data-testid="run-link"]').evaluateAll((nodes) => nodes.map((n) => n.getAttribute('href')));
    expect(hrefs).toHaveLength(4);
    for (const [i, href] of hrefs.entries()) {
      const target = new URL(href!, origin);
      expect(target.pathname).toBe(`/dashboard/runs/${points[i]!.run_id}`);
      const runToken = target.searchParams.get('token')!;
      if (points[i]!.run_id === last) expect(runToken).toBe(token);
      else expect(JSON.parse(Buffer.from(runToken.split('.')[0]!, 'base64url').toString())).toEqual(JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString().replace(last, points[i]!.run_id)));
    }
    await page.screenshot({ path: SCREENSHOT.replace('.png', '-suite.png'), fullPage: true });
    expect(errors).toEqual([]);

    // Another run's link opens that run's page (not "This dashboard link is not valid"), and its suite page again.
    const other = points.find((p) => p.run_id !== last)!.run_id;
    await page.click(`#trend-table tr[data-run="${other}"] a`);
    await waitLoaded(page, errors);
    expect(new URL(page.url()).pathname).toBe(`/dashboard/runs/${other}`);
    expect(await page.textContent('#run-subtitle')).toContain(other);
    expect(await page.textContent('#verdict-badge')).toBe(`verdict: ${points.find((p) => p.run_id === other)!.verdict}`);
    await page.screenshot({ path: SCREENSHOT.replace('.png', '-other-run.png'), fullPage: true });
    await page.click('#suite-link');
    await page.waitForSelector('#app[data-state="ready"]');
    expect(await page.locator('[data-testid="run-link"]').count()).toBe(4);

    // Back to the run page through its link.
    await page.click(`#trend-table tr[data-run="${last}"] a`);
    await page.waitForSelector('#app[data-state="loaded"]');
    expect(new URL(page.url()).pathname).toBe(`/dashboard/runs/${last}`);
    expect(errors).toEqual([]);
  });

  it('shows a head watch: arrival lag per block per candidate (from the paged heads) and the missed/stall table', { timeout: 150_000 }, async () => {
    // A REAL node: anvil mining a block a second; one candidate 300 ms behind through the tests'
    // proxy, one that drops every 3rd newHeads frame; the reference is anvil directly.
    const anvil = await startAnvil({ blockTimeS: 1 });
    const delayed = await startWsLagProxy(anvil.wsUrl, { delayMs: 300 });
    const dropping = await startWsLagProxy(anvil.wsUrl, { dropEveryNth: 3 });
    try {
      const { auth } = await stack.newTenant();
      const chain = await post<{ id: string }>(stack.app, '/v1/chains', auth, { name: 'Anvil', slug: 'anvil-heads', chain_id: 31337 });
      expect(chain.status).toBe(201);
      const endpoint = async (name: string, wsUrl: string) => {
        const created = await post<{ id: string }>(stack.app, '/v1/endpoints', auth, { chain_id: chain.body.id, name, url: anvil.httpUrl, ws_url: wsUrl, timeout_ms: 2_000 });
        expect(created.status, JSON.stringify(created.body)).toBe(201);
        return created.body.id;
      };
      const late = await endpoint('late-by-300ms', delayed.url);
      const lossy = await endpoint('drops-every-3rd', dropping.url);
      const reference = await endpoint('anvil-direct', anvil.wsUrl);
      const suite = await post<{ id: string }>(stack.app, '/v1/suites', auth, {
        chain_id: chain.body.id,
        name: 'heads',
        config: {
          targets: [{ endpoint_id: late }, { endpoint_id: lossy }],
          reference_endpoint_id: reference,
          workload: { methods: [{ method: 'eth_blockNumber' }], requests_per_target: 20, concurrency: 2, warmup_requests: 1, timeout_ms: 2_000 },
          freshness: { duration_s: 12, grace_ms: 1_500, late_ms: 250 },
          thresholds: { head_lag_p95_max_ms: 400 },
        },
      });
      expect(suite.status, JSON.stringify(suite.body)).toBe(201);
      const created = await post<{ id: string }>(stack.app, `/v1/suites/${suite.body.id}/runs`, auth);
      const finished = await waitForRun(stack.app, auth, created.body.id, 120_000);
      expect(finished.status, JSON.stringify(finished.failure_reason)).toBe('success');
      const verdict = (await get<Record<string, any>>(stack.app, `/v1/runs/${created.body.id}/verdict`, auth)).body;
      const f = verdict.freshness_comparison;
      const byName = (name: string) => f.candidates.find((c: { endpoint_name: string }) => c.endpoint_name === name);
      expect(byName('drops-every-3rd').missed).toBeGreaterThan(0);
      expect(byName('late-by-300ms').lags).toBeGreaterThan(3);

      const page = await browser!.newPage({ viewport: { width: 1280, height: 900 } });
      const errors = watchErrors(page);
      const heads: string[] = [];
      page.on('request', (request) => {
        if (request.url().includes('/heads?')) heads.push(new URL(request.url()).searchParams.get('offset')!);
      });
      const token = signDashboardToken(stack.box, created.body.id, new Date(Date.now() + 60 * 60 * 1000));
      await page.goto(`${origin}/dashboard/runs/${created.body.id}?token=${token}`);
      await waitLoaded(page, errors);
      await page.waitForSelector('#freshness-section[data-state="loaded"]');
      expect(await page.textContent('#freshness-subtitle')).toBe('(12 s via subscribe)');

      // Every page of the stored heads was read (200 a page), and nothing else.
      const stored = await get<{ pagination: { total: number } }>(stack.app, `/v1/runs/${created.body.id}/heads?limit=1`, auth);
      expect(heads).toEqual(Array.from({ length: Math.ceil(stored.body.pagination.total / 200) }, (_, i) => String(i * 200)));

      // The chart: one series per candidate, a point per head it announced within grace, a cross per head it did not.
      const series = page.locator('#chart-freshness svg g[data-testid="freshness-series"]');
      expect(await series.count()).toBe(2);
      const attr = async (name: string, field: string) => Number(await page.getAttribute(`#chart-freshness g[data-endpoint="${name}"]`, field));
      // The chart also shows heads the verdict could not judge (the last grace window, before a socket was up).
      expect(await attr('late-by-300ms', 'data-points')).toBeGreaterThanOrEqual(byName('late-by-300ms').lags);
      expect(await attr('drops-every-3rd', 'data-unmatched')).toBeGreaterThanOrEqual(byName('drops-every-3rd').missed);
      expect(await page.locator('#chart-freshness g[data-endpoint="drops-every-3rd"] path[data-kind="unmatched"]').count()).toBe(await attr('drops-every-3rd', 'data-unmatched'));
      // Each point says its lag; the delayed candidate's are about 300 ms.
      const titles = await page.locator('#chart-freshness g[data-endpoint="late-by-300ms"] circle title').allTextContents();
      expect(titles.length).toBe(await attr('late-by-300ms', 'data-points'));
      const lags = titles.map((t) => Number(/arrived (-?[\d.]+) ms after/.exec(t)![1]));
      const median = [...lags].sort((a, b) => a - b)[Math.floor(lags.length / 2)]!;
      expect(median).toBeGreaterThanOrEqual(200);
      expect(median).toBeLessThanOrEqual(600);
      expect(await page.locator('#chart-freshness svg line.threshold').count()).toBe(1);
      expect(await page.textContent('#chart-freshness svg')).toContain('block height');

      // The table: each candidate and the reference, with the verdict's figures.
      const rows = page.locator('#freshness-table [data-testid="freshness-row"]');
      expect(await rows.count()).toBe(3);
      for (const c of f.candidates) {
        const row = `#freshness-table tr[data-endpoint="${c.endpoint_name}"]`;
        expect(await page.textContent(`${row} [data-field="missed"]`)).toBe(`${c.missed} of ${c.judged} (${c.missed_pct}%)${c.unjudged > 0 ? `${c.unjudged} not judged` : ''}`);
        // The legend says what the table says: missed and not judged, never one for the other.
        const legend = await page.textContent(`#legend-freshness`);
        const words = [`${c.endpoint_name} (`, c.missed > 0 ? `${c.missed} missed` : null, c.unjudged > 0 ? `${c.unjudged} not judged` : null].filter((w) => w !== null);
        for (const w of words) expect(legend).toContain(w);
        expect(legend).not.toContain('without an announcement');
        expect(await page.textContent(`${row} [data-field="late"]`)).toBe(String(c.late));
        expect(await page.textContent(`${row} [data-field="longest_stall"]`)).toBe(`${(c.longest_stall_ms / 1000).toFixed(1)} s`);
        expect(await page.textContent(`${row} [data-field="reconnects"]`)).toBe(String(c.reconnects));
        expect(await page.getAttribute(`${row} [data-field="status"] .badge`, 'data-status')).toBe(c.status);
        const p50 = displayMsInterval(c.lag_ms.p50);
        expect(await page.textContent(`${row} [data-field="lag_p50"] [data-field="point"]`)).toBe(`${p50.point} ms`);
        expect(await page.textContent(`${row} [data-field="lag_p50"] [data-field="interval"]`)).toBe(`[${p50.lower}–${p50.upper}]`);
      }
      expect(await page.textContent('#freshness-table tr[data-role="reference"]')).toContain(`${f.reference.heads} heads announced`);
      expect(await page.textContent('#freshness-note')).toContain('Missed: not announced within 1500 ms (grace)');

      await page.locator('#freshness-section').screenshot({ path: SCREENSHOT.replace('.png', '-freshness.png') });
      expect(errors).toEqual([]);
    } finally {
      await delayed.close();
      await dropping.close();
      await anvil.close();
    }
  });
});
