import { describe, expect, it } from 'vitest';
import { actionArgs, ActionInputError, outputLines, readInputs } from '../../src/cli/action';
import { parseCliArgs, UsageError } from '../../src/cli/args';
import { exportFile, formatVariables } from '../../src/cli/config-commands';
import { diffFields, formatPlan, planApply, suiteConfigOf, type Plan, type TenantConfig } from '../../src/cli/plan';
import { loadRvsFile, RvsFileError } from '../../src/cli/rvs-file';
import { rvsFileJsonSchema } from '../../src/domain/rvs-file';
import { suiteConfigSchema } from '../../src/domain/suite-config';

const KEY = 'rvs_abcdefghijkl_0123456789abcdef0123456789abcdef';
const ENV = { RVS_URL: 'http://rvs.test:3000', RVS_API_KEY: KEY };

describe('parseCliArgs: apply, export, schema', () => {
  it('parses apply, export and schema', () => {
    expect(parseCliArgs(['apply', '-f', 'rvs.yaml'], ENV)).toEqual({ command: 'apply', file: 'rvs.yaml', dryRun: false, verbose: false, envNames: [], baseUrl: 'http://rvs.test:3000/v1', apiKey: KEY });
    expect(parseCliArgs(['apply', '-f', 'rvs.yaml', '--env', 'RPC_KEY', '--env', 'TOKEN', '--env', 'RPC_KEY'], ENV)).toMatchObject({ envNames: ['RPC_KEY', 'TOKEN'] });
    expect(parseCliArgs(['apply', '--file', '-', '--dry-run'], ENV)).toMatchObject({ command: 'apply', file: '-', dryRun: true });
    expect(parseCliArgs(['export'], ENV)).toEqual({ command: 'export', output: null, baseUrl: 'http://rvs.test:3000/v1', apiKey: KEY });
    expect(parseCliArgs(['export', '--output', 'out.yaml'], ENV)).toMatchObject({ command: 'export', output: 'out.yaml' });
    // The schema needs no service.
    expect(parseCliArgs(['schema'], {})).toEqual({ command: 'schema' });
  });

  it.each([
    { argv: ['apply'], message: 'rvs apply needs -f <file>' },
    { argv: ['apply', '-f', 'x', '--wait'], message: '--wait applies to rvs run and rvs verdict only' },
    { argv: ['apply', '-f', 'x', '--output', 'y'], message: '--output does not apply to rvs apply' },
    { argv: ['export', '--dry-run'], message: '--dry-run applies to rvs apply only' },
    { argv: ['export', 'extra'], message: 'unexpected argument "extra"' },
    { argv: ['run', '0b8a2f7e-1111-4222-8333-444455556666', '-f', 'x'], message: '--file applies to rvs apply only' },
    { argv: ['schema', '--threshold', 'a=1'], message: '--threshold applies to rvs run and rvs verdict only' },
    { argv: ['export', '--env', 'A'], message: '--env applies to rvs apply only' },
    { argv: ['run', '0b8a2f7e-1111-4222-8333-444455556666', '--env', 'A'], message: '--env applies to rvs apply only' },
    { argv: ['apply', '-f', 'x', '--env', '1A'], message: '--env: "1A" is not a variable name (letters, digits and _, not starting with a digit)' },
    { argv: ['apply', '-f', 'x', '--env', 'GITHUB_TOKEN'], message: '--env: GITHUB_TOKEN is refused: RVS_API_KEY, GITHUB_*, ACTIONS_*, RUNNER_* are never read from a file, not even with --env' },
    { argv: ['apply', '-f', 'x', '--env', 'RVS_API_KEY'], message: '--env: RVS_API_KEY is refused: RVS_API_KEY, GITHUB_*, ACTIONS_*, RUNNER_* are never read from a file, not even with --env' },
    { argv: ['apply', '-f', 'x', '--env', 'runner_temp'], message: '--env: runner_temp is refused: RVS_API_KEY, GITHUB_*, ACTIONS_*, RUNNER_* are never read from a file, not even with --env' },
  ])('$argv → $message', ({ argv, message }) => {
    expect(() => parseCliArgs(argv, ENV)).toThrow(new UsageError(message));
  });

  it('apply and export need the service like run does', () => {
    expect(() => parseCliArgs(['export'], { RVS_API_KEY: KEY })).toThrow('no service URL');
    expect(() => parseCliArgs(['apply', '-f', 'x'], { RVS_URL: 'http://rvs.test' })).toThrow('no API key');
  });
});

