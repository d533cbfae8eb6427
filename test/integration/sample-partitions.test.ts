import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate } from '../../src/db/migrate';
import { maintainSamplePartitions, samplePartitionName, sampleWeekOf, SAMPLE_WEEKS_AHEAD } from '../../src/db/sample-partitions';
import { expireRunSamples } from '../../src/db/sample-retention';
import { SAMPLE_COLUMNS, writeSampleChunk, type SampleRow } from '../../src/db/samples-ingest';
import { SAMPLE_EXPIRY_SCHEDULE_ID } from '../../src/temporal/constants';
import { ensureSampleExpirySchedule } from '../../src/temporal/sample-expiry-schedule';
import { createSuite, get, post, waitForRun } from '../helpers/api';
import { answers, startFakeNode, type FakeNode } from '../helpers/json-rpc-node';
import { suiteConfigSchema } from '../../src/domain/suite-config';
import { applyMigrationsBefore, useEmptyDatabase } from '../helpers/migration-database';
import { startStack, type Stack } from '../helpers/stack';
import { until } from '../helpers/worker-process';

const DAY_MS = 86_400_000;

/**
 * Migration 041 (issue 36 item 2): run_samples becomes partitioned by its run's week without
 * touching a row in the migration's transaction. Samples written before it stay readable (the
 * legacy table, first the default partition, then, once the maintenance validated its constraint,
 * the range partition of 1970-01-01); a run created once its week's table exists writes there; a
 * retried chunk still replaces its rows; a week whose runs are all past retention is dropped as a
 * table, and legacy runs past retention are deleted row by row.
 */
