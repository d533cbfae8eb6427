import { describe, expect, it } from 'vitest';
import {
  DEFAULT_TIMEOUT_MS,
  normaliseBaseUrl,
  parseCliArgs,
  parseDuration,
  parseThresholdValue,
  UsageError,
} from '../../src/cli/args';

const SUITE = '0b8a2f7e-1111-4222-8333-444455556666';
const RUN = '9c1d2e3f-aaaa-4bbb-8ccc-ddddeeeeffff';
const KEY = 'rvs_abcdefghijkl_0123456789abcdef0123456789abcdef';
const ENV = { RVS_URL: 'http://rvs.test:3000', RVS_API_KEY: KEY };

describe('parseCliArgs', () => {
  it.each([
    { argv: ['--help'], expected: { command: 'help' } },
    { argv: ['-h'], expected: { command: 'help' } },
    { argv: ['help'], expected: { command: 'help' } },
    { argv: ['run', SUITE, '--help'], expected: { command: 'help' } },
    { argv: ['--version'], expected: { command: 'version' } },
    { argv: ['-V'], expected: { command: 'version' } },
  ])('$argv → $expected.command', ({ argv, expected }) => {
    // Help and version need no configuration at all.
    expect(parseCliArgs(argv, {})).toEqual(expected);
  });

  it('takes the suite by id or by name, as the argument or --suite', () => {
    expect(parseCliArgs(['run', 'pr-gate'], ENV)).toMatchObject({ suite: { name: 'pr-gate' } });
    expect(parseCliArgs(['run', '--suite', ' pr gate '], ENV)).toMatchObject({ suite: { name: 'pr gate' } });
    expect(parseCliArgs(['run', '--suite', SUITE.toUpperCase()], ENV)).toMatchObject({ suite: { id: SUITE } });
    expect(parseCliArgs(['run', SUITE, '--metadata', 'a=1', '--metadata-json', '{"pr":42,"labels":["x"]}'], ENV)).toMatchObject({
      metadata: { a: '1', pr: 42, labels: ['x'] },
    });
    expect(parseCliArgs(['apply', '-f', 'rvs.yaml', '--verbose'], ENV)).toMatchObject({ command: 'apply', verbose: true });
  });

  it('parses a plain run with defaults', () => {
    expect(parseCliArgs(['run', SUITE], ENV)).toEqual({
      command: 'run',
      suite: { id: SUITE },
      baselineRunId: null,
      thresholds: {},
      metadata: {},
      targets: [],
      branch: null,
      commit: null,
      baseUrl: 'http://rvs.test:3000/v1',
      apiKey: KEY,
      wait: false,
      timeoutMs: DEFAULT_TIMEOUT_MS,
      cancelOnTimeout: false,
      format: 'text',
      output: null,
    });
  });

  it('parses every run option', () => {
    const command = parseCliArgs(
      [
        'run', SUITE.toUpperCase(), '--wait', '--timeout', '1h30m', '--cancel-on-timeout', '--baseline', RUN,
        '--threshold', 'latency_p95_max_ms=300', '--threshold', 'correctness_enabled=true',
        '--threshold', 'latency_vs_reference_max_pct=-5.5',
        '--metadata', 'commit=abc123', '--metadata', 'note=a=b c',
        '--format', 'junit', '--output', 'out.xml',
        '--url', 'https://other.example/rvs/', '--api-key', 'rvs_flag_key',
      ],
      ENV,
    );
    expect(command).toEqual({
      command: 'run',
      suite: { id: SUITE },
      baselineRunId: RUN,
      thresholds: { latency_p95_max_ms: 300, correctness_enabled: true, latency_vs_reference_max_pct: -5.5 },
      metadata: { commit: 'abc123', note: 'a=b c' },
      targets: [],
      branch: null,
      commit: null,
      baseUrl: 'https://other.example/rvs/v1',
      apiKey: 'rvs_flag_key',
      wait: true,
      timeoutMs: 90 * 60 * 1000,
      cancelOnTimeout: true,
      format: 'junit',
      output: 'out.xml',
    });
  });

  it('parses verdict', () => {
    expect(parseCliArgs(['verdict', RUN, '--format', 'json', '--wait', '--timeout', '45s'], ENV)).toEqual({
      command: 'verdict',
      runId: RUN,
      baseUrl: 'http://rvs.test:3000/v1',
      apiKey: KEY,
      wait: true,
      timeoutMs: 45_000,
      cancelOnTimeout: false,
      format: 'json',
      output: null,
    });
  });

  it.each([
    { argv: [], env: ENV, message: /missing command/ },
    { argv: ['run', SUITE, '--cancel-on-timeout'], env: ENV, message: /--cancel-on-timeout needs --wait/ },
    { argv: ['deploy', SUITE], env: ENV, message: /unknown command "deploy"/ },
    { argv: ['run'], env: ENV, message: /missing suite \(its id or name\)/ },
    { argv: ['run', SUITE, '--suite', 'smoke'], env: ENV, message: /not both/ },
    { argv: ['run', '  '], env: ENV, message: /the suite name is empty/ },
    { argv: ['run', SUITE, '--metadata-json', '[1]'], env: ENV, message: /--metadata-json: must be a JSON object/ },
    { argv: ['run', SUITE, '--metadata', 'a=1', '--metadata-json', '{"a":2}'], env: ENV, message: /a is also given by --metadata/ },
    { argv: ['verdict', RUN, '--suite', 'smoke'], env: ENV, message: /--suite applies to rvs run only/ },
    { argv: ['run', SUITE, 'extra'], env: ENV, message: /unexpected argument "extra"/ },
    { argv: ['run', SUITE, '--bogus'], env: ENV, message: /Unknown option '--bogus'/ },
    { argv: ['run', SUITE, '--format'], env: ENV, message: /argument missing/ },
    { argv: ['run', SUITE, '--format', 'xml'], env: ENV, message: /--format must be one of text, json, markdown, junit/ },
    { argv: ['run', SUITE, '--format', 'junit'], env: ENV, message: /--format junit formats a verdict: add --wait/ },
    { argv: ['run', SUITE, '--format', 'markdown'], env: ENV, message: /add --wait/ },
    { argv: ['run', SUITE, '--timeout', '5m'], env: ENV, message: /--timeout needs --wait/ },
    { argv: ['run', SUITE, '--wait', '--timeout', 'soon'], env: ENV, message: /not a duration/ },
    { argv: ['run', SUITE, '--wait', '--timeout', '0s'], env: ENV, message: /longer than zero/ },
    { argv: ['run', SUITE, '--threshold', 'latency_p95_max_ms'], env: ENV, message: /expected key=value/ },
    { argv: ['run', SUITE, '--threshold', '=5'], env: ENV, message: /expected key=value/ },
    { argv: ['run', SUITE, '--threshold', 'a=1', '--threshold', 'a=2'], env: ENV, message: /a given more than once/ },
    { argv: ['run', SUITE, '--metadata', 'x'], env: ENV, message: /--metadata: expected key=value/ },
    { argv: ['run', SUITE, '--baseline', 'last'], env: ENV, message: /--baseline run id must be a UUID/ },
    { argv: ['run', SUITE, '--output', ''], env: ENV, message: /--output needs a file name/ },
    { argv: ['verdict', RUN, '--threshold', 'a=1'], env: ENV, message: /--threshold applies to rvs run only/ },
    { argv: ['verdict', RUN, '--baseline', RUN], env: ENV, message: /--baseline applies to rvs run only/ },
    { argv: ['verdict'], env: ENV, message: /missing run id/ },
    { argv: ['run', SUITE], env: { RVS_API_KEY: KEY }, message: /no service URL: set RVS_URL or pass --url/ },
    { argv: ['run', SUITE], env: { RVS_URL: 'http://x' }, message: /no API key: set RVS_API_KEY or pass --api-key/ },
    { argv: ['run', SUITE], env: { RVS_URL: 'http://x', RVS_API_KEY: '  ' }, message: /no API key/ },
    { argv: ['run', SUITE], env: { ...ENV, RVS_URL: 'rvs.example.com' }, message: /not a valid URL/ },
    { argv: ['run', SUITE], env: { ...ENV, RVS_URL: 'ftp://rvs.example.com' }, message: /must start with http/ },
  ])('rejects $argv', ({ argv, env, message }) => {
    expect(() => parseCliArgs(argv, env)).toThrow(UsageError);
    expect(() => parseCliArgs(argv, env)).toThrow(message);
  });

  it('never puts the API key into a usage message', () => {
    try {
      parseCliArgs(['run', SUITE, '--url', 'nope'], ENV);
      expect.unreachable();
    } catch (error) {
      expect((error as Error).message).not.toContain(KEY);
    }
  });
});

