import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSuite } from '../helpers/api';
import { freePort } from '../helpers/free-port';
import { answers, startFakeNode, type FakeNode } from '../helpers/json-rpc-node';
import { startStack, type Stack } from '../helpers/stack';

const ROOT = resolve(__dirname, '..', '..');
const BIN = join(ROOT, 'bin', 'rvs');

interface Result {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the real CLI (bin/rvs through tsx) as a child process; asynchronous, so the in-process API keeps serving. */
function rvs(args: string[], env: Record<string, string>): Promise<Result> {
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith('RVS_') && name !== 'GITHUB_STEP_SUMMARY'),
  );
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

/** Attributes of the first element with this name. */
function attrs(xml: string, element: string): Record<string, string> {
  const tag = new RegExp(`<${element}((?:\\s+[\\w.-]+="[^"]*")*)\\s*/?>`).exec(xml);
  if (!tag) throw new Error(`no <${element}> in ${xml}`);
  return Object.fromEntries([...tag[1]!.matchAll(/([\w.-]+)="([^"]*)"/g)].map((m) => [m[1]!, m[2]!]));
}

/** XML-ish: a declaration, then tags that nest and close properly, and no bare & or < in text. */
function assertWellFormed(xml: string): void {
  expect(xml.startsWith('<?xml version="1.0" encoding="UTF-8"?>\n')).toBe(true);
  const stack: string[] = [];
  const body = xml.slice(xml.indexOf('\n') + 1);
  for (const m of body.matchAll(/<(\/?)([\w.-]+)(?:\s+[\w.-]+="[^"<]*")*\s*(\/?)>|([^<]+)|(<)/g)) {
    if (m[5]) throw new Error(`stray < in ${body}`);
    if (m[4] !== undefined) {
      expect(m[4]).not.toMatch(/&(?!(amp|lt|gt|quot|apos|#\d+);)/);
      continue;
    }
    if (m[1]) expect(stack.pop()).toBe(m[2]);
    else if (!m[3]) stack.push(m[2]!);
  }
  expect(stack).toEqual([]);
}

const count = (text: string, needle: string) => text.split(needle).length - 1;

describe('the rvs CLI against a real stack', () => {
  let stack: Stack;
  let fast: FakeNode;
  let slow: FakeNode;
  let baseUrl: string;
  let dir: string;
  let key: string;
  let auth: { authorization: string };

  beforeAll(async () => {
    stack = await startStack();
    fast = await startFakeNode(answers.ok('0x1234'));
    slow = await startFakeNode(answers.delay(5, answers.ok('0x1234')));
    baseUrl = await stack.app.listen({ host: '127.0.0.1', port: 0 });
    dir = await mkdtemp(join(tmpdir(), 'rvs-cli-it-'));
    ({ key, auth } = await stack.newTenant());
  });
  afterAll(async () => {
    await fast?.close();
    await slow?.close();
    await stack?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('run --wait on a passing suite: exit 0, text summary, a JUnit report and the step summary', async () => {
    const { suiteId } = await createSuite(stack.app, auth, { candidates: [fast.url] });
    const junit = join(dir, 'pass.xml');
    const stepSummary = join(dir, 'pass-summary.md');
    const result = await rvs(['run', suiteId, '--wait', '--format', 'junit', '--output', junit, '--metadata', 'commit=abc123'], {
      RVS_URL: baseUrl, // no /v1: the CLI adds it
      RVS_API_KEY: key,
      GITHUB_STEP_SUMMARY: stepSummary,
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^PASS: suite under test \(run [0-9a-f-]{36}, exit code 0\)\n/);
    // 50 calls cannot show a 99 % success rate: availability is inconclusive, printed as such, and does not fail the run.
    expect(result.stdout).toContain('1 of 2 checks passed, 1 inconclusive (availability); none failed');
    expect(result.stdout).toMatch(/ {2}PASS {10}latency_p95 {3}p95 [\d.]+ ms \[[\d.]+–[\d.∞]+\] <= 500 ms/);
    expect(result.stdout).toMatch(/ {2}INCONCLUSIVE {2}availability {2}50 of 50 calls succeeded/);
    expect(result.stdout).toMatch(/\nLatency of successful calls, p50 \/ p95 \/ p99 \[95% confidence interval\]:\n {2}candidate {2}[\d.]+ ms \[[\d.]+–[\d.∞]+\]/);
    expect(result.stdout).toMatch(/Dashboard: http:\/\/rvs\.test\/dashboard\/runs\/[0-9a-f-]{36}\?token=/);
    // Progress went to stderr as plain lines (not a TTY), never the key.
    expect(result.stderr).toMatch(/^run [0-9a-f-]{36} queued: http:\/\/127\.0\.0\.1:\d+\/v1\/runs\/[0-9a-f-]{36}\ndashboard \(live\): http:\/\/rvs\.test\/dashboard\/runs\/[0-9a-f-]{36}\?token=\S+\n/);
    expect(result.stderr).toMatch(/\] 50\/50 calls {2}success\n/);
    expect(result.stderr).not.toContain(key);

    const xml = await readFile(junit, 'utf8');
    assertWellFormed(xml);
    expect(attrs(xml, 'testsuite')).toMatchObject({ name: 'suite under test', tests: '2', failures: '0', errors: '0', skipped: '1' });
    expect(count(xml, '<testcase ')).toBe(2);
    expect(count(xml, '<failure ')).toBe(0);
    expect(attrs(xml, 'skipped').message).toMatch(/^50 of 50 calls succeeded .* inconclusive: /);
    expect(attrs(xml, 'testcase')).toMatchObject({ name: 'latency_p95', classname: 'rvs.suite under test' });

    const summary = await readFile(stepSummary, 'utf8');
    expect(summary).toContain('suite under test: PASS');
    expect(summary).toMatch(/\[Open run [0-9a-f-]{36} in the dashboard\]\(http:\/\/rvs\.test\/dashboard\/runs\//);

    // The run carries the metadata given on the command line.
    const runId = /name="run_id" value="([0-9a-f-]{36})"/.exec(xml)![1]!;
    const run = await stack.app.inject({ method: 'GET', url: `/v1/runs/${runId}`, headers: auth });
    expect(run.json()).toMatchObject({ status: 'success', metadata: { commit: 'abc123' }, triggered_by: 'api' });
  });

  it('run --wait with a threshold the candidate misses: exit 1, a failure in the report; verdict <runId> agrees', async () => {
    const { suiteId } = await createSuite(stack.app, auth, { candidates: [slow.url] });
    const junit = join(dir, 'fail.xml');
    const stepSummary = join(dir, 'fail-summary.md');
    const env = { RVS_URL: `${baseUrl}/v1/`, RVS_API_KEY: key, GITHUB_STEP_SUMMARY: stepSummary };
    const result = await rvs(['run', suiteId, '--wait', '--timeout', '2m', '--threshold', 'latency_p95_max_ms=0', '--format', 'junit', '--output', junit], env);
    expect(result.code, result.stderr).toBe(1);
    expect(result.stdout).toMatch(/^FAIL: suite under test \(run [0-9a-f-]{36}, exit code 1\)\n/);
    expect(result.stdout).toMatch(/ {2}FAIL {10}latency_p95 {3}p95 [\d.]+ ms \[[\d.]+–[\d.∞]+\] > 0 ms/);

    const xml = await readFile(junit, 'utf8');
    assertWellFormed(xml);
    expect(attrs(xml, 'testsuite')).toMatchObject({ name: 'suite under test', tests: '2', failures: '1', errors: '0', skipped: '1' });
    expect(count(xml, '<failure ')).toBe(1);
    expect(attrs(xml, 'failure').message).toMatch(/^p95 [\d.]+ ms \[[\d.]+–[\d.∞]+\] &gt; 0 ms$/);
    expect(await readFile(stepSummary, 'utf8')).toContain('suite under test: FAIL');

    const runId = /name="run_id" value="([0-9a-f-]{36})"/.exec(xml)![1]!;
    const verdict = await rvs(['verdict', runId, '--format', 'json'], env);
    expect(verdict.code, verdict.stderr).toBe(1);
    expect(JSON.parse(verdict.stdout)).toMatchObject({
      verdict: 'fail',
      exit_code: 1,
      thresholds: { latency_p95_max_ms: 0 },
      checks: [{ name: 'latency_p95', status: 'fail' }, { name: 'availability', status: 'inconclusive' }],
    });
  });

  it('run without --wait prints the created run and exits 0', async () => {
    const { suiteId } = await createSuite(stack.app, auth, { candidates: [fast.url] });
    const result = await rvs(['run', suiteId], { RVS_URL: baseUrl, RVS_API_KEY: key });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(
      /^run [0-9a-f-]{36} queued\n {2}suite: suite under test\n {2}url: {3}http:\/\/127\.0\.0\.1:\d+\/v1\/runs\/[0-9a-f-]{36}\n {2}dashboard: http:\/\/rvs\.test\/dashboard\/runs\/[0-9a-f-]{36}\?token=\S+\n$/,
    );
    expect(result.stderr).toBe('');
  });

  it('an unknown threshold: exit 3 with the API message and request id on one line', async () => {
    const { suiteId } = await createSuite(stack.app, auth, { candidates: [fast.url] });
    const result = await rvs(['run', suiteId, '--wait', '--threshold', 'bogus_max=1'], { RVS_URL: baseUrl, RVS_API_KEY: key });
    expect(result.code).toBe(3);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^rvs: request is invalid \(thresholds\.bogus_max: unknown field\) \[HTTP 400 validation_error, request_id [\w.:-]+\]\n$/);
  });

  it('a bad API key: exit 3 with one line, and the key is not printed', async () => {
    const { suiteId } = await createSuite(stack.app, auth, { candidates: [fast.url] });
    const badKey = 'rvs_AAAAAAAAAAAA_BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB';
    const result = await rvs(['run', suiteId, '--wait'], { RVS_URL: baseUrl, RVS_API_KEY: badKey });
    expect(result.code).toBe(3);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^rvs: .+ \[HTTP 401 unauthorized, request_id [\w.:-]+\]\n$/);
    expect(result.stderr).not.toContain(badKey);
    expect(result.stderr).not.toContain('BBBBBBBB');
  });

  it('an unreachable service: exit 3 with one line', async () => {
    const port = await freePort();
    const result = await rvs(['run', '0b8a2f7e-1111-4222-8333-444455556666', '--wait'], { RVS_URL: `http://127.0.0.1:${port}`, RVS_API_KEY: key });
    expect(result.code).toBe(3);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(`rvs: cannot reach http://127.0.0.1:${port}/v1: connect ECONNREFUSED 127.0.0.1:${port}\n`);
  });
});