const FILE = `version: 1
chains:
  - slug: devnet
    name: Devnet
endpoints:
  - name: a
    chain: devnet
    url: https://rpc.example.com/\${RVS_SECRET_KEY_A}
    headers: { authorization: "Bearer \${RVS_SECRET_TOKEN}" }
suites:
  - name: s
    chain: devnet
    targets: [a]
`;

describe('loadRvsFile', () => {
  it('applies defaults and takes every ${NAME} from the environment', () => {
    const loaded = loadRvsFile(FILE, 'rvs.yaml', { RVS_SECRET_KEY_A: 'k-123', RVS_SECRET_TOKEN: 't-456' });
    expect(loaded.secrets).toEqual([{ url: 'https://rpc.example.com/k-123', wsUrl: null, headers: { authorization: 'Bearer t-456' } }]);
    expect(loaded.file.chains[0]).toEqual({ slug: 'devnet', name: 'Devnet', family: 'evm', chain_id: null, explorer_url: null });
    expect(loaded.file.endpoints[0]!.timeout_ms).toBe(10_000);
    expect(loaded.file.suites[0]).toMatchObject({ description: '', reference: null, thresholds: { latency_p95_max_ms: 500 }, workload: { requests_per_target: 100 } });
    expect(loaded.file.suites[0]!.schedule).toBeUndefined();
  });

  const problems = (text: string, env: Record<string, string> = { RVS_SECRET_KEY_A: 'k', RVS_SECRET_TOKEN: 't' }) => {
    try {
      loadRvsFile(text, 'rvs.yaml', env);
    } catch (error) {
      if (error instanceof RvsFileError) return error.lines();
      throw error;
    }
    throw new Error('no problem found');
  };

  it.each([
    { name: 'a literal header value', text: FILE.replace('Bearer ${RVS_SECRET_TOKEN}', 'Bearer abc'), line: 'rvs.yaml:9:31 endpoints[0].headers.authorization: a header value must come from the environment' },
    { name: 'a duplicate suite', text: `${FILE}  - name: s\n    chain: devnet\n    targets: [a]\n`, line: 'rvs.yaml:14:5 suites[1]: this suite name appears more than once in the file' },
    { name: 'a target twice', text: FILE.replace('targets: [a]', 'targets: [a, a]'), line: 'rvs.yaml:13:14 suites[0].targets: an endpoint may appear only once' },
    { name: 'a bad schedule', text: `${FILE}    schedule: { every: 5 }\n`, line: 'rvs.yaml:14:15 suites[0].schedule: does not match any allowed form' },
    { name: 'a wrong version', text: FILE.replace('version: 1', 'version: 2'), line: 'rvs.yaml:1:10 version: Invalid input: expected 1' },
    { name: 'not a mapping', text: '- 1\n', line: 'rvs.yaml:1:1: Invalid input: expected object, received array' },
  ])('$name', ({ text, line }) => {
    expect(problems(text)[0]).toContain(line);
  });

  it('reports every unset variable; an empty one counts as unset', () => {
    expect(problems(FILE, { RVS_SECRET_TOKEN: '' })).toEqual([
      'rvs.yaml:8:10 endpoints[0].url: environment variable RVS_SECRET_KEY_A is not set',
      'rvs.yaml:9:31 endpoints[0].headers.authorization: environment variable RVS_SECRET_TOKEN is not set',
    ]);
  });

  it('reads only RVS_SECRET_* and --env names; RVS_API_KEY, GITHUB_*, ACTIONS_*, RUNNER_* never, and never their values', () => {
    const hostile = FILE.replace('Bearer ${RVS_SECRET_TOKEN}', '${RVS_API_KEY}')
      .replace('headers: {', 'headers: { x-gh: "${GITHUB_TOKEN}", x-act: "${ACTIONS_RUNTIME_TOKEN}", x-run: "${RUNNER_TEMP}", x-home: "${HOME}",');
    const env = { RVS_SECRET_KEY_A: 'k', RVS_API_KEY: 'rvs_secret_api_key', GITHUB_TOKEN: 'ghs_secret', ACTIONS_RUNTIME_TOKEN: 'act-secret', RUNNER_TEMP: '/tmp/runner', HOME: '/home/ci' };
    let error: RvsFileError | null = null;
    try {
      // Named with --env, the refused ones are still refused.
      loadRvsFile(hostile, 'rvs.yaml', env, new Set(['GITHUB_TOKEN', 'RVS_API_KEY']));
    } catch (caught) {
      error = caught as RvsFileError;
    }
    expect(error).toBeInstanceOf(RvsFileError);
    const lines = error!.lines();
    expect(lines).toEqual([
      expect.stringContaining('endpoints[0].headers.x-gh: environment variable GITHUB_TOKEN is refused: RVS_API_KEY, GITHUB_*, ACTIONS_*, RUNNER_* are never read from a file, not even with --env'),
      expect.stringContaining('endpoints[0].headers.x-act: environment variable ACTIONS_RUNTIME_TOKEN is refused'),
      expect.stringContaining('endpoints[0].headers.x-run: environment variable RUNNER_TEMP is refused'),
      expect.stringContaining('endpoints[0].headers.x-home: environment variable HOME is not allowed: a file reads only RVS_SECRET_* variables and those named with --env NAME (rename it RVS_SECRET_HOME, or pass --env HOME)'),
      expect.stringContaining('endpoints[0].headers.authorization: environment variable RVS_API_KEY is refused'),
    ]);
    for (const value of ['rvs_secret_api_key', 'ghs_secret', 'act-secret', '/tmp/runner', '/home/ci']) expect(lines.join('\n')).not.toContain(value);
    expect(error!.variables.map((v) => [v.name, v.access])).toEqual([
      ['RVS_SECRET_KEY_A', 'allowed'],
      ['GITHUB_TOKEN', 'refused'],
      ['ACTIONS_RUNTIME_TOKEN', 'refused'],
      ['RUNNER_TEMP', 'refused'],
      ['HOME', 'not_allowed'],
      ['RVS_API_KEY', 'refused'],
    ]);
    // --env HOME lets the file read HOME.
    const allowed = loadRvsFile(FILE.replace('RVS_SECRET_TOKEN', 'HOME'), 'rvs.yaml', env, new Set(['HOME']));
    expect(allowed.secrets[0]!.headers).toEqual({ authorization: 'Bearer /home/ci' });
    expect(allowed.variables).toEqual([
      { name: 'RVS_SECRET_KEY_A', access: 'allowed', set: true },
      { name: 'HOME', access: 'allowed', set: true },
    ]);
  });

  it('formatVariables lists names and whether each is allowed, never values', () => {
    const text = formatVariables([
      { name: 'RVS_SECRET_A_URL', access: 'allowed', set: true },
      { name: 'HOME', access: 'allowed', set: false },
      { name: 'PATH', access: 'not_allowed', set: true },
      { name: 'GITHUB_TOKEN', access: 'refused', set: true },
    ]);
    expect(text).toBe(
      [
        'Environment variables read (names only):',
        '  RVS_SECRET_A_URL  allowed (RVS_SECRET_*)',
        '  HOME              allowed (--env), not set',
        '  PATH              not allowed (not RVS_SECRET_*, not given with --env)',
        '  GITHUB_TOKEN      refused (never read from a file)',
        '',
      ].join('\n'),
    );
  });

  it('refuses a document too big or too deep before building it, and finds duplicate keys in linear time', () => {
    expect(problems(`version: 1\nx: ${'['.repeat(200_000)}${']'.repeat(200_000)}\n`)).toEqual(['rvs.yaml:0:0: nested more than 64 deep']);
    expect(problems(`version: 1\nx:\n${Array.from({ length: 60_000 }, (_, i) => `  k${i}: v`).join('\n')}\n`)).toEqual(['rvs.yaml:0:0: more than 100,000 values']);
    expect(problems(`version: 1\nx: ${'- '.repeat(300)}1\n`)).toEqual(['rvs.yaml:0:0: nested or indented more than 256 deep on one line']);
    // 10,000 keys and one written twice: found at its place (the library's pairwise check took ~5 s for this).
    const keys = Array.from({ length: 10_000 }, (_, i) => `  k${i}: v`);
    keys.push('  k7: again');
    expect(problems(`${FILE}x:\n${keys.join('\n')}\n`)).toEqual([`rvs.yaml:${14 + 10_001}:3: Map keys must be unique`]);
    expect(problems(FILE.replace('    name: Devnet', '    name: Devnet\n    name: Other'))).toEqual(['rvs.yaml:5:5: Map keys must be unique']);
    // Lexing 100,000 values is a second or two on a loaded CI machine: no wall-clock assertion, a generous limit.
  }, 60_000);

  it('refuses alias bombs instead of expanding them', () => {
    const bomb = ['version: 1', 'a: &a [x, x, x, x, x, x, x, x, x, x]', ...Array.from({ length: 8 }, (_, i) => `${String.fromCharCode(98 + i)}: &${String.fromCharCode(98 + i)} [*${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}]`)].join('\n');
    expect(() => loadRvsFile(bomb, 'rvs.yaml', {})).toThrow(RvsFileError);
    expect(problems(bomb)).toEqual(['rvs.yaml:0:0: Excessive alias count indicates a resource exhaustion attack']);
  });
});

