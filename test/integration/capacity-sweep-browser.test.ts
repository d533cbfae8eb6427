import { existsSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signDashboardToken } from '../../src/services/dashboard-token';
import { createSuite, get, post, waitForRun } from '../helpers/api';
import { startCapacityNode, type CapacityNode } from '../helpers/capacity-node';
import { startStack, type Stack } from '../helpers/stack';

/** Debian's chromium; CI installs it (`apt-get install -y chromium`). Never a downloaded browser. */
const CHROMIUM = '/usr/bin/chromium';

describe('a sweep run on the dashboard', () => {
  let stack: Stack;
  let browser: Browser | undefined;
  let origin: string;
  let node: CapacityNode;

  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: the dashboard browser test needs Debian's chromium (apt-get install -y chromium)`);
    stack = await startStack();
    await stack.app.listen({ host: '127.0.0.1', port: 0 });
    origin = `http://127.0.0.1:${(stack.app.server.address() as AddressInfo).port}`;
    node = await startCapacityNode({ ratePerSecond: 150, burst: 75 });
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-quic', '--no-first-run', '--disable-component-update', '--disable-sync'],
    });
  });
  afterAll(async () => {
    await browser?.close();
    await node?.close();
    await stack?.close();
  });

  it('plots p95 and success rate against the offered rate, one point per step, the knee marked', { timeout: 120_000 }, async () => {
    const { auth } = await stack.newTenant();
    const setup = await createSuite(stack.app, auth, {
      candidates: [node.url],
      config: { workload: { sweep: { rates: [50, 100, 400], step_s: 2, warmup_s: 1 }, warmup_requests: 0 }, thresholds: { latency_p95_max_ms: 200 } },
    });
    const created = await post<{ id: string }>(stack.app, `/v1/suites/${setup.suiteId}/runs`, auth);
    const run = await waitForRun(stack.app, auth, created.body.id, 90_000);
    expect(run.status, run.failure_reason).toBe('success');
    const verdict = (await get<{ capacity: { endpoints: { knee_step: number | null; steps: { step: number; status: string }[] }[] } }>(stack.app, `/v1/runs/${run.id}/verdict`, auth)).body;
    const steps = verdict.capacity.endpoints[0]!.steps;

    const page = await browser!.newPage();
    const errors: string[] = [];
    page.on('console', (m) => void (m.type() === 'error' && errors.push(m.text())));
    page.on('pageerror', (e) => errors.push(e.message));
    const token = signDashboardToken(stack.box, run.id, new Date(Date.now() + 60 * 60 * 1000));
    await page.goto(`${origin}/dashboard/runs/${run.id}?token=${token}`);
    await page.waitForSelector('#app[data-state="loaded"]');
    expect(await page.isVisible('[data-testid="capacity-section"]')).toBe(true);
    // The percentile card gives way to the steps' intervals: no "No successful calls to bound" beside a sweep's calls.
    expect(await page.isVisible('#intervals-section')).toBe(false);
    expect(await page.textContent('body')).not.toContain('No successful calls to bound');
    for (const chart of ['chart-capacity-latency', 'chart-capacity-success']) {
      const points = await page.$$eval(`[data-testid="${chart}-series-primary"] circle`, (circles) =>
        circles.map((c) => ({ step: Number(c.getAttribute('data-step')), status: c.getAttribute('data-status'), r: c.getAttribute('r') })),
      );
      // The success chart has a point for every step; the latency chart for every step with a success.
      expect(points.map((p) => p.step)).toEqual(steps.map((s) => s.step));
      expect(points.map((p) => p.status)).toEqual(steps.map((s) => s.status));
      expect(points.filter((p) => p.r === '5').map((p) => p.step)).toEqual([verdict.capacity.endpoints[0]!.knee_step]);
    }
    expect(await page.textContent('#capacity-summary')).toContain('knee 100 rps');
    expect(errors).toEqual([]);
    await page.close();
  });
});
