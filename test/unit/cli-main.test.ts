import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { exitCodeOf, main } from '../../src/cli/main';

const SUITE = '0b8a2f7e-1111-4222-8333-444455556666';
const RUN = '9c1d2e3f-aaaa-4bbb-8ccc-ddddeeeeffff';
const KEY = 'rvs_abcdefghijkl_0123456789abcdef0123456789abcdef';
const BASE = 'http://rvs.test/v1';
const ENV = { RVS_URL: 'http://rvs.test', RVS_API_KEY: KEY };

type Reply = { status: number; body: unknown; headers?: Record<string, string> } | Error;
interface Seen {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: unknown;
}

const runBody = (status: string, done = 0) => ({
  id: RUN,
  status,
  progress: { calls_planned: 100, calls_done: done },
  suite: { id: SUITE, name: 'smoke' },
  started_at: '2026-01-01T00:00:00.000Z',
  finished_at: status === 'success' ? '2026-01-01T00:00:01.000Z' : null,
});

const verdictBody = (verdict = 'pass', exit_code = 0) => ({
  verdict,
  exit_code,
  summary: `summary ${verdict}`,
  checks: [{ name: 'latency_p95', status: verdict === 'pass' ? 'pass' : 'fail', message: 'p95 3 ms', details: {} }],
  markdown_summary: `### smoke: ${verdict.toUpperCase()}`,
  dashboard_url: `http://rvs.test/dashboard/runs/${RUN}?token=t`,
  reference_comparison: null,
  baseline_comparison: null,
  thresholds: {},
});

const apiError = (status: number, code: string, message: string, details: unknown[] = []) => ({
  status,
  body: { error: { code, message, details, request_id: 'req-123' } },
});

/** A scripted API: each route answers from its queue; the last answer repeats. */
function fakeApi(routes: Record<string, Reply[]>) {
  const seen: Seen[] = [];
  const fetch = async (url: string, init: RequestInit) => {
    const headers = Object.fromEntries(Object.entries((init.headers ?? {}) as Record<string, string>).map(([k, v]) => [k.toLowerCase(), v]));
    seen.push({ method: init.method ?? 'GET', url, headers, body: init.body ? JSON.parse(String(init.body)) : undefined });
    const path = url.slice(BASE.length).split('?')[0]!;
    const key = `${init.method ?? 'GET'} ${path}`;
    const queue = routes[key];
    if (!queue || queue.length === 0) throw new Error(`unexpected request ${key}`);
    const reply = queue.length > 1 ? queue.shift()! : queue[0]!;
    if (reply instanceof Error) throw reply;
    return new Response(JSON.stringify(reply.body), {
      status: reply.status,
      headers: { 'content-type': 'application/json', ...reply.headers },
    });
  };
  return { fetch, seen };
}

function harness(argv: string[], routes: Record<string, Reply[]>, env: Record<string, string> = ENV, isTTY = false) {
  const api = fakeApi(routes);
  const stdout: string[] = [];
  const stderr: string[] = [];
  let clock = 1_000_000;
  const io = {
    argv,
    env,
    stdout: { write: (s: string) => stdout.push(s) },
    stderr: { isTTY, write: (s: string) => stderr.push(s) },
    fetch: api.fetch,
    now: () => clock,
    sleep: async (ms: number) => {
      clock += ms;
    },
    version: '9.9.9',
  };
  return {
    run: () => main(io),
    seen: api.seen,
    stdout: () => stdout.join(''),
    stderr: () => stderr.join(''),
    elapsed: () => clock - 1_000_000,
  };
}