describe('planApply and diffFields', () => {
  const T = '2026-01-01T00:00:00.000Z';
  const current: TenantConfig = {
    chains: [{ id: 'c1', slug: 'devnet', name: 'Devnet', family: 'evm', chain_id: null, explorer_url: null, updated_at: T }],
    endpoints: [{ id: 'e1', chain_id: 'c1', name: 'a', url: 'https://rpc.example.com/****', header_names: ['authorization'], timeout_ms: 10_000, updated_at: T }],
    suites: [],
  };

  it('compares what the API shows: the redacted URL, header names and the timeout', () => {
    const plan = planApply(loadRvsFile(FILE, 'rvs.yaml', { RVS_SECRET_KEY_A: 'other-key', RVS_SECRET_TOKEN: 't' }), current, 'rvs.yaml');
    expect(plan.chains[0]).toMatchObject({ action: 'unchanged', changes: [] });
    // Another key in the same place is invisible to the plan (apply sends it; the service compares).
    expect(plan.endpoints[0]).toMatchObject({ action: 'unchanged', changes: [] });
    expect(plan.suites[0]).toMatchObject({ action: 'create' });

    const moved = planApply(loadRvsFile(FILE.replace('https://rpc.example.com/', 'https://rpc2.example.com:8545/v2/'), 'rvs.yaml', { RVS_SECRET_KEY_A: 'k', RVS_SECRET_TOKEN: 't' }), current, 'rvs.yaml');
    expect(moved.endpoints[0]!.changes).toEqual([{ path: 'url', from: 'https://rpc.example.com/****', to: 'https://rpc2.example.com:8545/****/****' }]);
    expect(formatPlan(moved)).toContain('endpoint devnet/a: update\n  ~ url: "https://rpc.example.com/****" → "https://rpc2.example.com:8545/****/****"\n');
  });

  it('diffs workload methods by method name: removing the first is one removal, a reorder one change', () => {
    const m = (method: string, weight = 1) => ({ method, params: [], weight });
    const before = { workload: { methods: [m('eth_blockNumber'), m('eth_chainId'), m('eth_getBalance', 2)] } };
    expect(diffFields(before, { workload: { methods: [m('eth_chainId'), m('eth_getBalance', 2)] } })).toEqual([
      { path: 'workload.methods[eth_blockNumber]', from: m('eth_blockNumber'), to: undefined },
    ]);
    expect(diffFields(before, { workload: { methods: [m('eth_blockNumber'), m('eth_chainId'), m('eth_getBalance', 3)] } })).toEqual([
      { path: 'workload.methods[eth_getBalance].weight', from: 2, to: 3 },
    ]);
    expect(diffFields(before, { workload: { methods: [m('eth_chainId'), m('eth_blockNumber'), m('eth_getBalance', 2), m('eth_call')] } })).toEqual([
      { path: 'workload.methods[eth_call]', from: undefined, to: m('eth_call') },
      { path: 'workload.methods (order)', from: ['eth_blockNumber', 'eth_chainId', 'eth_getBalance'], to: ['eth_chainId', 'eth_blockNumber', 'eth_getBalance'] },
    ]);
    // A method given twice (other params) is told apart by its place among its namesakes.
    expect(diffFields({ w: [m('eth_call'), m('eth_call')] }, { w: [m('eth_call'), { ...m('eth_call'), weight: 4 }] })).toEqual([{ path: 'w[eth_call#2].weight', from: 1, to: 4 }]);
    const plan: Plan = {
      chains: [],
      endpoints: [],
      suites: [{ kind: 'suite', key: 'smoke', chainSlug: 'devnet', index: 0, existing: null, action: 'update', changes: diffFields(before, { workload: { methods: before.workload.methods.slice(1) } }) }],
    };
    expect(formatPlan(plan)).toBe('suite smoke: update\n  - workload.methods[eth_blockNumber]: {"method":"eth_blockNumber","params":[],"weight":1}\nPlan: 0 to create, 1 to update, 0 unchanged.\n');
  });

  it('diffs leaves; arrays of objects without a method by index, other arrays whole', () => {
    expect(diffFields({ a: { b: 1, c: [1, 2] }, m: [{ x: 1 }] }, { a: { b: 2, c: [1, 2] }, m: [{ x: 1 }, { x: 2 }] })).toEqual([
      { path: 'a.b', from: 1, to: 2 },
      { path: 'm[1].x', from: undefined, to: 2 },
    ]);
    expect(diffFields(null, { a: 1 })).toEqual([{ path: 'a', from: undefined, to: 1 }]);
  });
});

