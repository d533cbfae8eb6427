import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { migrate } from '../../src/db/migrate';
import { finishRun } from '../../src/db/runs';
import { listSuiteTrend } from '../../src/db/run-history';
import { emptyStats } from '../../src/domain/run-stats';
import { suiteConfigSchema } from '../../src/domain/suite-config';
import type { ComputedVerdict } from '../../src/domain/verdict';
import { applyMigrationsBefore, useEmptyDatabase } from '../helpers/migration-database';

/**
 * Migration 032: runs finished before it are summarised (verdict value, trend point, candidate
 * endpoints) by the backfill migrate() runs after it, and counted per suite and branch; a run
 * finished after it is summarised by finishRun and counted by the trigger.
 */
describe('migration 032 (history summary)', () => {
  const db = useEmptyDatabase('rvs_migrate_032');

  it('summarises and counts the runs finished before it, and every run finished after', async () => {
    const { sql } = db;
    await applyMigrationsBefore(sql, '032');
    const [tenant, chain, suite, endpoint] = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
    const config = suiteConfigSchema.parse({ targets: [{ endpoint_id: endpoint }], workload: { methods: [{ method: 'eth_blockNumber' }] } });
    const snapshot = { suite: { id: suite, name: 's', config }, chain: { id: chain, name: 'c', slug: 'c', explorer_url: null } };
    await sql`insert into tenants (id, name, slug) values (${tenant}, 'T', ${`t-${tenant}`})`;
    await sql`insert into chains (id, tenant_id, name, slug, family) values (${chain}, ${tenant}, 'c', 'c', 'evm')`;
    await sql`insert into suites (id, tenant_id, chain_id, name, config) values (${suite}, ${tenant}, ${chain}, 's', ${sql.json(config as never)})`;
    const verdict = (value: string, p95Us: number) => ({
      verdict: value,
      checks: [{ name: 'latency_p95', status: 'pass', message: '', details: { p95_us: p95Us, intervals_ms: null } }],
    });
    const runs = [
      { id: randomUUID(), branch: null, finished: true, verdict: verdict('pass', 41_000) },
      { id: randomUUID(), branch: 'main', finished: true, verdict: verdict('pass', 42_000) },
      { id: randomUUID(), branch: 'feature', finished: true, verdict: verdict('fail', 90_000) },
      { id: randomUUID(), branch: 'feature', finished: false, verdict: null },
    ];
    for (const [i, run] of runs.entries()) {
      await sql`
        insert into runs (id, tenant_id, test_suite_id, triggered_by, status, requested_at, finished_at, config_snapshot, verdict, seed, workflow_id, branch, baseline_branch)
        values (${run.id}, ${tenant}, ${suite}, 'api', ${run.finished ? 'success' : 'running'}, ${new Date(Date.UTC(2026, 0, 1, i))},
                ${run.finished ? new Date(Date.UTC(2026, 0, 1, i, 30)) : null}, ${sql.json(snapshot as never)},
                ${run.verdict === null ? null : sql.json(run.verdict as never)}, 1, ${`run-${run.id}`}, ${run.branch}, 'main')`;
    }

    expect((await migrate(sql)).filter((f) => f.startsWith('032_'))).toHaveLength(1);

    const summaries = await sql<{ id: string; verdict_value: string | null; p95_us: number | null; candidate_endpoints: string[] | null }[]>`
      select id, verdict_value, (trend_point->>'p95_us')::float8 as p95_us, candidate_endpoints from runs order by requested_at`;
    expect(summaries).toEqual([
      { id: runs[0]!.id, verdict_value: 'pass', p95_us: 41_000, candidate_endpoints: [endpoint] },
      { id: runs[1]!.id, verdict_value: 'pass', p95_us: 42_000, candidate_endpoints: [endpoint] },
      { id: runs[2]!.id, verdict_value: 'fail', p95_us: 90_000, candidate_endpoints: [endpoint] },
      { id: runs[3]!.id, verdict_value: null, p95_us: null, candidate_endpoints: null },
    ]);
    const counts = async () =>
      Object.fromEntries((await sql<{ branch: string; runs: number }[]>`select branch, runs::int from suite_finished_runs where test_suite_id = ${suite}`).map((r) => [r.branch, r.runs]));
    expect(await counts()).toEqual({ main: 2, feature: 1 });

    const finished = verdict('pass', 43_000) as unknown as ComputedVerdict;
    expect(await finishRun(sql, runs[3]!.id, { status: 'success', failureReason: null, stats: emptyStats(), verdict: finished, baselineRunId: null })).toBe(true);
    expect(await counts()).toEqual({ main: 2, feature: 2 });
    const [last] = await sql<{ verdict_value: string; p95_us: number }[]>`select verdict_value, (trend_point->>'p95_us')::float8 as p95_us from runs where id = ${runs[3]!.id}`;
    expect(last).toEqual({ verdict_value: 'pass', p95_us: 43_000 });
    // A second finish changes nothing, counted once.
    expect(await finishRun(sql, runs[3]!.id, { status: 'success', failureReason: null, stats: emptyStats(), verdict: finished, baselineRunId: null })).toBe(false);
    expect(await counts()).toEqual({ main: 2, feature: 2 });

    expect((await listSuiteTrend(sql, tenant, suite, { limit: 1, offset: 0 })).total).toBe(4);
    expect((await listSuiteTrend(sql, tenant, suite, { limit: 10, offset: 0, branch: 'main' })).total).toBe(2);
    expect((await listSuiteTrend(sql, randomUUID(), suite, { limit: 10, offset: 0 })).total).toBe(0);
  });
});
