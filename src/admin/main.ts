/**
 * `npm run admin -- tenants <command>` and `keys create`: tenant administration on the server side,
 * straight against the database (DATABASE_URL), for the operator who has no platform key at hand
 * (or lost every key of a tenant: `keys create` is the recovery path). It runs the same service
 * verbs as the /v1/tenants routes, as a platform principal, after applying pending migrations
 * like the API does at start.
 */
import { parseArgs } from 'node:util';
import { SCOPES, TENANT_SCOPES } from '../auth/scopes';
import { loadConfigOrExit } from '../config';
import { createSql, type Sql } from '../db/client';
import { migrate } from '../db/migrate';
import { setTenantProbeCap, tenantCaps } from '../db/tenant-probe-cap';
import { setTenantRunCap } from '../db/tenant-run-cap';
import { AppError } from '../errors';
import { createApiKeyInput } from '../services/api-keys';
import { parseOrThrow } from '../parse-or-throw';
import { createTenant, createTenantApiKey, createTenantInput, getTenantBySlug, listTenants, updateTenant, type TenantAdminCtx, type TenantResponse } from '../services/tenants';

export const USAGE = `usage: npm run admin -- tenants <command>

  tenants create <slug> "<name>"   create a tenant and print its first admin key (shown once)
  tenants list                     list every tenant, newest first
  tenants disable <slug>           refuse every credential of the tenant (401) until enabled
  tenants enable <slug>            accept the tenant's credentials again
  tenants caps <slug> [--running-runs <n|default>] [--probe-activities <n|default>]
                                   show or set the tenant's caps on runs claimed or running and on
                                   probe activities in flight at once (default: the service's,
                                   RVS_TENANT_MAX_RUNNING_RUNS / RVS_TENANT_MAX_PROBE_ACTIVITIES)

       npm run admin -- keys create --tenant <slug> --scopes <scope,...|all> [--name <name>]

  keys create                      a new API key of the tenant, printed once: the way back in when
                                   every key of a tenant (the platform tenant "default" included)
                                   is lost. --scopes all: every scope the tenant's keys can hold.

Needs DATABASE_URL. Exit codes: 0 done, 1 refused or failed (the message says why), 2 usage.`;

/** The server-side operator: every scope, tenants:admin included. */
const OPERATOR = { scopes: SCOPES };

class UsageError extends Error {}

type Write = (text: string) => void;

function formatTenant(t: TenantResponse): string {
  const status = t.disabled ? `disabled since ${t.disabled_at!.toISOString()}` : 'enabled';
  return `${t.slug}\t${t.name}\t${t.id}\t${status}${t.platform ? ' (platform)' : ''}`;
}

/** `keys create --tenant <slug> --scopes <list|all> [--name <name>]`. */
async function createKey(sql: Sql, args: readonly string[], out: Write): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...args],
      options: { tenant: { type: 'string' }, scopes: { type: 'string', multiple: true }, name: { type: 'string' } },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    throw new UsageError(`keys create: ${(error as Error).message}`);
  }
  if (values.tenant === undefined) throw new UsageError('keys create needs --tenant <slug>');
  if (values.scopes === undefined) throw new UsageError('keys create needs --scopes <scope,...> or --scopes all');
  const ctx: TenantAdminCtx = { principal: OPERATOR, deps: { sql } };
  const tenant = await getTenantBySlug({ ctx, input: { slug: values.tenant } });
  const named = values.scopes.flatMap((list) => list.split(',')).map((scope) => scope.trim()).filter(Boolean);
  // `all`: what the tenant's keys can hold, so the platform tenant's recovery key can administer tenants.
  const scopes = named.includes('all') ? (tenant.platform ? [...SCOPES] : [...TENANT_SCOPES]) : named;
  const key = parseOrThrow(createApiKeyInput, { name: values.name ?? 'recovery (npm run admin)', scopes });
  const issued = await createTenantApiKey({ ctx, input: { tenantId: tenant.id, key } });
  out(`created key ${issued.prefix} ("${issued.name}") of tenant ${tenant.slug} with scopes ${issued.scopes.join(', ')}\n`);
  if (tenant.disabled) out(`note: the tenant is disabled; the key works once it is enabled (npm run admin -- tenants enable ${tenant.slug})\n`);
  out(`API key (shown only this once, store it now):\n${issued.key}\n`);
  return 0;
}

/** A cap's value on the command line: a whole number from 1 to 100,000, or `default` (null). */
function capValue(option: string, value: string): number | null {
  if (value === 'default') return null;
  const cap = Number(value);
  if (!/^[0-9]+$/.test(value) || cap < 1 || cap > 100_000) throw new UsageError(`tenants caps: --${option} must be a whole number from 1 to 100000, or default`);
  return cap;
}

