import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { runPlanOf } from '../../src/chains/registry';
import { migrate } from '../../src/db/migrate';
import { findRun, setPinnedBlock } from '../../src/db/runs';
import { suiteConfigSchema } from '../../src/domain/suite-config';
import { applyMigrationsBefore, useEmptyDatabase } from '../helpers/migration-database';

/**
 * Migration 020: the values a family reads beside the pinned block (its pinned context), stored
 * with the run. A run pinned before keeps its block and has no context; pinning writes block and
 * context once, and a second writer (a retried plan step) gets the first one's.
 */
describe('migration 020 (pinned context)', () => {
  const db = useEmptyDatabase('rvs_migrate_020');

  it('leaves earlier runs without a context; the first pin of block and context wins', async () => {
    const { sql } = db;
    await applyMigrationsBefore(sql, '020');
    const [tenant, chain, suite, oldRun, newRun] = [randomUUID(), randomUUID(), randomUUID(), randomUUID(), randomUUID()];
    const config = suiteConfigSchema.parse({
      targets: [{ endpoint_id: randomUUID() }],
      workload: { methods: [{ method: 'getblock', params: ['{{pinned_block_hash}}', 1] }] },
    });
    const snapshot = { suite: { id: suite, name: 's', config }, chain: { id: chain, name: 'c', slug: 'c', explorer_url: null, family: 'bitcoin' } };
    await sql`insert into tenants (id, name, slug) values (${tenant}, 'T', ${`t-${tenant}`})`;
    await sql`insert into chains (id, tenant_id, name, slug, family) values (${chain}, ${tenant}, 'c', 'c', 'bitcoin')`;
    await sql`insert into suites (id, tenant_id, chain_id, name, config) values (${suite}, ${tenant}, ${chain}, 's', ${sql.json(config as never)})`;
    for (const [id, pinned] of [[oldRun, 90], [newRun, null]] as const) {
      await sql`
        insert into runs (id, tenant_id, test_suite_id, triggered_by, status, config_snapshot, seed, pinned_block, workflow_id)
        values (${id}, ${tenant}, ${suite}, 'api', 'queued', ${sql.json(snapshot as never)}, 1, ${pinned}, ${`run-${id}`})`;
    }

    expect((await migrate(sql)).filter((f) => f.startsWith('020_'))).toHaveLength(1);

    const old = (await findRun(sql, oldRun))!;
    expect(old).toMatchObject({ pinned_block: '90', pinned_context: null });
    expect(runPlanOf(old).requestAt(0).params).toEqual(['{{pinned_block_hash}}', 1]);

    const context = { pinned_block_hash: 'ab'.repeat(32), pinned_txid: 'cd'.repeat(32) };
    expect(await setPinnedBlock(sql, newRun, 95, context)).toEqual({ pinnedBlock: 95, pinnedContext: context });
    expect(await setPinnedBlock(sql, newRun, 96, { pinned_block_hash: 'ef'.repeat(32), pinned_txid: '01'.repeat(32) })).toEqual({
      pinnedBlock: 95,
      pinnedContext: context,
    });
    const pinned = (await findRun(sql, newRun))!;
    expect(pinned).toMatchObject({ pinned_block: '95', pinned_context: context });
    expect(runPlanOf(pinned).requestAt(0).params).toEqual([context.pinned_block_hash, 1]);
    // A run pinned before (no context column value) is not re-pinned either.
    expect(await setPinnedBlock(sql, oldRun, 99, context)).toEqual({ pinnedBlock: 90, pinnedContext: null });
  });
});
