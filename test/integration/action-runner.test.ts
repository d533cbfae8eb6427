import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { createSuite } from '../helpers/api';
import { answers, startFakeNode, type FakeNode } from '../helpers/json-rpc-node';
import { startStack, type Stack } from '../helpers/stack';

const ROOT = resolve(__dirname, '..', '..');

interface ActionYml {
  inputs: Record<string, { required?: boolean; default?: string }>;
  outputs: Record<string, { value: string }>;
  runs: { using: string; steps: { id?: string; name?: string; env?: Record<string, string>; run: string; shell: string }[] };
}

/** The pull request a `pull_request` workflow runs for: GITHUB_SHA is GitHub's merge commit, not this head. */
const PR_HEAD_SHA = 'feedfacecafebeef00112233445566778899aabb';
const MERGE_SHA = '0123456789abcdef0123456789abcdef01234567';
const PULL_REQUEST_EVENT = {
  action: 'synchronize',
  number: 42,
  pull_request: {
    number: 42,
    head: { ref: 'feature/faster-rpc', sha: PR_HEAD_SHA, repo: { full_name: 'acme/node-ops' } },
    base: { ref: 'main', sha: 'aaaabbbbccccddddeeeeffff0000111122223333' },
  },
  repository: { full_name: 'acme/node-ops' },
};

interface StepResult {
  code: number | null;
  stdout: string;
  stderr: string;
  /** The composite action's outputs, resolved from the step's GITHUB_OUTPUT as a runner resolves them. */
  outputs: Record<string, string>;
  summary: string;
}

/** `name=value` lines and `name<<DELIMITER` blocks, as the runner reads GITHUB_OUTPUT. */
function parseOutputFile(text: string): Record<string, string> {
  const values: Record<string, string> = {};
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i += 1) {
    const line = lines[i]!;
    if (line === '') continue;
    const heredoc = /^([^=<]+)<<(.+)$/.exec(line);
    if (heredoc) {
      const body: string[] = [];
      for (i += 1; lines[i] !== heredoc[2]; i += 1) body.push(lines[i]!);
      values[heredoc[1]!] = body.join('\n');
      continue;
    }
    values[line.slice(0, line.indexOf('='))] = line.slice(line.indexOf('=') + 1);
  }
  return values;
}

/**
 * Runs action.yml's gate step the way a GitHub runner runs a composite action's `run` step: every
 * GITHUB_* file and variable a runner sets for a pull_request job, the step's `env` with
 * `${{ inputs.* }}` replaced by the given input or the input's default from action.yml, the
 * variables an earlier step wrote to GITHUB_ENV (here: the install step's RVS_ACTION_ENTRY, which
 * points at the bundle built once below), its `shell: bash` and its `run` script. The action's
 * outputs are then resolved from `${{ steps.rvs.outputs.* }}`.
 */