describe('migration 041 (sample partitions)', () => {
  const db = useEmptyDatabase('rvs_migrate_041');

  it('keeps the old samples, writes new runs to their week, drops a week past retention', async () => {
    const { sql } = db;
    await applyMigrationsBefore(sql, '041');
    const [tenant, chain, suite, target] = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
    const config = suiteConfigSchema.parse({ targets: [{ endpoint_id: target }], workload: { methods: [{ method: 'eth_blockNumber' }] } });
    const snapshot = { suite: { id: suite, name: 's', config }, chain: { id: chain, name: 'c', slug: 'c', explorer_url: null } };
    await sql`insert into tenants (id, name, slug) values (${tenant}, 'T', ${`t-${tenant}`})`;
    await sql`insert into chains (id, tenant_id, name, slug, family) values (${chain}, ${tenant}, 'c', 'c', 'evm')`;
    await sql`insert into suites (id, tenant_id, chain_id, name, config) values (${suite}, ${tenant}, ${chain}, 's', ${sql.json(config as never)})`;
    const insertRun = async (id: string, finishedAt: Date | null) => {
      await sql`
        insert into runs (id, tenant_id, test_suite_id, triggered_by, status, requested_at, finished_at, config_snapshot, seed, workflow_id)
        values (${id}, ${tenant}, ${suite}, 'api', ${finishedAt ? 'success' : 'running'}, now(), ${finishedAt}, ${sql.json(snapshot as never)}, 1, ${`run-${id}`})`;
    };
    // Three runs finished before the migration, 1,000 samples each, written the old way.
    const oldRuns = [randomUUID(), randomUUID(), randomUUID()];
    for (const id of oldRuns) {
      await insertRun(id, new Date());
      await sql`
        insert into run_samples (run_id, target_id, seq, role, method, started_at, latency_us, ok, outcome, http_status, response_hash)
        select ${id}, ${target}, g, 'primary', 'eth_blockNumber', now(), 1000 + g, true, 'ok', 200, md5(g::text)
        from generate_series(0, 999) g`;
    }
    const before = await sql`select run_id, target_id, seq, latency_us, response_hash from run_samples order by run_id, seq`;

    expect((await migrate(sql)).filter((f) => f.startsWith('041_'))).toHaveLength(1);
    const bound = async () =>
      (await sql<{ bound: string }[]>`select pg_get_expr(relpartbound, oid) as bound from pg_class where oid = 'run_samples_legacy'::regclass`)[0]!.bound;
    // The migration scanned nothing: the legacy table is the default partition, its constraint not yet valid, no weekly table.
    expect(await bound()).toBe('DEFAULT');
    expect((await sql`select 1 from pg_constraint where conname = 'run_samples_legacy_week' and convalidated`).length).toBe(0);
    expect(await sql`select run_id, target_id, seq, latency_us, response_hash from run_samples order by run_id, seq`).toEqual(before);
    // A run created now has no week yet: its week's table does not exist.
    const early = randomUUID();
    await insertRun(early, null);
    expect((await sql`select samples_week from runs where id = ${early}`)[0]!.samples_week).toBeNull();

    const now = new Date();
    const maintained = await maintainSamplePartitions(sql, { now, expiry: { defaultDays: 90 } });
    const thisWeek = sampleWeekOf(now);
    const weeks = Array.from({ length: SAMPLE_WEEKS_AHEAD + 1 }, (_, i) => sampleWeekOf(new Date(Date.parse(`${thisWeek}T00:00:00Z`) + i * 7 * DAY_MS)));
    expect(maintained).toEqual({ legacyConverted: true, created: weeks.map(samplePartitionName), dropped: [], expiredRuns: 0 });
    expect(await bound()).toBe("FOR VALUES FROM ('1970-01-01') TO ('1970-01-02')");
    expect(await sql`select run_id, target_id, seq, latency_us, response_hash from run_samples order by run_id, seq`).toEqual(before);
    // A second pass (another worker's fire): nothing to do.
    expect(await maintainSamplePartitions(sql, { now, expiry: { defaultDays: 90 } })).toEqual({ legacyConverted: false, created: [], dropped: [], expiredRuns: 0 });

    // A run created now takes this week; its samples land in this week's table, and a retried chunk replaces its rows.
    const fresh = randomUUID();
    await insertRun(fresh, null);
    expect((await sql<{ week: string }[]>`select to_char(samples_week, 'YYYY-MM-DD') as week from runs where id = ${fresh}`)[0]!.week).toBe(thisWeek);
    const rows = (from: number, to: number, latency: number): SampleRow[] =>
      Array.from({ length: to - from }, (_, i) => ({
        run_id: fresh, target_id: target, seq: from + i, role: 'primary', method: 'eth_blockNumber', started_at: now, latency_us: latency,
        ok: true, outcome: 'ok', http_status: 200, rpc_error_code: null, response_hash: null, matches_reference: null,
      }));
    await writeSampleChunk(sql, { runId: fresh, targetId: target, fromSeq: 0, toSeq: 1000 }, rows(0, 1000, 500));
    await writeSampleChunk(sql, { runId: fresh, targetId: target, fromSeq: 1000, toSeq: 2000 }, rows(1000, 2000, 500));
    await writeSampleChunk(sql, { runId: fresh, targetId: target, fromSeq: 1000, toSeq: 2000 }, rows(1000, 2000, 700)); // the retry
    const placed = await sql<{ part: string; n: number; latency: number }[]>`
      select tableoid::regclass::text as part, count(*)::int as n, sum(latency_us)::int as latency from run_samples where run_id = ${fresh} group by 1`;
    expect(placed).toEqual([{ part: samplePartitionName(thisWeek), n: 2000, latency: 1000 * 500 + 1000 * 700 }]);
    // The run that started before its week's table existed writes to the legacy table, all of it.
    await writeSampleChunk(sql, { runId: early, targetId: target, fromSeq: 0, toSeq: 10 }, rows(0, 10, 1).map((r) => ({ ...r, run_id: early })));
    expect(await sql`select tableoid::regclass::text as part, count(*)::int as n from run_samples where run_id = ${early} group by 1`).toEqual([{ part: 'run_samples_legacy', n: 10 }]);
    await sql`update runs set status = 'success', finished_at = now() where id in ${sql([fresh, early])}`;

    // 100 days on: the old runs aged past the 90-day default by moving their finish back.
    await sql`update runs set finished_at = finished_at - interval '100 days' where id in ${sql(oldRuns)}`;
    const passedNow = await maintainSamplePartitions(sql, { now, expiry: { defaultDays: 90 } });
    // This week holds runs within retention: kept.
    expect(passedNow.dropped).toEqual([]);
    expect(await expireRunSamples(sql, { now, defaultDays: 90, runLimit: 10, batchSize: 300 })).toEqual({ runs: 3, samples: 3000 });
    expect((await sql<{ n: number }[]>`select count(*)::int as n from run_samples where run_id in ${sql(oldRuns)}`)[0]!.n).toBe(0);
    expect((await sql<{ n: number }[]>`select count(*)::int as n from run_samples where run_id = ${fresh}`)[0]!.n).toBe(2000);

    // The clock 100 days on: this week's runs are past retention, and its table goes whole.
    const later = new Date(now.getTime() + 100 * DAY_MS);
    const dropped = await maintainSamplePartitions(sql, { now: later, expiry: { defaultDays: 90 } });
    expect(dropped.dropped).toEqual(weeks.map(samplePartitionName));
    expect(dropped.expiredRuns).toBe(1);
    expect((await sql<{ t: string | null }[]>`select to_regclass(${samplePartitionName(thisWeek)})::text as t`)[0]!.t).toBeNull();
    const expired = await sql<{ id: string; at: Date | null }[]>`select id, samples_expired_at as at from runs where id in ${sql([fresh, early])} order by id`;
    expect(expired.find((r) => r.id === fresh)!.at).toEqual(later);
    // The early run's rows are in the legacy table: expireRunSamples deletes them.
    expect(expired.find((r) => r.id === early)!.at).toBeNull();
    expect(await expireRunSamples(sql, { now: later, defaultDays: 90, runLimit: 10, batchSize: 300 })).toEqual({ runs: 1, samples: 10 });
    expect((await sql<{ n: number }[]>`select count(*)::int as n from run_samples`)[0]!.n).toBe(0);
  });
});