describe('normaliseBaseUrl', () => {
  it.each([
    ['http://localhost:3000', 'http://localhost:3000/v1'],
    ['http://localhost:3000/', 'http://localhost:3000/v1'],
    ['http://localhost:3000/v1', 'http://localhost:3000/v1'],
    ['http://localhost:3000/v1/', 'http://localhost:3000/v1'],
    ['http://localhost:3000/v1//', 'http://localhost:3000/v1'],
    ['https://ci.example.com/rvs', 'https://ci.example.com/rvs/v1'],
    ['https://ci.example.com/rvs/v1', 'https://ci.example.com/rvs/v1'],
    ['  https://ci.example.com  ', 'https://ci.example.com/v1'],
    ['HTTPS://CI.EXAMPLE.COM', 'https://ci.example.com/v1'],
  ])('%s → %s', (raw, expected) => {
    expect(normaliseBaseUrl(raw)).toBe(expected);
  });

  it.each(['http://x/?a=1', 'http://x/#frag', 'mailto:a@b', 'not a url'])('rejects %s', (raw) => {
    expect(() => normaliseBaseUrl(raw)).toThrow(UsageError);
  });

  it('does not echo a URL it cannot parse (credentials in it cannot be told apart)', () => {
    expect(() => normaliseBaseUrl('http://user:secret@ho st/')).toThrow(UsageError);
    expect(() => normaliseBaseUrl('http://user:secret@ho st/')).not.toThrow(/secret/);
  });
});

