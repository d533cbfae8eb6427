import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { BUILTIN_CHAIN_PRESETS, BUILTIN_WORKLOAD_PRESETS, CHAINS } from '../../src/chains/registry';
import { syncBuiltinPresets } from '../../src/db/catalog';
import { migrate } from '../../src/db/migrate';
import type { ChainPreset, WorkloadPreset } from '../../src/domain/catalog-presets';
import { applyMigrationsBefore, useEmptyDatabase } from '../helpers/migration-database';

/*
 * The catalog's built-in rows come from the chain registry (each family's presets), seeded by the
 * migrate step: a database migration 003 already seeded must end exactly as it was, and a family's
 * new, changed or dropped presets reach the catalog with no SQL.
 */
const db = useEmptyDatabase('rvs_catalog_builtins');

const builtins = () => ({ chains: BUILTIN_CHAIN_PRESETS, workloads: BUILTIN_WORKLOAD_PRESETS });

async function rowsOf(table: 'catalog_chain_presets' | 'catalog_workload_presets') {
  // xmin changes whenever a row is written: equal xmin = the row was left alone.
  return db.sql.unsafe(`select xmin::text as xmin, * from ${table} order by id`);
}

const toyChain: ChainPreset = { id: '0c0a1a00-0000-4000-8000-00000000f001', slug: 'toynet', name: 'Toy Net', family: 'bitcoin', chain_id: null, explorer_url: null };
const toyWorkload: WorkloadPreset = {
  id: '0c0a1a00-0000-4000-8000-00000000f101',
  slug: 'toy-standard',
  name: 'Toy read mix',
  family: 'bitcoin',
  description: 'heights only',
  workload: { methods: [{ method: 'getblockcount', params: [], weight: 1 }] },
};

describe('built-in catalog presets seeded from the chain registry', () => {
  it('leaves a database seeded by migration 003 exactly as it was (no row rewritten)', async () => {
    // Every SQL migration applied, as on a database that has been running.
    await applyMigrationsBefore(db.sql, '999');
    const chains = await rowsOf('catalog_chain_presets');
    const workloads = await rowsOf('catalog_workload_presets');
    // Migration 003 wrote EVM's rows; families added since reach the catalog only through the sync.
    expect(chains.map((r) => r.id)).toEqual(CHAINS.evm.presets.chains.map((p) => p.id).sort());

    expect(await migrate(db.sql)).toEqual([]);
    const chainsAfter = await rowsOf('catalog_chain_presets');
    const workloadsAfter = await rowsOf('catalog_workload_presets');
    expect(chainsAfter.filter((r) => chains.some((c) => c.id === r.id))).toEqual(chains);
    expect(workloadsAfter.filter((r) => workloads.some((w) => w.id === r.id))).toEqual(workloads);
    expect(chainsAfter.map((r) => r.id)).toEqual(BUILTIN_CHAIN_PRESETS.map((p) => p.id).sort());
    expect(workloadsAfter.map((r) => r.id)).toEqual(BUILTIN_WORKLOAD_PRESETS.map((p) => p.id).sort());
  });

  it('adds a family’s new presets, updates changed ones in place, drops removed ones, never touches a tenant’s', async () => {
    const tenant = randomUUID();
    await db.sql`insert into tenants (id, name, slug) values (${tenant}, 't', ${`t-${tenant}`})`;
    await db.sql`insert into catalog_chain_presets (id, tenant_id, slug, name, family) values (${randomUUID()}, ${tenant}, 'mine', 'Mine', 'evm')`;
    const [ethereumBefore] = await db.sql`select created_at from catalog_chain_presets where slug = 'ethereum' and tenant_id is null`;

    await syncBuiltinPresets(db.sql, { chains: [...BUILTIN_CHAIN_PRESETS, toyChain], workloads: [...BUILTIN_WORKLOAD_PRESETS, toyWorkload] });
    const [chain] = await db.sql`select slug, name, family, chain_id, explorer_url, tenant_id from catalog_chain_presets where id = ${toyChain.id}`;
    expect(chain).toEqual({ slug: 'toynet', name: 'Toy Net', family: 'bitcoin', chain_id: null, explorer_url: null, tenant_id: null });
    const [workload] = await db.sql`select workload, description from catalog_workload_presets where id = ${toyWorkload.id}`;
    expect(workload).toEqual({ workload: toyWorkload.workload, description: 'heights only' });
    // Listed newest first, a tenant's entries still come before every built-in, the new one included.
    const [{ newest }] = (await db.sql`select id as newest from catalog_chain_presets order by created_at desc, id desc limit 1`) as unknown as [{ newest: string }];
    const [mine] = await db.sql`select id from catalog_chain_presets where tenant_id = ${tenant}`;
    expect(newest).toBe(mine!.id);
    const [toyRow] = await db.sql`select created_at from catalog_chain_presets where id = ${toyChain.id}`;
    expect(toyRow!.created_at).toEqual(ethereumBefore!.created_at);

    const renamed = BUILTIN_CHAIN_PRESETS.map((p) => (p.slug === 'ethereum' ? { ...p, name: 'Ethereum' } : p));
    await syncBuiltinPresets(db.sql, { chains: renamed, workloads: BUILTIN_WORKLOAD_PRESETS });
    const [ethereum] = await db.sql`select name, created_at from catalog_chain_presets where slug = 'ethereum' and tenant_id is null`;
    expect(ethereum).toEqual({ name: 'Ethereum', created_at: ethereumBefore!.created_at });
    expect(await db.sql`select id from catalog_chain_presets where id = ${toyChain.id}`).toHaveLength(0);
    expect(await db.sql`select id from catalog_workload_presets where id = ${toyWorkload.id}`).toHaveLength(0);
    expect(await db.sql`select slug from catalog_chain_presets where tenant_id = ${tenant}`).toEqual([{ slug: 'mine' }]);

    // The migrate step puts the registry's values back.
    await migrate(db.sql);
    const [restored] = await db.sql`select name from catalog_chain_presets where slug = 'ethereum' and tenant_id is null`;
    expect(restored!.name).toBe('Ethereum Mainnet');
    expect(await db.sql`select id from catalog_chain_presets where tenant_id is null order by id`).toEqual(
      BUILTIN_CHAIN_PRESETS.map((p) => ({ id: p.id })).sort((a, b) => a.id.localeCompare(b.id)),
    );
  });

  it('is what migrate() runs: a registry equal to the database writes nothing', async () => {
    const before = await rowsOf('catalog_workload_presets');
    await syncBuiltinPresets(db.sql, builtins());
    expect(await rowsOf('catalog_workload_presets')).toEqual(before);
  });
});
