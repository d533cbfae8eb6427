import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { listEndpoints } from '../../src/db/endpoints';
import { migrate } from '../../src/db/migrate';
import { findRun, insertRun, type RunConfigSnapshot } from '../../src/db/runs';
import { findRunTargets } from '../../src/db/run-targets';
import { findPreviousSuccessfulRun } from '../../src/db/run-history';
import { suiteConfigSchema } from '../../src/domain/suite-config';
import { applyMigrationsBefore, useEmptyDatabase } from '../helpers/migration-database';

/**
 * Migration 018: endpoints a run owns (per-run targets) and the branch, commit and baseline
 * branch of runs. Rows stored before keep working: their endpoints are the tenant's, their runs
 * name no branch and count as the baseline branch.
 */
describe('migration 018 (per-run targets, branches)', () => {
  const db = useEmptyDatabase('rvs_migrate_018');

  it('keeps earlier endpoints listed and earlier runs on the baseline branch; a run\'s own endpoint goes with it', async () => {
    const { sql } = db;
    await applyMigrationsBefore(sql, '018');
    const [tenant, chain, endpoint, suite, oldRun] = [randomUUID(), randomUUID(), randomUUID(), randomUUID(), randomUUID()];
    // A config as stored before baseline.branch existed.
    const parsed = suiteConfigSchema.parse({ targets: [{ endpoint_id: endpoint }], baseline: { mode: 'previous_success' } });
    const config = { ...parsed, baseline: { mode: parsed.baseline.mode, run_id: null, window: 10, min_runs: 5 } };
    const snapshot = { suite: { id: suite, name: 's', config }, chain: { id: chain, name: 'c', slug: 'c', explorer_url: null } };
    await sql`insert into tenants (id, name, slug) values (${tenant}, 'T', ${`t-${tenant}`})`;
    await sql`insert into chains (id, tenant_id, name, slug, family) values (${chain}, ${tenant}, 'c', 'c', 'evm')`;
    await sql`
      insert into endpoints (id, tenant_id, chain_id, name, protocol, url_redacted, url_encrypted, timeout_ms)
      values (${endpoint}, ${tenant}, ${chain}, 'stored', 'json-rpc-http', 'http://127.0.0.1:1', 'x', 1000)`;
    await sql`insert into suites (id, tenant_id, chain_id, name, config) values (${suite}, ${tenant}, ${chain}, 's', ${sql.json(config as never)})`;
    await sql`
      insert into runs (id, tenant_id, test_suite_id, triggered_by, status, config_snapshot, verdict, seed, workflow_id, requested_at, finished_at)
      values (${oldRun}, ${tenant}, ${suite}, 'api', 'success', ${sql.json(snapshot as never)}, ${sql.json({ verdict: 'pass' } as never)}, 1,
              ${`run-${oldRun}`}, now() - interval '1 hour', now() - interval '59 minutes')`;

    expect((await migrate(sql)).filter((f) => f.startsWith('018_'))).toHaveLength(1);

    expect(await findRun(sql, oldRun)).toMatchObject({ branch: null, commit_sha: null, baseline_branch: null });
    expect((await listEndpoints(sql, tenant, { limit: 10, offset: 0 })).rows.map((e) => [e.id, e.owner_run_id])).toEqual([[endpoint, null]]);

    // A pull request's run with an endpoint of its own, written the way a trigger writes it.
    const prRun = randomUUID();
    const own = randomUUID();
    await sql.begin(async (tx) => {
      await insertRun(tx, {
        id: prRun,
        tenantId: tenant,
        suiteId: suite,
        triggeredBy: 'api',
        baselineRunId: null,
        metadata: {},
        configSnapshot: { ...snapshot, suite: { ...snapshot.suite, config: { ...config, targets: [{ endpoint_id: own, role: 'primary' }] } } } as RunConfigSnapshot,
        seed: 2,
        workflowId: `run-${prRun}`,
        branch: 'feature',
        commitSha: 'abcdef1',
        baselineBranch: 'main',
        ownEndpoints: [{ id: own, chainId: chain, name: 'preview', protocol: 'json-rpc-http', addresses: [{ transport: 'http', url_redacted: 'http://127.0.0.1:2', url_encrypted: 'y' }], headerNames: [], headersEncrypted: null, timeoutMs: 1000 }],
        targets: [{ id: randomUUID(), endpointId: own, endpointName: 'preview', role: 'primary', callsPlanned: 10 }],
      });
    });
    const pr = (await findRun(sql, prRun))!;
    // The run stored before branches named none: it is the baseline branch's.
    expect((await findPreviousSuccessfulRun(sql, pr))?.id).toBe(oldRun);
    expect((await findRunTargets(sql, prRun)).map((t) => [t.endpoint_id, t.ephemeral, t.endpoint_url])).toEqual([[own, true, 'http://127.0.0.1:2']]);
    // Not the tenant's to list.
    expect((await listEndpoints(sql, tenant, { limit: 10, offset: 0 })).total).toBe(1);

    await sql`delete from runs where id = ${prRun}`;
    expect(await sql`select id from endpoints order by id`).toEqual([{ id: endpoint }]);
    expect(await migrate(sql)).toEqual([]);
  });
});
