import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { post } from '../helpers/api';
import { startAnvil, type AnvilNode } from '../helpers/anvil';
import { startStack, type Stack } from '../helpers/stack';
import { startWsLagProxy, type WsLagProxy } from '../helpers/ws-lag-proxy';

/*
 * `rvs run --wait` on a suite with a head watch, the real CLI (bin/rvs) against a real stack and a
 * REAL node: anvil mining a block a second, one candidate 300 ms behind through the tests' proxy,
 * one dropping every 3rd newHeads frame, the reference anvil directly. The text output, the JUnit
 * report and the step summary show the freshness check and comparison.
 */

const ROOT = resolve(__dirname, '..', '..');
const BIN = join(ROOT, 'bin', 'rvs');

function rvs(args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('RVS_') && name !== 'GITHUB_STEP_SUMMARY'));
  return new Promise((done, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, env: { ...inherited, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => done({ code, stdout, stderr }));
  });
}

const unescape = (text: string) => text.replace(/&quot;/g, '"').replace(/&apos;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');

/** Each testcase's name and, when it has one, its <failure> or <skipped> message. */
function testcases(xml: string): { name: string; outcome: 'pass' | 'failure' | 'skipped'; message: string | null }[] {
  return [...xml.matchAll(/<testcase classname="[^"]*" name="([^"]*)" time="[^"]*"(\/>|>\s*<(failure|skipped) message="([^"]*)")/g)].map((m) => ({
    name: unescape(m[1]!),
    outcome: m[2] === '/>' ? 'pass' : (m[3] as 'failure' | 'skipped'),
    message: m[4] === undefined ? null : unescape(m[4]),
  }));
}

describe('rvs run --wait on a suite with a head watch (anvil)', () => {
  let stack: Stack;
  let anvil: AnvilNode;
  let proxies: WsLagProxy[] = [];
  let baseUrl: string;
  let dir: string;

  beforeAll(async () => {
    stack = await startStack();
    baseUrl = await stack.app.listen({ host: '127.0.0.1', port: 0 });
    anvil = await startAnvil({ blockTimeS: 1 });
    proxies = [await startWsLagProxy(anvil.wsUrl, { delayMs: 300 }), await startWsLagProxy(anvil.wsUrl, { dropEveryNth: 3 })];
    dir = await mkdtemp(join(tmpdir(), 'rvs-cli-fresh-'));
  });
  afterAll(async () => {
    await Promise.all(proxies.map((p) => p.close()));
    await anvil?.close();
    await stack?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('prints the head-watch table, gives each candidate a JUnit testcase naming its failing figure, and the step summary has the table', { timeout: 150_000 }, async () => {
    const { key, auth } = await stack.newTenant();
    const chain = await post<{ id: string }>(stack.app, '/v1/chains', auth, { name: 'Anvil', slug: 'anvil-cli', chain_id: 31337 });
    const endpoint = async (name: string, wsUrl: string) => {
      const created = await post<{ id: string }>(stack.app, '/v1/endpoints', auth, { chain_id: chain.body.id, name, url: anvil.httpUrl, ws_url: wsUrl, timeout_ms: 2_000 });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      return created.body.id;
    };
    const late = await endpoint('late-by-300ms', proxies[0]!.url);
    const lossy = await endpoint('drops-every-3rd', proxies[1]!.url);
    const reference = await endpoint('anvil-direct', anvil.wsUrl);
    const suite = await post<{ id: string }>(stack.app, '/v1/suites', auth, {
      chain_id: chain.body.id,
      name: 'heads gate',
      config: {
        targets: [{ endpoint_id: late }, { endpoint_id: lossy }],
        reference_endpoint_id: reference,
        workload: { methods: [{ method: 'eth_blockNumber' }], requests_per_target: 20, concurrency: 2, warmup_requests: 1, timeout_ms: 2_000 },
        freshness: { duration_s: 10, grace_ms: 1_500 },
        thresholds: { head_lag_p95_max_ms: 200 },
      },
    });
    expect(suite.status, JSON.stringify(suite.body)).toBe(201);

    const junit = join(dir, 'heads.xml');
    const stepSummary = join(dir, 'summary.md');
    const result = await rvs(['run', suite.body.id, '--wait', '--timeout', '2m', '--format', 'junit', '--output', junit], {
      RVS_URL: baseUrl,
      RVS_API_KEY: key,
      GITHUB_STEP_SUMMARY: stepSummary,
    });
    // The dropping candidate misses heads: the verdict fails.
    expect(result.code, result.stderr).toBe(1);
    const runId = /\(run ([0-9a-f-]{36}), exit code 1\)/.exec(result.stdout)![1]!;
    const verdict = (await stack.app.inject({ method: 'GET', url: `/v1/runs/${runId}/verdict`, headers: auth })).json<Record<string, any>>();
    const f = verdict.freshness_comparison;
    const byName = (name: string) => f.candidates.find((c: { endpoint_name: string }) => c.endpoint_name === name);
    expect(byName('drops-every-3rd').missed).toBeGreaterThan(0);

    // Text: the check's line, then the table with one row per candidate.
    expect(result.stdout).toMatch(/ {2}FAIL +freshness_vs_reference +late-by-300ms: lag p95 /);
    expect(result.stdout).toContain(`Head arrivals over 10 s via subscribe; the reference anvil-direct announced ${f.reference.heads} heads.`);
    const row = (name: string) => result.stdout.split('\n').find((l) => l.startsWith(`  ${name} `))!;
    const lossyRow = byName('drops-every-3rd');
    expect(row('drops-every-3rd')).toContain(`${lossyRow.missed} of ${lossyRow.judged} (${lossyRow.missed_pct}%)`);
    expect(row('late-by-300ms')).toMatch(/^ {2}late-by-300ms +\d{3} ms \[\d+–\d+\] +\d{3} ms \[\d+–[\d∞]+\] +0 of \d+ \(0%\)/);

    // JUnit: the freshness check is one testcase per candidate; a failure names the endpoint and its figure beside the limit.
    const xml = await readFile(junit, 'utf8');
    const cases = testcases(xml);
    const fresh = cases.filter((c) => c.name.startsWith('freshness_vs_reference'));
    expect(fresh.map((c) => c.name)).toEqual(['freshness_vs_reference: late-by-300ms', 'freshness_vs_reference: drops-every-3rd']);
    const [lateCase, lossyCase] = fresh;
    expect(lossyCase!.outcome).toBe('failure');
    expect(lossyCase!.message).toMatch(
      new RegExp(`^drops-every-3rd: .*, missed ${lossyRow.missed} of ${lossyRow.judged} \\(${lossyRow.missed_pct}%; limit 1%\\), longest stall [\\d.]+ s \\(limit 30 s\\) — fail: missed more heads than allowed$`),
    );
    // 300 ms behind against a 200 ms limit: failed on its lag (or inconclusive if too few heads bound it), never a pass.
    expect(lateCase!.outcome).not.toBe('pass');
    expect(lateCase!.message).toMatch(/^late-by-300ms: lag p95 \d{3} ms \[\d+–[\d∞]+\] \(limit 200 ms\), missed 0 of \d+ \(0%; limit 1%\)/);
    expect(xml).toMatch(new RegExp(`<testsuite name="heads gate" tests="${cases.length}" failures="${cases.filter((c) => c.outcome === 'failure').length}"`));

    // The step summary: the API's Markdown, with its head-arrivals table.
    const summary = await readFile(stepSummary, 'utf8');
    expect(summary).toContain('| Endpoint | Lag p50 [95% interval] | Lag p95 [95% interval] | Missed | Late | Reorgs | Longest stall | Reconnects |');
    expect(summary).toContain(`| drops-every-3rd |`);
  });
});