describe('the GitHub Action entry point', () => {
  it('reads inputs as GitHub spells them (INPUT_API-URL) and as a composite action sets them (INPUT_API_URL)', () => {
    const inputs = readInputs({ 'INPUT_API-URL': 'http://rvs', INPUT_API_KEY: 'k', INPUT_SUITE: 's', INPUT_THRESHOLDS: 'a=1, b=2\nc=3\n' });
    expect(inputs).toEqual({
      apiUrl: 'http://rvs', apiKey: 'k', suite: 's', wait: true, timeout: '', targetUrl: '', targetHeaders: {}, branch: '', commit: '', metadata: null, thresholds: ['a=1', 'b=2', 'c=3'], junit: '',
    });
    expect(() => readInputs({ INPUT_API_URL: 'x', INPUT_API_KEY: 'k', INPUT_SUITE: 's', INPUT_WAIT: 'yes' })).toThrow(ActionInputError);
  });

  it('builds the rvs command line; the URL and key never become flags', () => {
    const base = readInputs({ INPUT_API_URL: 'http://rvs', INPUT_API_KEY: 'k', INPUT_SUITE: 's' });
    expect(actionArgs({ ...base, timeout: '5m', thresholds: ['a=1'], targetUrl: 'http://preview', branch: 'feature/x', junit: 'j.xml' })).toEqual([
      'run', '--suite', 's', '--wait', '--timeout', '5m', '--threshold', 'a=1', '--target-url', 'http://preview', '--branch', 'feature/x', '--format', 'junit', '--output', 'j.xml',
    ]);
    expect(actionArgs({ ...base, wait: false })).toEqual(['run', '--suite', 's']);
    expect(() => actionArgs({ ...base, targetHeaders: { authorization: 'Bearer x' } })).toThrow('input target-headers needs target-url');
    expect(() => actionArgs({ ...base, wait: false, junit: 'j.xml' })).toThrow('input junit needs wait: true');
  });

  it('writes outputs one per line, a line break in a value cannot add another output', () => {
    expect(outputLines({ verdict: 'fail', 'run-id': 'x\nverdict=pass' })).toBe('verdict=fail\nrun-id=x verdict=pass\n');
  });
});

