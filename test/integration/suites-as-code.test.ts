import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { main } from '../../src/cli/main';
import { createSuite, get } from '../helpers/api';
import { startStack, type Stack } from '../helpers/stack';

// Ajv 8 (draft 2020-12) is ajv-formats' own dependency, as in openapi.test.ts.
const requireFromFormats = createRequire(createRequire(__filename).resolve('ajv-formats'));
type Validate = ((data: unknown) => boolean) & { errors?: unknown };
const Ajv2020 = (requireFromFormats('ajv/dist/2020') as { default: new (options: object) => { compile(schema: object): Validate } }).default;

interface Result {
  code: number;
  stdout: string;
  stderr: string;
}

/** The CLI's own main(), against the API listening on loopback (real HTTP, no inject). */
async function rvs(args: string[], env: Record<string, string>): Promise<Result> {
  let stdout = '';
  let stderr = '';
  const code = await main({
    argv: args,
    env,
    stdout: { write: (chunk: string) => (stdout += chunk) },
    stderr: { write: (chunk: string) => (stderr += chunk), isTTY: false },
    version: 'test',
  });
  return { code, stdout, stderr };
}

type Auth = { authorization: string };

/** Everything the API shows of a tenant's chains, endpoints and suites, updated_at included. */
async function snapshot(stack: Stack, auth: Auth) {
  const list = async (path: string) => (await get<{ data: Record<string, any>[] }>(stack.app, `${path}?limit=200`, auth)).body.data;
  const suites = (await list('/v1/suites')).map((s): Record<string, any> => ({ ...s, schedule: s.schedule && { ...s.schedule, next_fire_times: null } }));
  return { chains: await list('/v1/chains'), endpoints: await list('/v1/endpoints'), suites };
}

const FILE = `# an rvs file as a user writes it: defaults left out
version: 1
chains:
  - slug: devnet
    name: Devnet
    chain_id: 1337
endpoints:
  - name: node-a
    chain: devnet
    url: \${RVS_SECRET_NODE_A_URL}
    headers:
      x-api-key: \${RVS_SECRET_NODE_A_KEY}
    timeout_ms: 2000
  - name: node-b
    chain: devnet
    url: http://127.0.0.1:\${RVS_SECRET_NODE_B_PORT}/rpc/\${RVS_SECRET_NODE_B_TOKEN}
suites:
  - name: smoke
    chain: devnet
    targets: [node-a]
    reference: node-b
    workload:
      requests_per_target: 50
      methods:
        - method: eth_blockNumber
    thresholds:
      latency_p95_max_ms: 300
    schedule:
      interval_s: 3600
      paused: true
`;