async function runStep(action: ActionYml, work: string, entry: string, given: Record<string, string>): Promise<StepResult> {
  await rm(work, { recursive: true, force: true });
  const temp = join(work, '_temp');
  await mkdir(temp, { recursive: true });
  const files = {
    GITHUB_OUTPUT: join(temp, '_runner_file_commands', 'set_output_1'),
    GITHUB_STEP_SUMMARY: join(temp, '_runner_file_commands', 'step_summary_1'),
    GITHUB_ENV: join(temp, '_runner_file_commands', 'set_env_1'),
    GITHUB_PATH: join(temp, '_runner_file_commands', 'add_path_1'),
    GITHUB_STATE: join(temp, '_runner_file_commands', 'save_state_1'),
    GITHUB_EVENT_PATH: join(work, '_github_workflow', 'event.json'),
  };
  for (const file of Object.values(files)) {
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, '');
  }
  await writeFile(files.GITHUB_EVENT_PATH, JSON.stringify(PULL_REQUEST_EVENT));
  // What the install step leaves for the later steps of the job.
  await writeFile(files.GITHUB_ENV, `RVS_ACTION_ENTRY=${entry}\n`);

  const runner: Record<string, string> = {
    ...files,
    PATH: `${dirname(process.execPath)}:/usr/bin:/bin`,
    HOME: work,
    CI: 'true',
    GITHUB_ACTIONS: 'true',
    GITHUB_ACTION: '__acme_rvs-action',
    GITHUB_ACTION_PATH: ROOT,
    GITHUB_ACTION_REPOSITORY: 'acme/rvs-action',
    GITHUB_ACTOR: 'octocat',
    GITHUB_API_URL: 'https://api.github.com',
    GITHUB_BASE_REF: 'main',
    GITHUB_EVENT_NAME: 'pull_request',
    GITHUB_HEAD_REF: 'feature/faster-rpc',
    GITHUB_JOB: 'gate',
    GITHUB_REF: 'refs/pull/42/merge',
    GITHUB_REF_NAME: '42/merge',
    GITHUB_REF_TYPE: 'branch',
    GITHUB_REPOSITORY: 'acme/node-ops',
    GITHUB_REPOSITORY_OWNER: 'acme',
    GITHUB_RUN_ATTEMPT: '1',
    GITHUB_RUN_ID: '7001',
    GITHUB_RUN_NUMBER: '12',
    GITHUB_SERVER_URL: 'https://github.com',
    GITHUB_SHA: MERGE_SHA,
    GITHUB_WORKFLOW: 'pr',
    GITHUB_WORKSPACE: work,
    RUNNER_ARCH: 'X64',
    RUNNER_NAME: 'test-runner',
    RUNNER_OS: 'Linux',
    RUNNER_TEMP: temp,
    RUNNER_TOOL_CACHE: join(work, '_tool'),
  };
  const envFile = Object.fromEntries(
    (await readFile(files.GITHUB_ENV, 'utf8'))
      .split('\n')
      .filter(Boolean)
      .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
  );
  const inputValue = (name: string) => {
    const declared = action.inputs[name];
    if (!declared) throw new Error(`action.yml declares no input ${name}`);
    const value = given[name] ?? declared.default ?? '';
    // The runner refuses a workflow that leaves a required input out; the entry point must cope with an empty one.
    return value;
  };
  for (const name of Object.keys(given)) inputValue(name);
  const step = action.runs.steps.find((s) => s.id === 'rvs')!;
  const stepEnv = Object.fromEntries(
    Object.entries(step.env ?? {}).map(([name, value]) => [name, value.replace(/\$\{\{\s*inputs\.([\w-]+)\s*\}\}/g, (_, input: string) => inputValue(input))]),
  );
  expect(step.shell).toBe('bash');

  const result = await new Promise<{ code: number | null; stdout: string; stderr: string }>((done, reject) => {
    const child = spawn('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', step.run], {
      cwd: work,
      env: { ...runner, ...envFile, ...stepEnv },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => done({ code, stdout, stderr }));
  });
  const stepOutputs = parseOutputFile(await readFile(files.GITHUB_OUTPUT, 'utf8'));
  const outputs = Object.fromEntries(
    Object.entries(action.outputs).map(([name, output]) => [
      name,
      output.value.replace(/\$\{\{\s*steps\.rvs\.outputs\.([\w-]+)\s*\}\}/g, (_, key: string) => stepOutputs[key] ?? ''),
    ]),
  );
  return { ...result, outputs, summary: await readFile(files.GITHUB_STEP_SUMMARY, 'utf8') };
}

