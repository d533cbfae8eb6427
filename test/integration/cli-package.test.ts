import { execFile, spawn } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { readInputs } from '../../src/cli/action';
import { createSuite } from '../helpers/api';
import { answers, startFakeNode, type FakeNode } from '../helpers/json-rpc-node';
import { startStack, type Stack } from '../helpers/stack';

const ROOT = resolve(__dirname, '..', '..');
const PACKAGE = join(ROOT, 'packages', 'cli');
const run = promisify(execFile);

interface Result {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * A process with nothing of this repository around it: the working directory is a temporary one
 * (no node_modules above it), PATH holds node's directory and the system's, and no NODE_* or RVS_*
 * variable of ours leaks in.
 */
function spawnBare(command: string, args: string[], cwd: string, env: Record<string, string>): Promise<Result> {
  const bare = { PATH: `${dirname(process.execPath)}:/usr/bin:/bin`, HOME: cwd, ...env };
  return new Promise((done, reject) => {
    const child = spawn(command, args, { cwd, env: bare, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => done({ code, stdout, stderr }));
  });
}

describe('the packed CLI, installed into an empty prefix, and the GitHub Action entry point', () => {
  let stack: Stack;
  let fast: FakeNode;
  let slow: FakeNode;
  let baseUrl: string;
  let dir: string;
  let prefix: string;
  let key: string;
  let auth: { authorization: string };

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'rvs-cli-package-'));
    // npm pack runs the package's prepack (the build); the tarball is what a user installs.
    const packed = await run('npm', ['pack', '--json', '--pack-destination', dir], { cwd: PACKAGE });
    const [{ filename }] = JSON.parse(packed.stdout) as [{ filename: string }];
    prefix = join(dir, 'prefix');
    // An empty npm cache and --offline: the install cannot fetch anything, so the package must
    // need nothing but itself.
    await run('npm', ['install', '-g', '--prefix', prefix, '--offline', '--cache', join(dir, 'npm-cache'), '--no-audit', '--no-fund', join(dir, filename)], {
      cwd: dir,
    });

    stack = await startStack();
    fast = await startFakeNode(answers.ok('0x1234'));
    slow = await startFakeNode(answers.delay(5, answers.ok('0x1234')));
    baseUrl = await stack.app.listen({ host: '127.0.0.1', port: 0 });
    ({ key, auth } = await stack.newTenant());
  }, 180_000);
  afterAll(async () => {
    await fast?.close();
    await slow?.close();
    await stack?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const installed = () => join(prefix, 'lib', 'node_modules', '@rvs', 'cli');

  it('installs as plain JavaScript with no dependencies: no node_modules, no TypeScript, no tsx', async () => {
    const files = await readdir(installed(), { recursive: true });
    expect(files.sort()).toEqual(['dist', 'dist/action.js', 'dist/cli.js', 'dist/rvs-file.schema.json', 'dist/rvs.js', 'package.json']);
    const bundle = await readFile(join(installed(), 'dist', 'cli.js'), 'utf8');
    const required = [...bundle.matchAll(/require\("([^"]+)"\)/g)].map((m) => m[1]!);
    // Node built-ins only (a few under their old unprefixed names, from the bundled libraries).
    expect(required.filter((name) => !name.startsWith('node:') && !['buffer', 'process'].includes(name))).toEqual([]);
    const version = await spawnBare(join(prefix, 'bin', 'rvs'), ['--version'], dir, {});
    expect(version).toEqual({ code: 0, stdout: 'rvs 0.1.0\n', stderr: '' });
    // The schema it ships is the one the service publishes.
    const served = await (await fetch(`${baseUrl}/v1/schemas/rvs-file.json`)).json();
    expect(JSON.parse(await readFile(join(installed(), 'dist', 'rvs-file.schema.json'), 'utf8'))).toEqual(served);
  });

  it('the installed rvs gates a run: exit 1 on a failing threshold, 0 on a pass', async () => {
    const failing = await createSuite(stack.app, auth, { candidates: [slow.url] });
    const env = { RVS_URL: baseUrl, RVS_API_KEY: key };
    const junit = join(dir, 'fail.xml');
    const fail = await spawnBare(join(prefix, 'bin', 'rvs'), ['run', failing.suiteId, '--wait', '--threshold', 'latency_p95_max_ms=0', '--format', 'junit', '--output', junit], dir, env);
    expect(fail.code, fail.stderr).toBe(1);
    expect(fail.stdout).toMatch(/^FAIL: suite under test \(run [0-9a-f-]{36}, exit code 1\)\n/);
    expect(await readFile(junit, 'utf8')).toMatch(/<testsuite name="suite under test" tests="2" failures="1"/);

    const passing = await createSuite(stack.app, auth, { candidates: [fast.url] });
    const pass = await spawnBare(join(prefix, 'bin', 'rvs'), ['run', passing.suiteId, '--wait'], dir, env);
    expect(pass.code, pass.stderr).toBe(0);
    expect(pass.stdout).toMatch(/^PASS: suite under test \(run [0-9a-f-]{36}, exit code 0\)\n/);
  });

  /** The environment GitHub gives an action's entry point, inputs spelled as GitHub spells them. */
  async function githubEnv(name: string, inputs: Record<string, string>) {
    const work = join(dir, name);
    await mkdir(work, { recursive: true });
    const files = { GITHUB_OUTPUT: join(work, 'output'), GITHUB_STEP_SUMMARY: join(work, 'summary.md') };
    await writeFile(files.GITHUB_OUTPUT, '');
    await writeFile(files.GITHUB_STEP_SUMMARY, '');
    const env = {
      ...files,
      GITHUB_ACTIONS: 'true',
      GITHUB_WORKSPACE: work,
      GITHUB_REF_NAME: 'main',
      GITHUB_SHA: '0123456789abcdef0123456789abcdef01234567',
      ...Object.fromEntries(Object.entries(inputs).map(([input, value]) => [`INPUT_${input.toUpperCase()}`, value])),
    };
    return { work, files, env };
  }

  it('the Action entry point with a GitHub-like environment: outputs, step summary, JUnit, and the job fails on a failing verdict', async () => {
    const { suiteId } = await createSuite(stack.app, auth, { candidates: [slow.url] });
    const { work, files, env } = await githubEnv('action-fail', {
      'api-url': baseUrl,
      'api-key': key,
      suite: suiteId,
      wait: 'true',
      timeout: '2m',
      thresholds: 'latency_p95_max_ms=0\nsuccess_rate_min_pct=50',
      junit: 'rvs-junit.xml',
    });
    const result = await spawnBare(process.execPath, [join(installed(), 'dist', 'action.js')], work, env);
    expect(result.code, result.stderr).toBe(1);
    expect(result.stdout.split('\n')[0]).toBe(`::add-mask::${key}`);
    expect(result.stdout).toMatch(/\n::error title=rvs verdict fail::.+\n$/);
    expect(result.stderr).not.toContain(key);

    const outputs = Object.fromEntries(
      (await readFile(files.GITHUB_OUTPUT, 'utf8'))
        .trim()
        .split('\n')
        .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
    );
    expect(outputs).toEqual({
      'run-id': expect.stringMatching(/^[0-9a-f-]{36}$/),
      verdict: 'fail',
      'exit-code': '1',
      'dashboard-url': expect.stringMatching(/^http:\/\/rvs\.test\/dashboard\/runs\/[0-9a-f-]{36}\?token=/),
    });
    expect(outputs['dashboard-url']).toContain(outputs['run-id']);
    // Every dashboard token is masked before the log first shows it: the verdict's on stdout, the live link's on stderr.
    const verdictToken = /[?&]token=([^&\s]+)/.exec(outputs['dashboard-url']!)![1]!;
    expect(result.stdout.indexOf(verdictToken)).toBe(result.stdout.indexOf(`::add-mask::${verdictToken}\n`) + '::add-mask::'.length);
    expect(result.stdout).toContain(`token=${verdictToken}`);
    const liveToken = /dashboard \(live\): \S+[?&]token=([^&\s]+)/.exec(result.stderr)![1]!;
    expect(result.stderr.indexOf(liveToken)).toBe(result.stderr.indexOf(`::add-mask::${liveToken}\n`) + '::add-mask::'.length);
    expect(await readFile(files.GITHUB_STEP_SUMMARY, 'utf8')).toContain('suite under test: FAIL');
    // The JUnit path is relative to the job's working directory, like any path a step is given.
    expect(await readFile(join(work, 'rvs-junit.xml'), 'utf8')).toContain(`<property name="run_id" value="${outputs['run-id']}"/>`);

    // Both threshold overrides reached the run.
    const runBody = (await stack.app.inject({ method: 'GET', url: `/v1/runs/${outputs['run-id']}`, headers: auth })).json<Record<string, any>>();
    expect(runBody.config_snapshot.thresholds).toMatchObject({ latency_p95_max_ms: 0, success_rate_min_pct: 50 });
  });

  it('the Action entry point on a passing suite exits 0 with verdict pass; without wait it only triggers', async () => {
    const { suiteId } = await createSuite(stack.app, auth, { candidates: [fast.url] });
    const passing = await githubEnv('action-pass', { 'api-url': `${baseUrl}/v1`, 'api-key': key, suite: suiteId });
    const pass = await spawnBare(process.execPath, [join(installed(), 'dist', 'action.js')], passing.work, passing.env);
    expect(pass.code, pass.stderr).toBe(0);
    const output = await readFile(passing.files.GITHUB_OUTPUT, 'utf8');
    expect(output).toMatch(/^run-id=[0-9a-f-]{36}\nverdict=pass\nexit-code=0\ndashboard-url=http:\/\/rvs\.test\/dashboard\/runs\/[0-9a-f-]{36}\?token=\S+\n$/);
    expect(await readFile(passing.files.GITHUB_STEP_SUMMARY, 'utf8')).toContain('suite under test: PASS');

    const triggered = await githubEnv('action-trigger', { 'api-url': baseUrl, 'api-key': key, suite: suiteId, wait: 'false' });
    const trigger = await spawnBare(process.execPath, [join(installed(), 'dist', 'action.js')], triggered.work, triggered.env);
    expect(trigger.code, trigger.stderr).toBe(0);
    // Without wait the run has a dashboard page all the same.
    expect(await readFile(triggered.files.GITHUB_OUTPUT, 'utf8')).toMatch(/^run-id=[0-9a-f-]{36}\nverdict=\nexit-code=0\ndashboard-url=http:\/\/rvs\.test\/dashboard\/runs\/[0-9a-f-]{36}\?token=\S+\n$/);
    expect(await readFile(triggered.files.GITHUB_STEP_SUMMARY, 'utf8')).toMatch(/^\*\*rvs: triggered\*\* · suite [0-9a-f-]{36} · run [0-9a-f-]{36} \(not waited for\) · \[dashboard\]\(http:\/\/rvs\.test\/dashboard\/runs\/\S+\)\n$/);

    const missing = await githubEnv('action-missing', { 'api-url': baseUrl, suite: suiteId });
    const refused = await spawnBare(process.execPath, [join(installed(), 'dist', 'action.js')], missing.work, missing.env);
    expect(refused).toMatchObject({ code: 3, stdout: '::error::input api-key is required\n' });
    // A bad input writes the outputs too.
    expect(await readFile(missing.files.GITHUB_OUTPUT, 'utf8')).toBe('run-id=\nverdict=\nexit-code=3\ndashboard-url=\n');
  });

  it("the README's curl-only recipe gates a run: exit 1 on a failing threshold, 0 on a pass", async () => {
    const readme = await readFile(join(ROOT, 'README.md'), 'utf8');
    const script = /<!-- curl-recipe:[^\n]*-->\n```sh\n([\s\S]*?)```/.exec(readme)![1]!;
    const work = join(dir, 'curl');
    await mkdir(work, { recursive: true });
    const failing = await createSuite(stack.app, auth, { candidates: [slow.url], config: { thresholds: { latency_p95_max_ms: 0 } } });
    const fail = await spawnBare('bash', ['-c', script], work, { RVS_URL: baseUrl, RVS_API_KEY: key, SUITE_ID: failing.suiteId });
    expect(fail.code, fail.stderr).toBe(1);
    expect(fail.stdout).toMatch(/^run http:\/\/127\.0\.0\.1:\d+\/v1\/runs\/[0-9a-f-]{36}\n"verdict":"fail"\n$/);
    const passing = await createSuite(stack.app, auth, { candidates: [fast.url] });
    const pass = await spawnBare('bash', ['-c', script], work, { RVS_URL: baseUrl, RVS_API_KEY: key, SUITE_ID: passing.suiteId });
    expect(pass.code, pass.stderr).toBe(0);
    expect(pass.stdout).toMatch(/"verdict":"pass"\n$/);
  });

  it('action.yml passes every input it declares to the entry point, and runs the entry point the package builds', async () => {
    const action = parse(await readFile(join(ROOT, 'action.yml'), 'utf8')) as {
      inputs: Record<string, { required?: boolean; default?: string }>;
      outputs: Record<string, { value: string }>;
      runs: { using: string; steps: { id?: string; env?: Record<string, string>; run: string }[] };
    };
    expect(action.runs.using).toBe('composite');
    expect(Object.keys(action.outputs).sort()).toEqual(['dashboard-url', 'exit-code', 'run-id', 'verdict']);
    for (const [name, output] of Object.entries(action.outputs)) expect(output.value).toBe(`\${{ steps.rvs.outputs.${name} }}`);
    const step = action.runs.steps.find((s) => s.id === 'rvs')!;
    expect(step.run).toBe('node "$RVS_ACTION_ENTRY"');
    expect(action.runs.steps[0]!.run).toContain('$GITHUB_ACTION_PATH/packages/cli/dist/action.js');

    // Each input (but `cli`, which only the install step reads) reaches readInputs under the
    // variable the step sets: a value given to every input comes back in every field.
    const inputs = Object.keys(action.inputs).filter((name) => name !== 'cli');
    expect(inputs.sort()).toEqual(['api-key', 'api-url', 'branch', 'commit', 'junit', 'metadata', 'suite', 'target-headers', 'target-url', 'thresholds', 'timeout', 'wait']);
    const env: Record<string, string> = {};
    const given: Record<string, string> = { wait: 'false', 'target-headers': 'x-h: value-of-target-headers', metadata: '{"v":"value-of-metadata"}' };
    for (const name of inputs) {
      const variable = Object.entries(step.env!).find(([, value]) => value === `\${{ inputs.${name} }}`)?.[0];
      expect(variable, name).toBeDefined();
      env[variable!] = given[name] ?? `value-of-${name}`;
    }
    expect(readInputs(env)).toEqual({
      apiUrl: 'value-of-api-url',
      apiKey: 'value-of-api-key',
      suite: 'value-of-suite',
      wait: false,
      timeout: 'value-of-timeout',
      targetUrl: 'value-of-target-url',
      targetHeaders: { 'x-h': 'value-of-target-headers' },
      branch: 'value-of-branch',
      commit: 'value-of-commit',
      metadata: { v: 'value-of-metadata' },
      thresholds: ['value-of-thresholds'],
      junit: 'value-of-junit',
    });
  });
});