describe('apply and export round trip: vantage points and capacity sweeps', () => {
  const T = '2026-01-01T00:00:00.000Z';
  const A = '00000000-0000-4000-8000-00000000000a';
  const B = '00000000-0000-4000-8000-00000000000b';
  // Stored as the service stores a suite: its config parsed by the same schema.
  const stored = (id: string, name: string, config: Record<string, unknown>): TenantConfig['suites'][number] => ({
    id,
    chain_id: 'c1',
    name,
    description: '',
    config: suiteConfigSchema.parse(config) as TenantConfig['suites'][number]['config'],
    schedule: null,
    updated_at: T,
  });
  const current: TenantConfig = {
    chains: [{ id: 'c1', slug: 'devnet', name: 'Devnet', family: 'evm', chain_id: null, explorer_url: null, updated_at: T }],
    endpoints: [
      { id: A, chain_id: 'c1', name: 'a', url: 'https://a.example.com/****', header_names: [], timeout_ms: 10_000, updated_at: T },
      { id: B, chain_id: 'c1', name: 'b', url: 'https://b.example.com/****', header_names: [], timeout_ms: 10_000, updated_at: T },
    ],
    suites: [
      stored('s1', 'regions', { targets: [{ endpoint_id: A }], reference_endpoint_id: B, vantage_points: ['eu-west', 'us-east'], vantage_start_timeout_s: 90 }),
      stored('s2', 'sweep', {
        targets: [{ endpoint_id: A }],
        workload: { sweep: { rates: [5, 10, 20], step_s: 10, warmup_s: 2 } },
        thresholds: { capacity_min_rps: 12 },
      }),
    ],
  };
  const env = { RVS_SECRET_A_URL: 'https://a.example.com/k', RVS_SECRET_B_URL: 'https://b.example.com/k' };
  const idOf = (name: string) => ({ a: A, b: B })[name]!;

  it('export writes them, the plan finds the exported file unchanged, and apply sends them back as stored', () => {
    const { text } = exportFile(current, 'http://rvs.test/schemas/rvs-file.json');
    const loaded = loadRvsFile(text, 'rvs.yaml', env);
    const [regions, sweep] = loaded.file.suites;
    expect(regions).toMatchObject({ name: 'regions', vantage_points: ['eu-west', 'us-east'], vantage_start_timeout_s: 90 });
    expect(sweep).toMatchObject({ name: 'sweep', workload: { sweep: { rates: [5, 10, 20], step_s: 10, warmup_s: 2 } }, thresholds: { capacity_min_rps: 12 } });
    expect(sweep!.vantage_points).toBeUndefined();

    const plan = planApply(loaded, current, 'rvs.yaml');
    expect(plan.suites.map((s) => [s.key, s.action, s.changes])).toEqual([
      ['regions', 'unchanged', []],
      ['sweep', 'unchanged', []],
    ]);
    // What apply sends is what the service stores again.
    expect(suiteConfigSchema.parse(suiteConfigOf(regions!, idOf))).toEqual(current.suites[0]!.config);
    expect(suiteConfigSchema.parse(suiteConfigOf(sweep!, idOf))).toEqual(current.suites[1]!.config);
  });

  it('the dry-run plan diffs them, and apply sends the changed config', () => {
    const { text } = exportFile(current, 'http://rvs.test/schemas/rvs-file.json');
    const edited = text
      .replace(/- us-east\n/, '- ap-south\n')
      .replace('vantage_start_timeout_s: 90', 'vantage_start_timeout_s: 30')
      .replace('capacity_min_rps: 12', 'capacity_min_rps: 15')
      .replace(/step_s: 10\n/, 'step_s: 20\n');
    expect(edited).not.toBe(text);
    const loaded = loadRvsFile(edited, 'rvs.yaml', env);
    const plan = planApply(loaded, current, 'rvs.yaml');
    expect(plan.suites[0]).toMatchObject({ action: 'update', changes: [
      { path: 'vantage_points', from: ['eu-west', 'us-east'], to: ['eu-west', 'ap-south'] },
      { path: 'vantage_start_timeout_s', from: 90, to: 30 },
    ] });
    expect(plan.suites[1]).toMatchObject({ action: 'update' });
    expect(plan.suites[1]!.changes).toEqual(expect.arrayContaining([
      { path: 'workload.sweep.step_s', from: 10, to: 20 },
      { path: 'thresholds.capacity_min_rps', from: 12, to: 15 },
    ]));
    expect(plan.suites[1]!.changes).toHaveLength(2);
    expect(formatPlan(plan)).toContain('  ~ vantage_points: ["eu-west","us-east"] → ["eu-west","ap-south"]\n');
    expect(suiteConfigOf(loaded.file.suites[0]!, idOf)).toMatchObject({ vantage_points: ['eu-west', 'ap-south'], vantage_start_timeout_s: 30 });

    // Left out of the file: the plan shows them removed, and apply sends a config without them.
    const without = edited.replace(/ {4}vantage_points:\n( {6}- .*\n)+/, '').replace(/ {4}vantage_start_timeout_s: 30\n/, '');
    const removed = loadRvsFile(without, 'rvs.yaml', env);
    expect(planApply(removed, current, 'rvs.yaml').suites[0]!.changes).toEqual([
      { path: 'vantage_points', from: ['eu-west', 'us-east'], to: undefined },
      { path: 'vantage_start_timeout_s', from: 90, to: undefined },
    ]);
    expect(suiteConfigOf(removed.file.suites[0]!, idOf)).not.toHaveProperty('vantage_points');
  });

  it('the file refuses vantage points with a sweep before anything changes, and its JSON Schema lists them', () => {
    const both = `${FILE}    vantage_points: [eu-west]\n    workload: { sweep: { rates: [5, 10] } }\n`;
    let lines: string[] = [];
    try {
      loadRvsFile(both, 'rvs.yaml', { RVS_SECRET_KEY_A: 'k', RVS_SECRET_TOKEN: 't' });
    } catch (error) {
      if (error instanceof RvsFileError) lines = error.lines();
    }
    expect(lines).toEqual(['rvs.yaml:14:21 suites[0].vantage_points: a capacity sweep (workload.sweep) runs from one place: leave vantage_points unset']);
    const schema = JSON.stringify(rvsFileJsonSchema());
    for (const field of ['"vantage_points"', '"vantage_start_timeout_s"', '"sweep"', '"capacity_min_rps"']) expect(schema).toContain(field);
  });
});