describe('the Action run as a runner runs it (pull_request event), against a real API stack', () => {
  let stack: Stack;
  let fast: FakeNode;
  let slow: FakeNode;
  let baseUrl: string;
  let dir: string;
  let entry: string;
  let action: ActionYml;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'rvs-action-runner-'));
    // The entry point as packages/cli builds it (one bundle, a two-line shim), into this test's own folder.
    await build({
      entryPoints: { cli: join(ROOT, 'src/cli/package-entry.ts') },
      outdir: join(dir, 'dist'),
      bundle: true,
      platform: 'node',
      target: 'node20',
      format: 'cjs',
      define: { RVS_CLI_VERSION: '"0.0.0-test"' },
      logLevel: 'warning',
    });
    entry = join(dir, 'dist', 'action.js');
    await writeFile(entry, "'use strict';\nrequire('./cli.js').runActionCli();\n");
    action = parse(await readFile(join(ROOT, 'action.yml'), 'utf8')) as ActionYml;

    stack = await startStack();
    fast = await startFakeNode(answers.ok('0x1234'));
    slow = await startFakeNode(answers.delay(5, answers.ok('0x1234')));
    baseUrl = await stack.app.listen({ host: '127.0.0.1', port: 0 });
  }, 120_000);
  afterAll(async () => {
    await fast?.close();
    await slow?.close();
    await stack?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const HEADER_SECRET = 'preview-token-7f3a9c1e5b';
  const URL_KEY = 'k3y0f7h3pr3v13w00000000000000042';

  it('pass: the suite by name, the pull request head commit, target headers masked and never printed, metadata; outputs and a summary line', async () => {
    const { key, auth } = await stack.newTenant();
    const { suiteId } = await createSuite(stack.app, auth, { candidates: [slow.url] });
    const seenBefore = fast.requests.length;
    const result = await runStep(action, join(dir, 'pass'), entry, {
      'api-url': baseUrl,
      'api-key': key,
      suite: 'suite under test',
      'target-url': `${fast.url}/v2/${URL_KEY}`,
      'target-headers': `x-preview-token: ${HEADER_SECRET}\nx-team=ops`,
      metadata: '{"pr": 42, "labels": ["perf"]}',
      timeout: '2m',
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.outputs).toEqual({
      'run-id': expect.stringMatching(/^[0-9a-f-]{36}$/),
      verdict: 'pass',
      'exit-code': '0',
      'dashboard-url': expect.stringMatching(/^http:\/\/rvs\.test\/dashboard\/runs\/[0-9a-f-]{36}\?token=/),
    });
    const [line, ...rest] = result.summary.split('\n');
    expect(line).toBe(`**rvs: PASS** · suite suite under test · run ${result.outputs['run-id']} · exit code 0 · [dashboard](${result.outputs['dashboard-url']})`);
    expect(rest.join('\n')).toContain('suite under test: PASS');

    // Masked before anything else is printed; printed nowhere else, written to no file.
    const stdoutLines = result.stdout.split('\n');
    // The target URL's key (a path segment a provider's key would be) is masked too.
    expect(stdoutLines.slice(0, 4)).toEqual([`::add-mask::${key}`, `::add-mask::${HEADER_SECRET}`, '::add-mask::ops', `::add-mask::${URL_KEY}`]);
    const printed = stdoutLines.slice(4).join('\n') + result.stderr + result.summary + JSON.stringify(result.outputs);
    expect(printed).not.toContain(HEADER_SECRET);
    expect(printed).not.toContain(URL_KEY);

    const run = (await stack.app.inject({ method: 'GET', url: `/v1/runs/${result.outputs['run-id']}`, headers: auth })).json<Record<string, any>>();
    expect(run.test_suite_id).toBe(suiteId);
    expect(run.commit).toBe(PR_HEAD_SHA);
    expect(run.branch).toBe('feature/faster-rpc');
    expect(run.metadata).toEqual({ pr: 42, labels: ['perf'] });
    // The headers reached the preview endpoint.
    const probes = fast.requests.slice(seenBefore);
    expect(probes.length).toBeGreaterThan(0);
    expect(probes.every((r) => r.headers['x-preview-token'] === HEADER_SECRET && r.headers['x-team'] === 'ops')).toBe(true);
  });

  it('fail: exit code 1, the outputs and a summary line, and the job fails', async () => {
    const { key, auth } = await stack.newTenant();
    const { suiteId } = await createSuite(stack.app, auth, { candidates: [slow.url] });
    const result = await runStep(action, join(dir, 'fail'), entry, {
      'api-url': baseUrl,
      'api-key': key,
      suite: suiteId,
      thresholds: 'latency_p95_max_ms=0',
      commit: 'abcdef1234567',
    });
    expect(result.code, result.stderr).toBe(1);
    expect(result.outputs).toMatchObject({ verdict: 'fail', 'exit-code': '1', 'run-id': expect.stringMatching(/^[0-9a-f-]{36}$/) });
    expect(result.outputs['dashboard-url']).toContain(result.outputs['run-id']);
    expect(result.summary.split('\n')[0]).toBe(`**rvs: FAIL** · suite ${suiteId} · run ${result.outputs['run-id']} · exit code 1 · [dashboard](${result.outputs['dashboard-url']})`);
    expect(result.stdout).toMatch(/\n::error title=rvs verdict fail::.+\n$/);
    // The commit input wins over the event's head commit.
    const run = (await stack.app.inject({ method: 'GET', url: `/v1/runs/${result.outputs['run-id']}`, headers: auth })).json<Record<string, any>>();
    expect(run.commit).toBe('abcdef1234567');
  });

  it('error (exit 3): an unknown suite name, and a name two suites share (their ids listed); outputs and a summary line each', async () => {
    const { key, auth } = await stack.newTenant();
    const first = await createSuite(stack.app, auth, { candidates: [fast.url] });
    const unknown = await runStep(action, join(dir, 'unknown'), entry, { 'api-url': baseUrl, 'api-key': key, suite: 'no-such-suite' });
    expect(unknown.code).toBe(3);
    expect(unknown.outputs).toEqual({ 'run-id': '', verdict: '', 'exit-code': '3', 'dashboard-url': '' });
    expect(unknown.summary).toBe(
      '**rvs: no verdict** · suite no-such-suite · exit code 3 · no suite named "no-such-suite" in this tenant (names are exact and case-sensitive; rvs apply prints each suite\'s id and name)\n',
    );
    expect(unknown.stdout).toContain('::error title=rvs::no pass verdict (exit code 3): no suite named "no-such-suite"');

    const second = await createSuite(stack.app, auth, { candidates: [fast.url] });
    const ambiguous = await runStep(action, join(dir, 'ambiguous'), entry, { 'api-url': baseUrl, 'api-key': key, suite: 'suite under test', wait: 'false' });
    expect(ambiguous.code).toBe(3);
    expect(ambiguous.outputs).toEqual({ 'run-id': '', verdict: '', 'exit-code': '3', 'dashboard-url': '' });
    expect(ambiguous.summary).toMatch(/^\*\*rvs: no verdict\*\* · suite suite under test · exit code 3 · 2 suites are named "suite under test": .+; run one by its id, or rename all but one\n$/);
    for (const id of [first.suiteId, second.suiteId]) expect(ambiguous.summary).toContain(`${id} (suite under test)`);
    const runs = (await stack.app.inject({ method: 'GET', url: '/v1/runs', headers: auth })).json<{ data: unknown[] }>();
    expect(runs.data).toEqual([]);
  });

  it('bad input: exit 3 with the outputs and a summary line; nothing is sent', async () => {
    const { key } = await stack.newTenant();
    const badJson = await runStep(action, join(dir, 'bad-metadata'), entry, { 'api-url': baseUrl, 'api-key': key, suite: 'x', metadata: '{pr: 42}' });
    expect(badJson.code).toBe(3);
    expect(badJson.outputs).toEqual({ 'run-id': '', verdict: '', 'exit-code': '3', 'dashboard-url': '' });
    expect(badJson.summary).toBe('**rvs: no verdict** · suite x · exit code 3 · input metadata must be a JSON object (it is not valid JSON)\n');
    expect(badJson.stdout).toBe('::error::input metadata must be a JSON object (it is not valid JSON)\n');

    // A malformed header line names its line, never its value; the key, read first, is masked.
    const badHeader = await runStep(action, join(dir, 'bad-header'), entry, {
      'api-url': baseUrl,
      'api-key': key,
      suite: 'x',
      'target-url': fast.url,
      'target-headers': HEADER_SECRET,
    });
    expect(badHeader.code).toBe(3);
    expect(badHeader.outputs['exit-code']).toBe('3');
    expect(badHeader.summary).toBe('**rvs: no verdict** · suite x · exit code 3 · input target-headers: line 1 is not "name: value"\n');
    expect(badHeader.stdout + badHeader.stderr + badHeader.summary).not.toContain(HEADER_SECRET);

    const missing = await runStep(action, join(dir, 'missing-key'), entry, { 'api-url': baseUrl, suite: 'x' });
    expect(missing.code).toBe(3);
    expect(missing.outputs['exit-code']).toBe('3');
    expect(missing.summary).toBe('**rvs: no verdict** · suite x · exit code 3 · input api-key is required\n');
  });

  it('wait: false triggers only, and still sets dashboard-url and writes its summary line', async () => {
    const { key, auth } = await stack.newTenant();
    await createSuite(stack.app, auth, { candidates: [fast.url] });
    const result = await runStep(action, join(dir, 'trigger'), entry, { 'api-url': baseUrl, 'api-key': key, suite: 'suite under test', wait: 'false' });
    expect(result.code, result.stderr).toBe(0);
    expect(result.outputs).toEqual({
      'run-id': expect.stringMatching(/^[0-9a-f-]{36}$/),
      verdict: '',
      'exit-code': '0',
      'dashboard-url': expect.stringMatching(/^http:\/\/rvs\.test\/dashboard\/runs\/[0-9a-f-]{36}\?token=/),
    });
    expect(result.outputs['dashboard-url']).toContain(result.outputs['run-id']);
    expect(result.summary).toBe(`**rvs: triggered** · suite suite under test · run ${result.outputs['run-id']} (not waited for) · [dashboard](${result.outputs['dashboard-url']})\n`);
  });
});