/** `tenants caps <slug> [--running-runs <n|default>] [--probe-activities <n|default>]`. */
async function caps(sql: Sql, args: readonly string[], out: Write): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...args],
      options: { 'running-runs': { type: 'string' }, 'probe-activities': { type: 'string' } },
      strict: true,
      allowPositionals: true,
    });
  } catch (error) {
    throw new UsageError(`tenants caps: ${(error as Error).message}`);
  }
  if (parsed.positionals.length !== 1) throw new UsageError('tenants caps takes 1 argument');
  const ctx: TenantAdminCtx = { principal: OPERATOR, deps: { sql } };
  const tenant = await getTenantBySlug({ ctx, input: { slug: parsed.positionals[0]! } });
  const runs = parsed.values['running-runs'];
  const probes = parsed.values['probe-activities'];
  if (runs !== undefined) await setTenantRunCap(sql, tenant.id, capValue('running-runs', runs));
  if (probes !== undefined) await setTenantProbeCap(sql, tenant.id, capValue('probe-activities', probes));
  const current = await tenantCaps(sql, tenant.id);
  const show = (cap: number | null) => (cap === null ? 'default' : String(cap));
  out(`${tenant.slug}: running runs ${show(current.maxRunningRuns)}, probe activities ${show(current.maxProbeActivities)}\n`);
  return 0;
}

/** One command against an open database handle; returns the exit code. */
export async function runAdminCommand(sql: Sql, args: readonly string[], out: Write): Promise<number> {
  const [group, command, ...rest] = args;
  if (group === 'keys' && command === 'create') return createKey(sql, rest, out);
  if (group === 'tenants' && command === 'caps') return caps(sql, rest, out);
  if (group !== 'tenants' || command === undefined) throw new UsageError(group === undefined ? 'no command given' : `unknown command "${args.join(' ')}"`);
  const expect = (count: number) => {
    if (rest.length !== count) throw new UsageError(`tenants ${command} takes ${count === 0 ? 'no arguments' : `${count} argument${count > 1 ? 's' : ''}`}`);
  };
  const ctx: TenantAdminCtx = { principal: OPERATOR, deps: { sql } };
  switch (command) {
    case 'create': {
      expect(2);
      const input = parseOrThrow(createTenantInput, { slug: rest[0], name: rest[1] });
      // One transaction: a tenant is never left behind without the key that was to be printed.
      const { tenant, key } = await sql.begin(async (tx) => {
        const txCtx: TenantAdminCtx = { principal: OPERATOR, deps: { sql: tx } };
        const created = await createTenant({ ctx: txCtx, input });
        const issued = await createTenantApiKey({ ctx: txCtx, input: { tenantId: created.id, key: { name: 'admin (npm run admin)', scopes: [...TENANT_SCOPES] } } });
        return { tenant: created, key: issued };
      });
      out(`created tenant ${tenant.slug} ("${tenant.name}"), id ${tenant.id}\n`);
      out(`admin key (every tenant scope; shown only this once, store it now):\n${key.key}\n`);
      return 0;
    }
    case 'list': {
      expect(0);
      const limit = 200;
      for (let offset = 0; ; offset += limit) {
        const page = await listTenants({ ctx, input: { limit, offset } });
        if (offset === 0) out(page.data.length === 0 ? 'no tenants\n' : 'slug\tname\tid\tstatus\n');
        for (const tenant of page.data) out(`${formatTenant(tenant)}\n`);
        if (!page.pagination.has_more) return 0;
      }
    }
    case 'disable':
    case 'enable': {
      expect(1);
      const tenant = await getTenantBySlug({ ctx, input: { slug: rest[0]! } });
      const updated = await updateTenant({ ctx, input: { tenantId: tenant.id, patch: { disabled: command === 'disable' } } });
      out(`${updated.slug}: ${updated.disabled ? 'disabled; every credential of it is refused until it is enabled again' : 'enabled'}\n`);
      return 0;
    }
    default:
      throw new UsageError(`unknown command "tenants ${command}"`);
  }
}

function describe(error: AppError): string {
  const details = error.details.map((d) => `\n  ${d.field}: ${d.message}`).join('');
  return `${error.message}${details}`;
}

async function main(): Promise<number> {
  const args = process.argv.slice(2);
  if (args.length === 0 || args.includes('--help') || args.includes('-h')) {
    process.stdout.write(`${USAGE}\n`);
    return args.length === 0 ? 2 : 0;
  }
  const config = loadConfigOrExit(process.env);
  if (!config.databaseUrl) {
    process.stderr.write('npm run admin needs DATABASE_URL (the database the API uses)\n');
    return 1;
  }
  const sql = createSql(config.databaseUrl, { max: 1 });
  try {
    await migrate(sql);
    return await runAdminCommand(sql, args, (text) => process.stdout.write(text));
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`${error.message}\n\n${USAGE}\n`);
      return 2;
    }
    if (error instanceof AppError) {
      process.stderr.write(`error: ${describe(error)}\n`);
      return 1;
    }
    throw error;
  } finally {
    await sql.end({ timeout: 5 });
  }
}

if (require.main === module) {
  main().then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      // Never a stack trace or the database URL: the message of the failure only.
      process.stderr.write(`admin failed: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exitCode = 1;
    },
  );
}