/**
 * Through the service: a run of a week long past, all of whose runs are past retention, loses its
 * samples as a dropped table in a fire of the rvs-sample-expiry schedule, and keeps its verdict,
 * Markdown and trend point; its samples answer 410. The run is put in that week as if it had been
 * requested 100 days ago: its week's table created as the maintenance did then, its rows moved
 * there and its request and finish moved back (no sleeping).
 */
describe('sample partitions through the expiry schedule', () => {
  let stack: Stack;
  let node: FakeNode;

  beforeAll(async () => {
    stack = await startStack();
    node = await startFakeNode(answers.ok('0x1234'));
  });
  afterAll(async () => {
    await node?.close();
    await stack?.close();
  });

  it('drops the table of a week whose runs are all past retention; verdict, Markdown and trend stay; samples answer 410', async () => {
    const { auth } = await stack.newTenant();
    const config = { workload: { requests_per_target: 20, concurrency: 2, warmup_requests: 0 } };
    const { suiteId } = await createSuite(stack.app, auth, { candidates: [node.url], config });
    const created = await post<{ id: string }>(stack.app, `/v1/suites/${suiteId}/runs`, auth);
    const run = created.body.id;
    expect((await waitForRun(stack.app, auth, run)).status).toBe('success');
    const thisWeek = sampleWeekOf(new Date());
    expect(await stack.sql`select tableoid::regclass::text as part, count(*)::int as n from run_samples where run_id = ${run} group by 1`).toEqual([
      { part: samplePartitionName(thisWeek), n: 20 },
    ]);

    const then = new Date(Date.now() - 100 * DAY_MS);
    const oldWeek = sampleWeekOf(then);
    expect((await maintainSamplePartitions(stack.sql, { now: then })).created).toContain(samplePartitionName(oldWeek));
    const columns = stack.sql.unsafe(SAMPLE_COLUMNS.join(', '));
    await stack.sql.begin(async (tx) => {
      await tx`update runs set samples_week = ${oldWeek}::date, requested_at = requested_at - interval '100 days', finished_at = finished_at - interval '100 days' where id = ${run}`;
      await tx`insert into run_samples (${columns}, run_week) select ${columns}, ${oldWeek}::date from run_samples where run_id = ${run} and run_week = ${thisWeek}::date`;
      await tx`delete from run_samples where run_id = ${run} and run_week = ${thisWeek}::date`;
    });
    expect((await get<{ data: unknown[] }>(stack.app, `/v1/runs/${run}/samples`, auth)).body.data).toHaveLength(20);
    const verdictBefore = (await get<Record<string, unknown>>(stack.app, `/v1/runs/${run}/verdict`, auth)).body;
    const trendBefore = (await get<{ data: unknown[] }>(stack.app, `/v1/suites/${suiteId}/trend`, auth)).body.data;

    await ensureSampleExpirySchedule(stack.client, stack.taskQueue);
    await stack.client.schedule.getHandle(SAMPLE_EXPIRY_SCHEDULE_ID).trigger();
    const expiredAt = async () => (await stack.sql<{ at: Date | null }[]>`select samples_expired_at as at from runs where id = ${run}`)[0]!.at;
    await until(async () => (await expiredAt()) !== null, 60_000, 'the expiry fire');

    expect((await stack.sql<{ t: string | null }[]>`select to_regclass(${samplePartitionName(oldWeek)})::text as t`)[0]!.t).toBeNull();
    expect((await stack.sql<{ n: number }[]>`select count(*)::int as n from run_samples where run_id = ${run}`)[0]!.n).toBe(0);
    const samples = await get<{ error: { code: string } }>(stack.app, `/v1/runs/${run}/samples`, auth);
    expect(samples.status).toBe(410);
    expect(samples.body.error.code).toBe('samples_expired');
    const verdictAfter = await get<Record<string, unknown>>(stack.app, `/v1/runs/${run}/verdict`, auth);
    expect(verdictAfter.status).toBe(200);
    expect(verdictAfter.body.verdict).toBe(verdictBefore.verdict);
    expect(verdictAfter.body.markdown_summary).toBe(verdictBefore.markdown_summary);
    expect(verdictAfter.body.checks).toEqual(verdictBefore.checks);
    expect((await get<{ data: unknown[] }>(stack.app, `/v1/suites/${suiteId}/trend`, auth)).body.data).toEqual(trendBefore);
    // This week's table (runs within retention) stays.
    expect((await stack.sql<{ t: string | null }[]>`select to_regclass(${samplePartitionName(thisWeek)})::text as t`)[0]!.t).not.toBeNull();
  });
});
