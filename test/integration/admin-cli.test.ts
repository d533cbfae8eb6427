import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { generateApiKey } from '../../src/auth/api-key';
import { TENANT_SCOPES } from '../../src/auth/scopes';
import { bootstrapDefaultTenant } from '../../src/services/bootstrap';
import { get } from '../helpers/api';
import { ROOT } from '../helpers/processes';
import { startStack, type Stack } from '../helpers/stack';

interface Result {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `npm run admin -- <args>` as the script runs it (tsx), against the test database, with nothing else of this environment. */
function admin(args: string[], env: Record<string, string> = { DATABASE_URL: inject('databaseUrl') }): Promise<Result> {
  return new Promise((done, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/admin/main.ts', ...args], {
      cwd: ROOT,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => done({ code, stdout, stderr }));
  });
}

const KEY = /^rvs_[A-Za-z0-9]{12}_[A-Za-z0-9]{32,}$/m;

describe('npm run admin -- tenants', () => {
  let stack: Stack;
  const slug = `team-${randomUUID().slice(0, 8)}`;
  let key: string;

  beforeAll(async () => {
    stack = await startStack({ worker: false });
    // The platform tenant, as every start of the API makes it exist.
    await bootstrapDefaultTenant(stack.sql, generateApiKey().key);
  });
  afterAll(async () => {
    await stack?.close();
  });

  it('create prints the new tenant and its admin key once; the key works with every tenant scope and not tenants:admin', async () => {
    const created = await admin(['tenants', 'create', slug, 'Team Rocket']);
    expect(created, created.stderr).toMatchObject({ code: 0, stderr: '' });
    expect(created.stdout).toContain(`created tenant ${slug} ("Team Rocket")`);
    key = KEY.exec(created.stdout)![0];

    const me = await get<any>(stack.app, '/v1/users/me', { authorization: `Bearer ${key}` });
    expect(me.status).toBe(200);
    expect(me.body.tenant.name).toBe('Team Rocket');
    expect(me.body.scopes).toEqual([...TENANT_SCOPES]);
    expect(me.body.scopes).not.toContain('tenants:admin');
  });

  it('a taken slug exits 1 with a message and creates nothing', async () => {
    const again = await admin(['tenants', 'create', slug, 'Someone else']);
    expect(again.code).toBe(1);
    expect(again.stderr).toBe(`error: a tenant with slug "${slug}" already exists\n`);
    expect(again.stdout).toBe('');
    const [row] = await stack.sql<{ n: number }[]>`select count(*)::int as n from tenants where name = 'Someone else'`;
    expect(row!.n).toBe(0);
  });

  it('list shows the tenant, enabled', async () => {
    const list = await admin(['tenants', 'list']);
    expect(list.code).toBe(0);
    expect(list.stdout.split('\n')[0]).toBe('slug\tname\tid\tstatus');
    expect(list.stdout).toMatch(new RegExp(`^${slug}\\tTeam Rocket\\t[0-9a-f-]{36}\\tenabled$`, 'm'));
  });

  it('disable refuses the tenant key at once (401); enable accepts it again', async () => {
    const auth = { authorization: `Bearer ${key}` };
    const disabled = await admin(['tenants', 'disable', slug]);
    expect(disabled.code, disabled.stderr).toBe(0);
    expect(disabled.stdout).toContain(`${slug}: disabled`);
    expect((await get(stack.app, '/v1/users/me', auth)).status).toBe(401);
    expect((await admin(['tenants', 'list'])).stdout).toMatch(new RegExp(`^${slug}\\t.*\\tdisabled since \\d{4}-`, 'm'));

    const enabled = await admin(['tenants', 'enable', slug]);
    expect(enabled.code, enabled.stderr).toBe(0);
    expect(enabled.stdout).toBe(`${slug}: enabled\n`);
    expect((await get(stack.app, '/v1/users/me', auth)).status).toBe(200);
  });

  it.each([
    { args: ['tenants', 'disable', 'no-such-tenant'], stderr: 'error: tenant "no-such-tenant" not found\n' },
    { args: ['tenants', 'disable', 'default'], stderr: 'error: the platform tenant (slug "default") cannot be disabled\n' },
    { args: ['tenants', 'create', 'Bad Slug', 'x'], stderr: /^error: request is invalid\n {2}slug: must be lower-case/ },
    { args: ['tenants', 'create', 'default', 'x'], stderr: /slug: "default" is the platform tenant's slug/ },
  ])('$args.1 $args.2 exits 1: $stderr', async ({ args, stderr }) => {
    const result = await admin(args);
    expect(result.code).toBe(1);
    if (typeof stderr === 'string') expect(result.stderr).toBe(stderr);
    else expect(result.stderr).toMatch(stderr);
  });

  it.each([[[]], [['tenants']], [['tenants', 'rename', 'x']], [['keys', 'list']], [['tenants', 'create', 'only-slug']], [['tenants', 'list', 'extra']]])(
    'usage errors exit 2 with the usage: %j',
    async (args) => {
      const result = await admin(args);
      expect(result.code).toBe(2);
      expect(result.stdout + result.stderr).toContain('usage: npm run admin -- tenants <command>');
    },
  );

  it('keys create prints a new key of the tenant once, with the scopes asked for', async () => {
    const created = await admin(['keys', 'create', '--tenant', slug, '--scopes', 'runs:read,runs:write', '--name', 'ci recovery']);
    expect(created, created.stderr).toMatchObject({ code: 0, stderr: '' });
    expect(created.stdout).toMatch(new RegExp(`^created key rvs_[A-Za-z0-9]{12} \\("ci recovery"\\) of tenant ${slug} with scopes runs:read, runs:write$`, 'm'));
    const recovered = KEY.exec(created.stdout)![0];
    expect(created.stdout.split(recovered).length - 1).toBe(1);
    const me = await get<any>(stack.app, '/v1/users/me', { authorization: `Bearer ${recovered}` });
    expect(me.status).toBe(200);
    expect(me.body.tenant.name).toBe('Team Rocket');
    expect(me.body.scopes).toEqual(['runs:read', 'runs:write']);
    // Stored like any key: listed by its prefix and name, never with its secret.
    const [row] = await stack.sql<{ name: string }[]>`select name from api_keys where prefix = ${recovered.split('_')[1]!}`;
    expect(row!.name).toBe('ci recovery');
  });

  it('keys create --scopes all recovers the platform tenant: the key administers tenants', async () => {
    const created = await admin(['keys', 'create', '--tenant', 'default', '--scopes', 'all']);
    expect(created.code, created.stderr).toBe(0);
    const recovered = KEY.exec(created.stdout)![0];
    const me = await get<any>(stack.app, '/v1/users/me', { authorization: `Bearer ${recovered}` });
    expect(me.body.scopes).toContain('tenants:admin');
    expect((await get(stack.app, '/v1/tenants', { authorization: `Bearer ${recovered}` })).status).toBe(200);
    expect(created.stdout).toContain('("recovery (npm run admin)")');
  });

  it.each([
    { args: ['--tenant', 'no-such-tenant', '--scopes', 'all'], code: 1, stderr: /^error: tenant "no-such-tenant" not found\n$/ },
    { args: ['--tenant', 'SLUG', '--scopes', 'everything'], code: 1, stderr: /^error: request is invalid\n {2}scopes\.0: / },
    { args: ['--tenant', 'SLUG', '--scopes', 'tenants:admin'], code: 1, stderr: /tenants:admin is held only by keys of the platform tenant/ },
    { args: ['--tenant', 'SLUG'], code: 2, stderr: /keys create needs --scopes/ },
    { args: ['--scopes', 'all'], code: 2, stderr: /keys create needs --tenant/ },
    { args: ['--tenant', 'SLUG', '--scopes', 'all', '--owner', 'x'], code: 2, stderr: /keys create: Unknown option '--owner'/ },
  ])('keys create $args exits $code and creates nothing', async ({ args, code, stderr }) => {
    const [before] = await stack.sql<{ n: number }[]>`select count(*)::int as n from api_keys`;
    const result = await admin(['keys', 'create', ...args.map((arg) => (arg === 'SLUG' ? slug : arg))]);
    expect(result.code, result.stderr).toBe(code);
    expect(result.stderr).toMatch(stderr);
    expect(result.stdout).toBe('');
    const [after] = await stack.sql<{ n: number }[]>`select count(*)::int as n from api_keys`;
    expect(after!.n).toBe(before!.n);
  });

  it("caps shows the tenant's caps, sets them, and gives them back to the service's defaults", async () => {
    expect((await admin(['tenants', 'caps', slug])).stdout).toBe(`${slug}: running runs default, probe activities default\n`);
    const set = await admin(['tenants', 'caps', slug, '--running-runs', '3', '--probe-activities', '5']);
    expect(set, set.stderr).toMatchObject({ code: 0, stdout: `${slug}: running runs 3, probe activities 5\n` });
    const [row] = await stack.sql<{ max_running_runs: number; max_probe_activities: number }[]>`select max_running_runs, max_probe_activities from tenants where slug = ${slug}`;
    expect(row).toEqual({ max_running_runs: 3, max_probe_activities: 5 });
    expect((await admin(['tenants', 'caps', slug, '--probe-activities', 'default'])).stdout).toBe(`${slug}: running runs 3, probe activities default\n`);
    const refused = await admin(['tenants', 'caps', slug, '--running-runs', '0']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('--running-runs must be a whole number from 1 to 100000, or default');
  });

  it('without DATABASE_URL it says so and exits 1', async () => {
    const result = await admin(['tenants', 'list'], {});
    expect(result).toEqual({ code: 1, stdout: '', stderr: 'npm run admin needs DATABASE_URL (the database the API uses)\n' });
  });
});
