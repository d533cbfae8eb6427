import { randomBytes, randomUUID } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import { createSql, type Sql } from '../../src/db/client';
import { migrate } from '../../src/db/migrate';

const MIGRATIONS_DIR = path.join(__dirname, '..', '..', 'src', 'db', 'migrations');

const OLD_EVERY_SCOPE = ['chains:read', 'chains:write', 'endpoints:read', 'endpoints:write', 'suites:read', 'suites:write', 'runs:read', 'runs:write', 'catalog:read', 'catalog:write', 'keys:admin'];

/**
 * Migration 013: the bootstrap key an earlier start printed (a default-tenant key with every scope
 * there was) gains tenants:admin; no other key does.
 */
describe('migration 013 (tenants:admin for the platform tenant\'s every-scope keys)', () => {
  let admin: Sql;
  let sql: Sql;
  const dbName = `rvs_migrate_013_${randomBytes(4).toString('hex')}`;
  beforeAll(async () => {
    admin = createSql(inject('databaseUrl'), { max: 1 });
    await admin.unsafe(`create database ${dbName}`);
    const url = new URL(inject('databaseUrl'));
    url.pathname = `/${dbName}`;
    sql = createSql(url.toString(), { max: 1 });
  });
  afterAll(async () => {
    await sql?.end();
    await admin.unsafe(`drop database if exists ${dbName} with (force)`);
    await admin.end();
  });

  it('grants it to unrevoked default-tenant keys that held every scope, and to nothing else', async () => {
    const before = (await readdir(MIGRATIONS_DIR)).filter((f) => /^\d{3}_[\w-]+\.sql$/.test(f) && f < '013').sort();
    await sql`create table schema_migrations (name text primary key, applied_at timestamptz not null default now())`;
    for (const file of before) {
      await sql.unsafe(await readFile(path.join(MIGRATIONS_DIR, file), 'utf8'));
      await sql`insert into schema_migrations (name) values (${file})`;
    }
    const platform = randomUUID();
    const team = randomUUID();
    await sql`insert into tenants (id, name, slug) values (${platform}, 'Default tenant', 'default'), (${team}, 'Team', 'team')`;
    const keys = {
      bootstrap: { tenant: platform, scopes: OLD_EVERY_SCOPE, revoked: false },
      narrow: { tenant: platform, scopes: ['runs:read'], revoked: false },
      revoked: { tenant: platform, scopes: OLD_EVERY_SCOPE, revoked: true },
      teamAdmin: { tenant: team, scopes: OLD_EVERY_SCOPE, revoked: false },
    };
    for (const [name, key] of Object.entries(keys)) {
      await sql`
        insert into api_keys (id, tenant_id, name, prefix, secret_hash, scopes, revoked_at)
        values (${randomUUID()}, ${key.tenant}, ${name}, ${name}, ${Buffer.alloc(32)}, ${key.scopes}, ${key.revoked ? new Date() : null})`;
    }

    expect((await migrate(sql)).filter((f) => f.startsWith('013_'))).toHaveLength(1);

    const rows = await sql<{ name: string; scopes: string[] }[]>`select name, scopes from api_keys order by name`;
    const holders = rows.filter((r) => r.scopes.includes('tenants:admin')).map((r) => r.name);
    expect(holders).toEqual(['bootstrap']);
    expect(rows.find((r) => r.name === 'bootstrap')!.scopes.filter((s) => s === 'tenants:admin')).toHaveLength(1);
    // Recorded: a second start applies nothing.
    expect(await migrate(sql)).toEqual([]);
  });
});
