import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { migrate } from '../../src/db/migrate';
import { applyMigrationsBefore, useEmptyDatabase } from '../helpers/migration-database';

const OLD_EVERY_SCOPE = ['chains:read', 'chains:write', 'endpoints:read', 'endpoints:write', 'suites:read', 'suites:write', 'runs:read', 'runs:write', 'catalog:read', 'catalog:write', 'keys:admin'];

/**
 * Migration 013: the bootstrap key an earlier start printed (a default-tenant key with every scope
 * there was) gains tenants:admin; no other key does.
 */
describe('migration 013 (tenants:admin for the platform tenant\'s every-scope keys)', () => {
  const db = useEmptyDatabase('rvs_migrate_013');

  it('grants it to unrevoked default-tenant keys that held every scope, and to nothing else', async () => {
    const { sql } = db;
    await applyMigrationsBefore(sql, '013');
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