describe('parseDuration', () => {
  it.each([
    ['30m', 1_800_000],
    ['90s', 90_000],
    ['1h30m', 5_400_000],
    ['1h', 3_600_000],
    ['500ms', 500],
    ['1m30s', 90_000],
    ['2d', 172_800_000],
    ['45', 45_000],
    ['1.5m', 90_000],
    [' 10s ', 10_000],
  ])('%s → %i ms', (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  it.each(['', 'm', '10 m', '10x', '-5m', '0', '0m', 'abc', '1h 30m'])('rejects "%s"', (text) => {
    expect(() => parseDuration(text)).toThrow(UsageError);
  });
});

describe('parseThresholdValue', () => {
  it.each([
    ['300', 300],
    ['0', 0],
    ['-5.5', -5.5],
    ['99.9', 99.9],
    ['1e3', 1000],
    ['.5', 0.5],
    ['true', true],
    ['false', false],
    // Not a number or boolean: sent as a string, and the API explains what it wants.
    ['fast', 'fast'],
    ['', ''],
    ['0x10', '0x10'],
    ['TRUE', 'TRUE'],
    ['Infinity', 'Infinity'],
  ])('%s → %j', (text, value) => {
    expect(parseThresholdValue(text)).toBe(value);
  });
});

describe('rvs run: per-run targets, branch and commit', () => {
  const TARGET = 'https://preview-42.example.com/v3/S3cretPathKey';

  it('sends --target-url endpoints with every --target-header, and takes branch and commit from flags', () => {
    const command = parseCliArgs(
      ['run', SUITE, '--target-url', TARGET, '--target-url', 'http://127.0.0.1:8545', '--target-header', 'x-api-key=S3cretHeader=1', '--branch', 'feature/x', '--commit', 'ABCDEF1'],
      { ...ENV, GITHUB_HEAD_REF: 'ignored', GITHUB_SHA: 'f'.repeat(40) },
    );
    expect(command).toMatchObject({
      targets: [
        { url: TARGET, headers: { 'x-api-key': 'S3cretHeader=1' } },
        { url: 'http://127.0.0.1:8545', headers: { 'x-api-key': 'S3cretHeader=1' } },
      ],
      branch: 'feature/x',
      commit: 'ABCDEF1',
    });
  });

  it.each([
    { env: { GITHUB_HEAD_REF: 'pr-branch', GITHUB_REF_NAME: '12/merge', GITHUB_SHA: 'a'.repeat(40) }, branch: 'pr-branch', commit: 'a'.repeat(40) },
    // A push: GitHub sets GITHUB_HEAD_REF to the empty string.
    { env: { GITHUB_HEAD_REF: '', GITHUB_REF_NAME: 'main', GITHUB_SHA: 'b'.repeat(40) }, branch: 'main', commit: 'b'.repeat(40) },
    { env: { CI_COMMIT_REF_NAME: 'gitlab-branch', CI_COMMIT_SHA: 'c'.repeat(40) }, branch: 'gitlab-branch', commit: 'c'.repeat(40) },
    { env: {}, branch: null, commit: null },
  ])('fills branch and commit from CI variables: $env', ({ env, branch, commit }) => {
    expect(parseCliArgs(['run', SUITE], { ...ENV, ...env })).toMatchObject({ branch, commit });
  });

  it('takes the target URL from RVS_TARGET_URL when no flag names one', () => {
    expect(parseCliArgs(['run', SUITE], { ...ENV, RVS_TARGET_URL: TARGET })).toMatchObject({ targets: [{ url: TARGET, headers: {} }] });
    expect(parseCliArgs(['run', SUITE, '--target-url', 'http://127.0.0.1:1'], { ...ENV, RVS_TARGET_URL: TARGET })).toMatchObject({
      targets: [{ url: 'http://127.0.0.1:1', headers: {} }],
    });
  });

  it.each([
    { argv: ['run', SUITE, '--target-header', 'x-api-key=v'], message: /--target-header needs --target-url/ },
    { argv: ['run', SUITE, '--target-url', TARGET, '--target-header', 'S3cretNoEquals'], message: /--target-header: expected name=value$/ },
    { argv: ['run', SUITE, '--target-url', TARGET, '--target-header', 'a=S3cret1', '--target-header', 'A=S3cret2'], message: /A given more than once/ },
    { argv: ['run', SUITE, '--target-url', ''], message: /--target-url needs a URL/ },
    { argv: ['run', SUITE, '--branch', ''], message: /--branch needs a name/ },
    { argv: ['verdict', RUN, '--target-url', TARGET], message: /--target-url applies to rvs run only/ },
    { argv: ['verdict', RUN, '--branch', 'main'], message: /--branch applies to rvs run only/ },
  ])('rejects $argv without repeating a secret', ({ argv, message }) => {
    let thrown: unknown;
    try {
      parseCliArgs(argv, ENV);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(UsageError);
    expect((thrown as Error).message).toMatch(message);
    expect((thrown as Error).message).not.toMatch(/S3cret/);
  });
});