describe('suites as code: rvs apply, apply --dry-run, export, and the file schema against a real stack', () => {
  let stack: Stack;
  let baseUrl: string;
  let dir: string;

  beforeAll(async () => {
    stack = await startStack({ worker: false });
    baseUrl = await stack.app.listen({ host: '127.0.0.1', port: 0 });
    dir = await mkdtemp(join(tmpdir(), 'rvs-apply-it-'));
  });
  afterAll(async () => {
    await stack?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const secrets = {
    RVS_SECRET_NODE_A_URL: 'http://127.0.0.1:18545/v2/key-aaaa1111',
    RVS_SECRET_NODE_A_KEY: 'header-secret-a',
    RVS_SECRET_NODE_B_PORT: '18546',
    RVS_SECRET_NODE_B_TOKEN: 'token-bbbb2222',
  };

  async function fileWith(name: string, text: string): Promise<string> {
    const path = join(dir, name);
    await writeFile(path, text);
    return path;
  }

  it('apply creates everything; applied again it is a no-op (nothing written, updated_at unchanged)', async () => {
    const { key, auth } = await stack.newTenant();
    const env = { RVS_URL: baseUrl, RVS_API_KEY: key, ...secrets };
    const file = await fileWith('first.yaml', FILE);

    const first = await rvs(['apply', '-f', file], env);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain('chain devnet: create\n');
    expect(first.stdout).toContain('endpoint devnet/node-a: create\n');
    expect(first.stdout).toContain('  + url: "http://127.0.0.1:18545/****/****"\n');
    expect(first.stdout).toContain('  + header_names: ["x-api-key"]\n');
    expect(first.stdout).toContain('suite smoke: create\n');
    expect(first.stdout).toContain('Plan: 4 to create, 0 to update, 0 unchanged.\n');
    expect(first.stdout).toContain('Applied: 4 created, 0 updated, 0 unchanged.\n');
    // 50 calls per target: the service warns what the suite's checks cannot decide, and rvs says so.
    expect(first.stderr).toContain('rvs: warning: suite smoke: 50 calls per target: latency_vs_reference can neither fail nor pass on its interval');
    for (const secret of ['key-aaaa1111', 'header-secret-a', 'token-bbbb2222']) {
      expect(first.stdout + first.stderr).not.toContain(secret);
    }

    // What was created is what the file says, with the secrets from the environment.
    const after = await snapshot(stack, auth);
    expect(after.chains).toMatchObject([{ slug: 'devnet', name: 'Devnet', chain_id: 1337, family: 'evm' }]);
    const byName = Object.fromEntries(after.endpoints.map((e) => [e.name, e]));
    expect(byName['node-a']).toMatchObject({ timeout_ms: 2000, header_names: ['x-api-key'] });
    const [stored] = await stack.sql<{ url_encrypted: string; headers_encrypted: string }[]>`
      select url_encrypted, headers_encrypted from endpoints where id = ${byName['node-a']!.id}`;
    expect(stack.box.decrypt(stored!.url_encrypted)).toBe(secrets.RVS_SECRET_NODE_A_URL);
    expect(JSON.parse(stack.box.decrypt(stored!.headers_encrypted))).toEqual({ 'x-api-key': 'header-secret-a' });
    expect(after.suites).toHaveLength(1);
    expect(after.suites[0]).toMatchObject({
      name: 'smoke',
      description: '',
      config: {
        targets: [{ endpoint_id: byName['node-a']!.id, role: 'primary' }],
        reference_endpoint_id: byName['node-b']!.id,
        thresholds: { latency_p95_max_ms: 300, latency_regression_max_pct: 20 },
        workload: { requests_per_target: 50, concurrency: 4 },
      },
      schedule: { interval_s: 3600, paused: true },
    });

    const second = await rvs(['apply', '-f', file], env);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toBe(
      [
        'chain devnet: unchanged',
        'endpoint devnet/node-a: unchanged',
        'endpoint devnet/node-b: unchanged',
        'suite smoke: unchanged',
        'Plan: 0 to create, 0 to update, 4 unchanged.',
        'chain devnet: unchanged',
        'endpoint devnet/node-a: unchanged',
        'endpoint devnet/node-b: unchanged',
        `suite smoke: unchanged (id ${after.suites[0]!.id})`,
        'Applied: 0 created, 0 updated, 4 unchanged.',
        '',
      ].join('\n'),
    );
    expect(await snapshot(stack, auth)).toEqual(after);
  });

  it('apply --dry-run prints the plan with a field diff and changes nothing; a rotated key is applied though the plan cannot see it', async () => {
    const { key, auth } = await stack.newTenant();
    const env = { RVS_URL: baseUrl, RVS_API_KEY: key, ...secrets };
    expect((await rvs(['apply', '-f', await fileWith('base.yaml', FILE)], env)).code).toBe(0);
    const before = await snapshot(stack, auth);

    const changed = FILE.replace('timeout_ms: 2000', 'timeout_ms: 3000')
      .replace('latency_p95_max_ms: 300', 'latency_p95_max_ms: 250\n      success_rate_min_pct: 95')
      .replace('chain_id: 1337', 'chain_id: 31337')
      .concat(`  - name: second\n    chain: devnet\n    description: another\n    targets: [node-b]\n`);
    const path = await fileWith('changed.yaml', changed);
    const dry = await rvs(['apply', '-f', path, '--dry-run'], env);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toContain('chain devnet: update\n  ~ chain_id: 1337 → 31337\n');
    expect(dry.stdout).toContain('endpoint devnet/node-a: update\n  ~ timeout_ms: 2000 → 3000\n');
    expect(dry.stdout).toContain('endpoint devnet/node-b: unchanged\n');
    expect(dry.stdout).toContain('suite smoke: update\n  ~ thresholds.latency_p95_max_ms: 300 → 250\n  ~ thresholds.success_rate_min_pct: 99 → 95\n');
    expect(dry.stdout).toContain('suite second: create\n  + description: "another"\n  + targets: ["node-b"]\n');
    expect(dry.stdout).toContain('Plan: 1 to create, 3 to update, 1 unchanged.\nDry run: nothing was changed.\n');
    expect(await snapshot(stack, auth)).toEqual(before);

    // The same path and host with another key: the redacted URL is equal, so the plan says
    // unchanged, but the service compares the real value and stores the new one.
    const rotated = { ...env, RVS_SECRET_NODE_A_URL: 'http://127.0.0.1:18545/v2/key-cccc3333' };
    const apply = await rvs(['apply', '-f', await fileWith('base-again.yaml', FILE)], rotated);
    expect(apply.code, apply.stderr).toBe(0);
    expect(apply.stdout).toContain('endpoint devnet/node-a: unchanged\n');
    expect(apply.stdout).toContain('endpoint devnet/node-a: updated (url or header values changed)\n');
    expect(apply.stdout).toContain('Applied: 0 created, 1 updated, 3 unchanged.\n');
    expect(apply.stdout).not.toContain('key-cccc3333');
    const nodeA = before.endpoints.find((e) => e.name === 'node-a')!;
    const [stored] = await stack.sql<{ url_encrypted: string }[]>`select url_encrypted from endpoints where id = ${nodeA.id}`;
    expect(stack.box.decrypt(stored!.url_encrypted)).toBe('http://127.0.0.1:18545/v2/key-cccc3333');

    const applied = await rvs(['apply', '-f', path], rotated);
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.stdout).toContain('Applied: 1 created, 3 updated, 1 unchanged.\n');
    const now = await snapshot(stack, auth);
    expect(now.chains[0]).toMatchObject({ chain_id: 31337 });
    expect(now.suites.find((s) => s.name === 'smoke')!.config.thresholds).toMatchObject({ latency_p95_max_ms: 250, success_rate_min_pct: 95 });
    expect((await rvs(['apply', '-f', path], rotated)).stdout).toContain('Applied: 0 created, 0 updated, 5 unchanged.\n');
  });

  it('export writes the tenant as a file with ${…} placeholders; applied back with those variables it changes nothing', async () => {
    const { key, auth } = await stack.newTenant();
    // Made through the API, not by a file: names with spaces, headers, a reference.
    await createSuite(stack.app, auth, {
      candidates: ['http://127.0.0.1:18600/secret-path-1', 'http://127.0.0.1:18601/?apikey=secret-query-2'],
      reference: 'http://user:secret-pass-3@127.0.0.1:18602/',
      headers: { authorization: 'Bearer secret-header-4' },
      config: { thresholds: { latency_p95_max_ms: 750, correctness_enabled: true } },
    });
    const env = { RVS_URL: baseUrl, RVS_API_KEY: key };
    const before = await snapshot(stack, auth);

    const out = join(dir, 'exported.yaml');
    const exported = await rvs(['export', '--output', out], env);
    expect(exported.code, exported.stderr).toBe(0);
    expect(exported.stdout).toBe(`wrote ${out}\nsuite suite under test: id ${before.suites[0]!.id}\n`);
    const text = await readFile(out, 'utf8');
    for (const secret of ['secret-path-1', 'secret-query-2', 'secret-pass-3', 'secret-header-4']) expect(text).not.toContain(secret);
    expect(exported.stderr).toContain(
      'the file takes endpoint URLs and header values from: RVS_SECRET_CANDIDATE_0_URL, RVS_SECRET_CANDIDATE_0_AUTHORIZATION, RVS_SECRET_CANDIDATE_1_URL, RVS_SECRET_CANDIDATE_1_AUTHORIZATION, RVS_SECRET_REFERENCE_URL, RVS_SECRET_REFERENCE_AUTHORIZATION',
    );
    const file = parse(text) as Record<string, any>;
    expect(file.endpoints[0]).toEqual({
      name: 'candidate 0',
      chain: before.chains[0]!.slug,
      url: '${RVS_SECRET_CANDIDATE_0_URL}',
      headers: { authorization: '${RVS_SECRET_CANDIDATE_0_AUTHORIZATION}' },
      timeout_ms: 2000,
    });
    expect(file.suites[0]).toMatchObject({ name: 'suite under test', targets: ['candidate 0', 'candidate 1'], reference: 'reference', schedule: null });
    expect(file.suites[0].thresholds).toMatchObject({ latency_p95_max_ms: 750, correctness_enabled: true });

    // The published schema accepts what export writes (as an editor would check it).
    const schema = await fetch(`${baseUrl}/v1/schemas/rvs-file.json`);
    expect(schema.status).toBe(200);
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv as never);
    const validate = ajv.compile((await schema.json()) as object);
    expect(validate(file), JSON.stringify(validate.errors)).toBe(true);

    const values = {
      RVS_SECRET_CANDIDATE_0_URL: 'http://127.0.0.1:18600/secret-path-1',
      RVS_SECRET_CANDIDATE_1_URL: 'http://127.0.0.1:18601/?apikey=secret-query-2',
      RVS_SECRET_REFERENCE_URL: 'http://user:secret-pass-3@127.0.0.1:18602/',
      RVS_SECRET_CANDIDATE_0_AUTHORIZATION: 'Bearer secret-header-4',
      RVS_SECRET_CANDIDATE_1_AUTHORIZATION: 'Bearer secret-header-4',
      RVS_SECRET_REFERENCE_AUTHORIZATION: 'Bearer secret-header-4',
    };
    const applied = await rvs(['apply', '-f', out], { ...env, ...values });
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.stdout).toContain('Plan: 0 to create, 0 to update, 5 unchanged.\n');
    expect(applied.stdout).toContain('Applied: 0 created, 0 updated, 5 unchanged.\n');
    expect(await snapshot(stack, auth)).toEqual(before);

    // Into an empty tenant the same file recreates the same configuration.
    const other = await stack.newTenant();
    const recreated = await rvs(['apply', '-f', out], { ...values, RVS_URL: baseUrl, RVS_API_KEY: other.key });
    expect(recreated.code, recreated.stderr).toBe(0);
    expect(recreated.stdout).toContain('Applied: 5 created, 0 updated, 0 unchanged.\n');
    const again = await rvs(['export'], { RVS_URL: baseUrl, RVS_API_KEY: other.key });
    expect(again.stdout).toBe(text);
  });

  it('a bad file: every problem with its line and column, and nothing changes', async () => {
    const { key, auth } = await stack.newTenant();
    const env = { RVS_URL: baseUrl, RVS_API_KEY: key, ...secrets };
    expect((await rvs(['apply', '-f', await fileWith('ok.yaml', FILE)], env)).code).toBe(0);
    const before = await snapshot(stack, auth);

    const schemaErrors = await rvs(
      ['apply', '-f', await fileWith('bad-schema.yaml', FILE.replace('timeout_ms: 2000', 'timeout_ms: 5').replace('    chain_id: 1337', '    chain_id: 1337\n    colour: red').replace('url: ${RVS_SECRET_NODE_A_URL}', 'url: http://127.0.0.1:8545/literal-key'))],
      env,
    );
    expect(schemaErrors.code).toBe(3);
    expect(schemaErrors.stdout).toBe('');
    const name = join(dir, 'bad-schema.yaml');
    expect(schemaErrors.stderr).toBe(
      [
        `rvs: ${name}:7:5 chains[0].colour: unknown field`,
        `rvs: ${name}:11:10 endpoints[0].url: url must come from the environment: write \${NAME} (e.g. \${RVS_SECRET_RPC_URL}), never the value itself`,
        `rvs: ${name}:14:17 endpoints[0].timeout_ms: Too small: expected number to be >=100`,
        'rvs: nothing was changed',
        '',
      ].join('\n'),
    );

    const syntax = await rvs(['apply', '-f', await fileWith('bad-syntax.yaml', 'version: 1\nchains:\n  - slug: a\n    slug: b\n')], env);
    expect(syntax.code).toBe(3);
    expect(syntax.stderr).toContain('bad-syntax.yaml:4:5: Map keys must be unique');

    // A field left out is reported where its object starts.
    const unnamed = await rvs(['apply', '-f', await fileWith('unnamed.yaml', FILE.replace('    name: Devnet\n', ''))], env);
    expect(unnamed.code).toBe(3);
    expect(unnamed.stderr).toContain('unnamed.yaml:4:5 chains[0].name: required\n');

    // Valid on its own, wrong against the environment or the tenant: also found before any write.
    const unset = await rvs(['apply', '-f', await fileWith('unset.yaml', FILE)], { ...env, RVS_SECRET_NODE_B_TOKEN: '' });
    expect(unset.code).toBe(3);
    expect(unset.stderr).toContain('unset.yaml:16:10 endpoints[1].url: environment variable RVS_SECRET_NODE_B_TOKEN is not set\n');
    const unknown = FILE.replace('targets: [node-a]', 'targets: [node-a, node-c]').replace('chain: devnet\n    targets', 'chain: mainnet\n    targets');
    const refs = await rvs(['apply', '-f', await fileWith('refs.yaml', unknown)], env);
    expect(refs.code).toBe(3);
    const refsFile = join(dir, 'refs.yaml');
    expect(refs.stderr).toBe(
      [
        `rvs: ${refsFile}:19:12 suites[0].chain: no chain "mainnet" in the file or the tenant`,
        `rvs: ${refsFile}:19:12 suites[0].chain: suite "smoke" is on chain devnet; a suite's chain cannot change`,
        `rvs: ${refsFile}:20:15 suites[0].targets[0]: no endpoint "node-a" on chain mainnet in the file or the tenant`,
        `rvs: ${refsFile}:20:23 suites[0].targets[1]: no endpoint "node-c" on chain mainnet in the file or the tenant`,
        `rvs: ${refsFile}:21:16 suites[0].reference: no endpoint "node-b" on chain mainnet in the file or the tenant`,
        'rvs: nothing was changed',
        '',
      ].join('\n'),
    );

    expect(await snapshot(stack, auth)).toEqual(before);
  });

  it('${NAME} is an allow-list: the CLI\'s key and CI variables are refused, others need --env; the dry run lists every variable by name', async () => {
    const { key, auth } = await stack.newTenant();
    const ci = { GITHUB_TOKEN: 'ghs_planted-github-token', ACTIONS_ID_TOKEN_REQUEST_TOKEN: 'planted-oidc', CUSTOM_URL: 'http://127.0.0.1:18547/v2/custom-key' };
    const env = { RVS_URL: baseUrl, RVS_API_KEY: key, ...secrets, ...ci };
    const before = await snapshot(stack, auth);
    // A file that sends the CLI's own key and the job's GitHub token to a host of its choosing.
    const hostile = FILE.replace('      x-api-key: ${RVS_SECRET_NODE_A_KEY}\n', '      x-rvs-key: "${RVS_API_KEY}"\n      x-gh: "${GITHUB_TOKEN}"\n      x-oidc: "${ACTIONS_ID_TOKEN_REQUEST_TOKEN}"\n');
    const path = await fileWith('hostile.yaml', hostile);

    for (const args of [[], ['--env', 'CUSTOM_URL']]) {
      const refused = await rvs(['apply', '-f', path, ...args], env);
      expect(refused.code).toBe(3);
      expect(refused.stdout).toBe('');
      expect(refused.stderr).toBe(
        [
          `rvs: ${path}:12:18 endpoints[0].headers.x-rvs-key: environment variable RVS_API_KEY is refused: RVS_API_KEY, GITHUB_*, ACTIONS_*, RUNNER_* are never read from a file, not even with --env`,
          `rvs: ${path}:13:13 endpoints[0].headers.x-gh: environment variable GITHUB_TOKEN is refused: RVS_API_KEY, GITHUB_*, ACTIONS_*, RUNNER_* are never read from a file, not even with --env`,
          `rvs: ${path}:14:15 endpoints[0].headers.x-oidc: environment variable ACTIONS_ID_TOKEN_REQUEST_TOKEN is refused: RVS_API_KEY, GITHUB_*, ACTIONS_*, RUNNER_* are never read from a file, not even with --env`,
          'rvs: nothing was changed',
          '',
        ].join('\n'),
      );
    }
    const named = await rvs(['apply', '-f', path, '--env', 'GITHUB_TOKEN'], env);
    expect(named.code).toBe(3);
    expect(named.stderr).toBe('rvs: --env: GITHUB_TOKEN is refused: RVS_API_KEY, GITHUB_*, ACTIONS_*, RUNNER_* are never read from a file, not even with --env\n');

    // The dry run shows what the file reads, names only, even though it is refused.
    const dry = await rvs(['apply', '-f', path, '--dry-run'], env);
    expect(dry.code).toBe(3);
    expect(dry.stdout).toBe(
      [
        'Environment variables read (names only):',
        '  RVS_SECRET_NODE_A_URL           allowed (RVS_SECRET_*)',
        '  RVS_API_KEY                     refused (never read from a file)',
        '  GITHUB_TOKEN                    refused (never read from a file)',
        '  ACTIONS_ID_TOKEN_REQUEST_TOKEN  refused (never read from a file)',
        '  RVS_SECRET_NODE_B_PORT          allowed (RVS_SECRET_*)',
        '  RVS_SECRET_NODE_B_TOKEN         allowed (RVS_SECRET_*)',
        '',
      ].join('\n'),
    );
    for (const value of [key, ...Object.values(ci), ...Object.values(secrets)]) expect(dry.stdout + dry.stderr).not.toContain(value);
    expect(await snapshot(stack, auth)).toEqual(before);

    // Another name is read only when named with --env.
    const custom = FILE.replace('url: ${RVS_SECRET_NODE_A_URL}', 'url: ${CUSTOM_URL}');
    const customPath = await fileWith('custom.yaml', custom);
    const notNamed = await rvs(['apply', '-f', customPath], env);
    expect(notNamed.code).toBe(3);
    expect(notNamed.stderr).toContain(
      `${customPath}:10:10 endpoints[0].url: environment variable CUSTOM_URL is not allowed: a file reads only RVS_SECRET_* variables and those named with --env NAME (rename it RVS_SECRET_CUSTOM_URL, or pass --env CUSTOM_URL)\n`,
    );
    expect(await snapshot(stack, auth)).toEqual(before);
    const dryNamed = await rvs(['apply', '-f', customPath, '--env', 'CUSTOM_URL', '--dry-run'], env);
    expect(dryNamed.code, dryNamed.stderr).toBe(0);
    expect(dryNamed.stdout).toContain('Environment variables read (names only):\n  CUSTOM_URL               allowed (--env)\n');
    const applied = await rvs(['apply', '-f', customPath, '--env', 'CUSTOM_URL'], env);
    expect(applied.code, applied.stderr).toBe(0);
    const nodeA = (await snapshot(stack, auth)).endpoints.find((e) => e.name === 'node-a')!;
    const [stored] = await stack.sql<{ url_encrypted: string }[]>`select url_encrypted from endpoints where id = ${nodeA.id}`;
    expect(stack.box.decrypt(stored!.url_encrypted)).toBe(ci.CUSTOM_URL);
  });

  it('the schema the API serves is the one the CLI prints and ships (public, no credential)', async () => {
    const served = await fetch(`${baseUrl}/v1/schemas/rvs-file.json`);
    expect(served.status).toBe(200);
    const printed = await rvs(['schema'], {});
    expect(printed.code).toBe(0);
    expect(await served.json()).toEqual(JSON.parse(printed.stdout));
    const openapi = (await (await fetch(`${baseUrl}/v1/openapi.json`)).json()) as Record<string, any>;
    expect(openapi.paths['/v1/schemas/rvs-file.json'].get.operationId).toBe('getRvsFileSchema');
  });
});