describe('rvs run', () => {
  it('without --wait: triggers once with the options in the body and prints the run', async () => {
    const h = harness(
      ['run', SUITE, '--threshold', 'latency_p95_max_ms=300', '--threshold', 'correctness_enabled=false', '--metadata', 'commit=abc', '--baseline', RUN],
      { [`POST /suites/${SUITE}/runs`]: [{ status: 201, body: runBody('queued') }] },
    );
    expect(await h.run()).toBe(0);
    expect(h.seen).toHaveLength(1);
    const [trigger] = h.seen;
    expect(trigger!.url).toBe(`${BASE}/suites/${SUITE}/runs`);
    expect(trigger!.body).toEqual({
      baseline_run_id: RUN,
      thresholds: { latency_p95_max_ms: 300, correctness_enabled: false },
      metadata: { commit: 'abc' },
    });
    expect(trigger!.headers).toMatchObject({
      authorization: `Bearer ${KEY}`,
      'content-type': 'application/json',
      'user-agent': expect.stringMatching(/^rvs\/9\.9\.9 node\//),
      'idempotency-key': expect.stringMatching(/^[0-9a-f-]{36}$/),
    });
    expect(h.stdout()).toBe(`run ${RUN} queued\n  suite: smoke\n  url:   ${BASE}/runs/${RUN}\n`);
    expect(h.stderr()).toBe('');
  });

  it('sends an empty JSON object when there is nothing to override, and a fresh Idempotency-Key each time', async () => {
    const keys: string[] = [];
    for (let i = 0; i < 2; i += 1) {
      const h = harness(['run', SUITE], { [`POST /suites/${SUITE}/runs`]: [{ status: 201, body: runBody('queued') }] });
      await h.run();
      expect(h.seen[0]!.body).toEqual({});
      keys.push(h.seen[0]!.headers['idempotency-key']!);
    }
    expect(keys[0]).not.toBe(keys[1]);
  });

  it('--wait: polls every second until terminal, then long-polls the verdict and exits with its exit code', async () => {
    const h = harness(['run', SUITE, '--wait'], {
      [`POST /suites/${SUITE}/runs`]: [{ status: 201, body: runBody('queued') }],
      [`GET /runs/${RUN}`]: [{ status: 200, body: runBody('running', 40) }, { status: 200, body: runBody('success', 100) }],
      [`GET /runs/${RUN}/verdict`]: [apiError(409, 'run_not_finished', 'run is running'), { status: 200, body: verdictBody('fail', 1) }],
    });
    expect(await h.run()).toBe(1);
    expect(h.seen.map((s) => `${s.method} ${s.url.slice(BASE.length)}`)).toEqual([
      `POST /suites/${SUITE}/runs`,
      `GET /runs/${RUN}`,
      `GET /runs/${RUN}`,
      `GET /runs/${RUN}/verdict?wait=30`,
      `GET /runs/${RUN}/verdict?wait=30`,
    ]);
    expect(h.stdout()).toContain(`FAIL: smoke (run ${RUN}, exit code 1)`);
    expect(h.stderr()).toContain(`run ${RUN} queued: ${BASE}/runs/${RUN}\n`);
    expect(h.stderr()).toContain('[####......] 40/100 calls  running\n');
    expect(h.stderr()).toContain('[##########] 100/100 calls  success\n');
  });

  it('--wait: a 400 for ?wait= falls back to plain polling', async () => {
    const h = harness(['run', SUITE, '--wait'], {
      [`POST /suites/${SUITE}/runs`]: [{ status: 201, body: runBody('success', 100) }],
      [`GET /runs/${RUN}/verdict`]: [apiError(400, 'validation_error', 'request is invalid', [{ field: 'wait', message: 'unknown field' }]), { status: 200, body: verdictBody() }],
    });
    expect(await h.run()).toBe(0);
    expect(h.seen.slice(1).map((s) => s.url.slice(BASE.length))).toEqual([`/runs/${RUN}/verdict?wait=30`, `/runs/${RUN}/verdict`]);
  });

  it('--wait: rides out a transient outage while polling', async () => {
    const h = harness(['run', SUITE, '--wait'], {
      [`POST /suites/${SUITE}/runs`]: [{ status: 201, body: runBody('queued') }],
      [`GET /runs/${RUN}`]: [
        apiError(503, 'service_unavailable', 'down'),
        Object.assign(new TypeError('fetch failed'), { cause: new Error('connect ECONNREFUSED 127.0.0.1:3000') }),
        { ...apiError(429, 'rate_limited', 'slow down'), headers: { 'retry-after': '2' } },
        { status: 200, body: runBody('success', 100) },
      ],
      [`GET /runs/${RUN}/verdict`]: [{ status: 200, body: verdictBody() }],
    });
    expect(await h.run()).toBe(0);
    expect(h.stdout()).toContain('PASS: smoke');
  });

  it('--wait --timeout: exits 3 with one line saying the run is still going', async () => {
    const h = harness(['run', SUITE, '--wait', '--timeout', '5s'], {
      [`POST /suites/${SUITE}/runs`]: [{ status: 201, body: runBody('queued') }],
      [`GET /runs/${RUN}`]: [{ status: 200, body: runBody('running', 10) }],
    });
    expect(await h.run()).toBe(3);
    expect(h.elapsed()).toBe(5_000);
    const lines = h.stderr().trimEnd().split('\n');
    expect(lines.filter((l) => l.startsWith('rvs:'))).toEqual([`rvs: timed out waiting for run ${RUN}; it is still running`]);
    expect(lines.at(-1)).toBe(`rvs: timed out waiting for run ${RUN}; it is still running`);
    expect(h.stdout()).toBe('');
  });

  it('--wait: prints the run\'s live dashboard link at the start, before any progress', async () => {
    const dashboard = `http://rvs.test/dashboard/runs/${RUN}?token=live`;
    const h = harness(['run', SUITE, '--wait'], {
      [`POST /suites/${SUITE}/runs`]: [{ status: 201, body: { ...runBody('queued'), dashboard_url: dashboard } }],
      [`GET /runs/${RUN}`]: [{ status: 200, body: runBody('success', 100) }],
      [`GET /runs/${RUN}/verdict`]: [{ status: 200, body: verdictBody() }],
    });
    expect(await h.run()).toBe(0);
    const lines = h.stderr().split('\n');
    expect(lines[0]).toBe(`run ${RUN} queued: ${BASE}/runs/${RUN}`);
    expect(lines[1]).toBe(`dashboard (live): ${dashboard}`);
    expect(lines[2]).toMatch(/calls {2}queued$/);
  });

  it('without --wait: prints the run\'s dashboard link with it', async () => {
    const dashboard = `http://rvs.test/dashboard/runs/${RUN}?token=live`;
    const h = harness(['run', SUITE], { [`POST /suites/${SUITE}/runs`]: [{ status: 201, body: { ...runBody('queued'), dashboard_url: dashboard } }] });
    expect(await h.run()).toBe(0);
    expect(h.stdout()).toBe(`run ${RUN} queued\n  suite: smoke\n  url:   ${BASE}/runs/${RUN}\n  dashboard: ${dashboard}\n`);
  });

  it('under GitHub Actions: masks every dashboard token (::add-mask::) on the stream that shows it, before the line that does', async () => {
    const live = `http://rvs.test/dashboard/runs/${RUN}?token=live.Tok%2Ben`;
    const h = harness(
      ['run', SUITE, '--wait'],
      {
        [`POST /suites/${SUITE}/runs`]: [{ status: 201, body: { ...runBody('queued'), dashboard_url: live } }],
        [`GET /runs/${RUN}`]: [{ status: 200, body: runBody('success', 100) }],
        [`GET /runs/${RUN}/verdict`]: [{ status: 200, body: { ...verdictBody(), dashboard_url: `http://rvs.test/dashboard/runs/${RUN}?token=verdictTok` } }],
      },
      { ...ENV, GITHUB_ACTIONS: 'true' },
    );
    expect(await h.run()).toBe(0);
    const stderr = h.stderr().split('\n');
    // Escaped as a workflow command (`%` → %25): the runner unescapes it to the token as the link shows it.
    expect(stderr[0]).toBe('::add-mask::live.Tok%252Ben');
    expect(stderr[1]).toBe('::add-mask::live.Tok+en');
    expect(stderr.findIndex((l) => l.includes('token=live'))).toBeGreaterThan(1);
    const stdout = h.stdout().split('\n');
    expect(stdout[0]).toBe('::add-mask::verdictTok');
    expect(stdout.findIndex((l) => l.includes('token=verdictTok'))).toBeGreaterThan(0);

    // Without --wait the run's link is on stdout, masked there first; outside Actions nothing is masked.
    const once = harness(['run', SUITE], { [`POST /suites/${SUITE}/runs`]: [{ status: 201, body: { ...runBody('queued'), dashboard_url: live } }] }, { ...ENV, GITHUB_ACTIONS: 'true' });
    expect(await once.run()).toBe(0);
    expect(once.stdout()).toMatch(/^::add-mask::live\.Tok%252Ben\n::add-mask::live\.Tok\+en\nrun /);
    const local = harness(['run', SUITE], { [`POST /suites/${SUITE}/runs`]: [{ status: 201, body: { ...runBody('queued'), dashboard_url: live } }] });
    expect(await local.run()).toBe(0);
    expect(local.stdout()).not.toContain('::add-mask::');
  });

  it('--wait --timeout --cancel-on-timeout: cancels the run it gave up on, and still exits 3', async () => {
    const h = harness(['run', SUITE, '--wait', '--timeout', '5s', '--cancel-on-timeout'], {
      [`POST /suites/${SUITE}/runs`]: [{ status: 201, body: runBody('queued') }],
      [`GET /runs/${RUN}`]: [{ status: 200, body: runBody('running', 10) }],
      [`POST /runs/${RUN}/cancel`]: [{ status: 202, body: runBody('running', 10) }],
    });
    expect(await h.run()).toBe(3);
    expect(h.seen.at(-1)).toMatchObject({ method: 'POST', url: `${BASE}/runs/${RUN}/cancel` });
    expect(h.stderr().trimEnd().split('\n').at(-1)).toBe(`rvs: timed out waiting for run ${RUN}; it is still running; cancelled it (now running)`);
  });

  it('--cancel-on-timeout: a run that finished meanwhile (409) is said so; without the flag nothing is cancelled', async () => {
    const h = harness(['verdict', RUN, '--wait', '--timeout', '2s', '--cancel-on-timeout'], {
      [`GET /runs/${RUN}`]: [{ status: 200, body: runBody('running', 10) }],
      [`POST /runs/${RUN}/cancel`]: [apiError(409, 'conflict', 'run is already finished')],
    });
    expect(await h.run()).toBe(3);
    expect(h.stderr().trimEnd().split('\n').at(-1)).toBe(`rvs: timed out waiting for run ${RUN}; it is still running; it finished before it could be cancelled`);
    const plain = harness(['run', SUITE, '--wait', '--timeout', '5s'], {
      [`POST /suites/${SUITE}/runs`]: [{ status: 201, body: runBody('queued') }],
      [`GET /runs/${RUN}`]: [{ status: 200, body: runBody('running', 10) }],
    });
    expect(await plain.run()).toBe(3);
    expect(plain.seen.some((s) => s.url.endsWith('/cancel'))).toBe(false);
  });

  it('--output writes the formatted verdict to the file, stdout gets the text; the step summary gets the markdown', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'rvs-cli-'));
    try {
      const summary = join(dir, 'summary.md');
      await writeFile(summary, 'earlier step\n');
      const output = join(dir, 'report.xml');
      const h = harness(
        ['run', SUITE, '--wait', '--format', 'junit', '--output', output],
        {
          [`POST /suites/${SUITE}/runs`]: [{ status: 201, body: runBody('success', 100) }],
          [`GET /runs/${RUN}/verdict`]: [{ status: 200, body: verdictBody() }],
        },
        { ...ENV, GITHUB_STEP_SUMMARY: summary },
      );
      expect(await h.run()).toBe(0);
      expect(await readFile(output, 'utf8')).toMatch(/^<\?xml[\s\S]*<testsuite name="smoke" tests="1" failures="0"/);
      expect(h.stdout()).toMatch(/^PASS: smoke/);
      expect(await readFile(summary, 'utf8')).toBe(
        `earlier step\n### smoke: PASS\n\n[Open run ${RUN} in the dashboard](http://rvs.test/dashboard/runs/${RUN}?token=t)\n\n`,
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('rvs verdict', () => {
  it('prints the verdict of a finished run as json', async () => {
    const h = harness(['verdict', RUN, '--format', 'json'], {
      [`GET /runs/${RUN}`]: [{ status: 200, body: runBody('success', 100) }],
      [`GET /runs/${RUN}/verdict`]: [{ status: 200, body: verdictBody('error', 2) }],
    });
    expect(await h.run()).toBe(2);
    expect(JSON.parse(h.stdout())).toEqual(verdictBody('error', 2));
    expect(h.seen.at(-1)!.url).toBe(`${BASE}/runs/${RUN}/verdict`);
  });

  it('without --wait, an unfinished run is exit 3 with a hint', async () => {
    const h = harness(['verdict', RUN], {
      [`GET /runs/${RUN}`]: [{ status: 200, body: runBody('running', 10) }],
      [`GET /runs/${RUN}/verdict`]: [apiError(409, 'run_not_finished', 'run is running; the verdict is available once it has finished')],
    });
    expect(await h.run()).toBe(3);
    expect(h.stderr()).toBe(
      'rvs: run is running; the verdict is available once it has finished; add --wait to wait for it [HTTP 409 run_not_finished, request_id req-123]\n',
    );
  });
});

describe('errors: exit 3, one line on stderr, never the key', () => {
  it.each([
    {
      name: 'bad key (401)',
      reply: apiError(401, 'unauthorized', 'missing or invalid credentials'),
      line: 'rvs: missing or invalid credentials [HTTP 401 unauthorized, request_id req-123]',
    },
    {
      name: 'missing scope (403)',
      reply: apiError(403, 'forbidden', 'this operation needs the scope runs:write'),
      line: 'rvs: this operation needs the scope runs:write [HTTP 403 forbidden, request_id req-123]',
    },
    {
      name: 'unknown threshold (400)',
      reply: apiError(400, 'validation_error', 'request is invalid', [{ field: 'thresholds.bogus', message: 'unknown field' }]),
      line: 'rvs: request is invalid (thresholds.bogus: unknown field) [HTTP 400 validation_error, request_id req-123]',
    },
    {
      name: 'an error that is not the envelope',
      reply: { status: 502, body: 'Bad Gateway', headers: { 'x-request-id': 'edge-1' } },
      line: `rvs: POST /suites/${SUITE}/runs answered 502 [HTTP 502, request_id edge-1]`,
    },
    {
      name: 'an error message that echoes the key',
      reply: apiError(401, 'unauthorized', `key ${KEY} is\nrevoked`),
      line: 'rvs: key **** is revoked [HTTP 401 unauthorized, request_id req-123]',
    },
    {
      name: 'connection refused',
      reply: Object.assign(new TypeError('fetch failed'), { cause: new Error('connect ECONNREFUSED 127.0.0.1:9') }),
      line: 'rvs: cannot reach http://rvs.test/v1: connect ECONNREFUSED 127.0.0.1:9',
    },
    {
      name: 'no answer in time',
      reply: new DOMException('The operation was aborted due to timeout', 'TimeoutError'),
      line: 'rvs: cannot reach http://rvs.test/v1: no answer in time',
    },
  ])('$name', async ({ reply, line }) => {
    const h = harness(['run', SUITE, '--wait'], { [`POST /suites/${SUITE}/runs`]: [reply as Reply] });
    expect(await h.run()).toBe(3);
    expect(h.stderr()).toBe(`${line}\n`);
    expect(h.stderr()).not.toContain(KEY);
    expect(h.stdout()).toBe('');
  });

  it('a usage error is exit 3 with one line', async () => {
    const h = harness(['run', SUITE, '--suite', 'nope'], {});
    expect(await h.run()).toBe(3);
    expect(h.stderr()).toBe('rvs: give the suite as the argument or as --suite, not both\n');
    expect(h.seen).toEqual([]);
  });

  it('--help and --version print to stdout and exit 0', async () => {
    const help = harness(['--help'], {}, {});
    expect(await help.run()).toBe(0);
    expect(help.stdout()).toContain('rvs run <suite>');
    const version = harness(['--version'], {}, {});
    expect(await version.run()).toBe(0);
    expect(version.stdout()).toBe('rvs 9.9.9\n');
  });
});

describe('exitCodeOf', () => {
  it.each([
    [{ verdict: 'pass', exit_code: 0 }, 0],
    [{ verdict: 'fail', exit_code: 1 }, 1],
    [{ verdict: 'error', exit_code: 2 }, 2],
    [{ verdict: 'pass', exit_code: 7 }, 0],
    [{ verdict: 'fail', exit_code: undefined as unknown as number }, 1],
    [{ verdict: 'weird', exit_code: -1 }, 2],
  ])('%j → %i', (verdict, code) => {
    expect(exitCodeOf(verdict)).toBe(code);
  });
});

describe('GITHUB_STEP_SUMMARY that cannot be written', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'rvs-cli-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('warns and keeps the verdict exit code', async () => {
    const h = harness(
      ['verdict', RUN],
      {
        [`GET /runs/${RUN}`]: [{ status: 200, body: runBody('success', 100) }],
        [`GET /runs/${RUN}/verdict`]: [{ status: 200, body: verdictBody('fail', 1) }],
      },
      { ...ENV, GITHUB_STEP_SUMMARY: join(dir, 'missing-dir', 'summary.md') },
    );
    expect(await h.run()).toBe(1);
    expect(h.stderr()).toMatch(/^rvs: warning: cannot append to GITHUB_STEP_SUMMARY/);
  });

  it('an --output that cannot be written is exit 3', async () => {
    const h = harness(['verdict', RUN, '--output', join(dir, 'missing-dir', 'out.txt')], {
      [`GET /runs/${RUN}`]: [{ status: 200, body: runBody('success', 100) }],
      [`GET /runs/${RUN}/verdict`]: [{ status: 200, body: verdictBody('pass', 0) }],
    });
    expect(await h.run()).toBe(3);
    expect(h.stderr()).toMatch(/^rvs: cannot write .*out\.txt: ENOENT/);
  });
});

describe('rvs run with per-run targets and a branch', () => {
  const TARGET = 'https://user:S3cretPass@preview-7.example.com/v3/S3cretPathKey?key=S3cretQuery';

  it('sends the targets, the branch and the commit CI set, in the trigger body', async () => {
    const h = harness(
      ['run', SUITE, '--target-url', TARGET, '--target-header', 'x-api-key=S3cretHeader'],
      { [`POST /suites/${SUITE}/runs`]: [{ status: 201, body: runBody('queued') }] },
      { ...ENV, GITHUB_HEAD_REF: 'feature/fast-path', GITHUB_SHA: 'ab'.repeat(20) },
    );
    expect(await h.run()).toBe(0);
    expect(h.seen[0]!.body).toEqual({
      targets: [{ url: TARGET, headers: { 'x-api-key': 'S3cretHeader' } }],
      branch: 'feature/fast-path',
      commit: 'ab'.repeat(20),
    });
    expect(h.stdout() + h.stderr()).not.toMatch(/S3cret/);
  });

  it('never prints a target URL or header value, even if an error message carried one', async () => {
    const h = harness(['run', SUITE, '--target-url', TARGET, '--target-header', 'x-api-key=S3cretHeader'], {
      [`POST /suites/${SUITE}/runs`]: [apiError(400, 'validation_error', `request is invalid: ${TARGET} S3cretHeader`, [{ field: 'targets.0.url', message: 'bad' }])],
    });
    expect(await h.run()).toBe(3);
    expect(h.stderr()).toContain('targets.0.url');
    expect(h.stderr()).not.toMatch(/S3cret/);
  });
});
