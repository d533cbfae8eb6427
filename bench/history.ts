/**
 * bench:history — a suite's history at 20,000 and then 100,000 finished runs (issue 36 item 4):
 * the trend page (`GET /v1/suites/:id/trend`, limit 200; the suite page reads the same query with
 * limit 100) and a finalize's baseline lookup (findPassingHistory), median of N each.
 *
 * "before" is the pre-032 SQL (copied below) without the runs_suite_finished_history index, on
 * rows as they were stored before migration 032 (no summary columns); "after" is the current code
 * once backfillRunSummaries has summarised them. Each verdict carries a correctness check with
 * ~3 KB of incompressible mismatch hashes, so it lives in TOAST, as a real one does.
 *
 * Rows are inserted with generate_series in the database (fast); nothing is probed.
 */
import { randomUUID } from 'node:crypto';
import { createSql, type Sql } from '../src/db/client';
import { backfillRunSummaries, type RunRow } from '../src/db/runs';
import { findPassingHistory, listSuiteTrend } from '../src/db/run-history';
import { suiteConfigSchema } from '../src/domain/suite-config';
import { createFreshDatabase, fmt, machineLine, table } from './lib';

const SIZES = (process.env.BENCH_HISTORY_SIZES ?? '20000,100000').split(',').map(Number);
const BEFORE_REPEATS = Number(process.env.BENCH_HISTORY_BEFORE_REPEATS ?? 5);
const AFTER_REPEATS = Number(process.env.BENCH_HISTORY_AFTER_REPEATS ?? 15);
const TREND_LIMIT = 200;
/** historyRunsToRead(window) for the default window is of this order. */
const HISTORY_READ = 40;
const TARGET_MS = 50;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function timeMedian(repeats: number, fn: () => Promise<unknown>): Promise<number> {
  await fn();
  const times: number[] = [];
  for (let i = 0; i < repeats; i++) {
    const started = performance.now();
    await fn();
    times.push(performance.now() - started);
  }
  return median(times);
}

interface Seeded {
  tenantId: string;
  suiteId: string;
  candidate: string;
  snapshot: RunRow['config_snapshot'];
}

async function seed(sql: Sql): Promise<Seeded> {
  const tenantId = randomUUID();
  const chainId = randomUUID();
  const suiteId = randomUUID();
  const candidate = randomUUID();
  await sql`insert into tenants (id, name, slug) values (${tenantId}, 'bench', ${`bench-${tenantId}`})`;
  await sql`insert into chains (id, tenant_id, name, slug, family, chain_id) values (${chainId}, ${tenantId}, 'Bench', 'bench', 'evm', 1)`;
  await sql`
    insert into endpoints (id, tenant_id, chain_id, name, protocol, addresses, timeout_ms)
    values (${candidate}, ${tenantId}, ${chainId}, 'candidate', 'json-rpc-http',
            '[{"transport": "http", "url_redacted": "http://127.0.0.1:9", "url_encrypted": "unused"}]', 2000)`;
  const config = suiteConfigSchema.parse({
    targets: [{ endpoint_id: candidate }],
    baseline: { mode: 'history' },
    workload: { methods: [{ method: 'eth_blockNumber' }], requests_per_target: 1000, concurrency: 8, warmup_requests: 0 },
  });
  await sql`insert into suites (id, tenant_id, chain_id, name, config) values (${suiteId}, ${tenantId}, ${chainId}, 'bench', ${sql.json(config as never)})`;
  const snapshot = { suite: { id: suiteId, name: 'bench', config }, chain: { id: chainId, name: 'Bench', slug: 'bench', explorer_url: null } };
  return { tenantId, suiteId, candidate, snapshot };
}

/** Finished runs `from`..`to`-1 of the suite, one every 5 minutes, 90 % passing, as stored before 032. */
async function insertRuns(sql: Sql, s: Seeded, from: number, to: number): Promise<void> {
  await sql`
    insert into runs (id, tenant_id, test_suite_id, triggered_by, status, requested_at, claimed_at, started_at, finished_at,
                      config_snapshot, stats, verdict, seed, workflow_id, branch, baseline_branch)
    select id, ${s.tenantId}::uuid, ${s.suiteId}::uuid, 'schedule', case when i % 50 = 0 then 'failed' else 'success' end,
      t, t, t, t + interval '1 minute', ${sql.json(s.snapshot as never)},
      jsonb_build_object('calls', jsonb_build_object('total', 1000, 'successful', 1000, 'failed', 0),
        'tests', jsonb_build_object('successful', 1, 'failed', 0),
        'latency', jsonb_build_object('successful', jsonb_build_object('p50_ms', 10 + i % 7, 'p95_ms', 20 + i % 11, 'p99_ms', 30 + i % 13),
                                      'all', jsonb_build_object('p50_ms', 10, 'p95_ms', 20, 'p99_ms', 30))),
      jsonb_build_object('verdict', case when i % 10 = 0 then 'fail' else 'pass' end,
        'checks', jsonb_build_array(
          jsonb_build_object('name', 'latency_p95', 'status', 'pass', 'details', jsonb_build_object('p95_us', (20 + i % 11) * 1000,
            'intervals_ms', jsonb_build_object('p50', jsonb_build_object('point', 10, 'lower', 9, 'upper', 11),
                                               'p95', jsonb_build_object('point', 20, 'lower', 19, 'upper', 21),
                                               'p99', jsonb_build_object('point', 30, 'lower', 29, 'upper', null)))),
          jsonb_build_object('name', 'correctness', 'status', 'pass', 'details', jsonb_build_object('match_rate_pct', 99.5,
            'mismatches', (select jsonb_agg(md5(id::text || k)) from generate_series(1, 70) k)))),
        'baseline_comparison', jsonb_build_object('model', 'history', 'limits', jsonb_build_object('p95_ms', 25))),
      i, 'run-' || id, null, 'main'
    from (select i, gen_random_uuid() as id, timestamptz '2025-01-01' + make_interval(mins => 5 * i) as t
          from generate_series(${from}::int, ${to - 1}::int) i) g`;
}

// ---- the queries as they were before migration 032 ----

async function trendBefore(sql: Sql, s: Seeded): Promise<void> {
  const where = sql`where r.tenant_id = ${s.tenantId} and r.test_suite_id = ${s.suiteId} and r.finished_at is not null`;
  await sql`
    select r.id, r.status, r.requested_at, r.finished_at,
      r.verdict->>'verdict' as verdict,
      r.stats->'latency'->'successful' as latency,
      (select c->'details'->'intervals_ms' from jsonb_array_elements(r.verdict->'checks') c
        where c->>'name' = 'latency_p95' limit 1) as intervals_ms,
      (select (c->'details'->>'match_rate_pct')::float8 from jsonb_array_elements(r.verdict->'checks') c
        where c->>'name' = 'correctness' and jsonb_typeof(c->'details'->'match_rate_pct') = 'number' limit 1) as match_rate_pct,
      r.verdict->'baseline_comparison'->>'model' as baseline_model,
      r.verdict->'baseline_comparison'->'limits' as baseline_limits,
      r.branch, r.commit_sha, r.baseline_branch
    from runs r ${where}
    order by r.requested_at desc, r.id desc limit ${TREND_LIMIT} offset 0`;
  await sql`select count(*)::int as n from runs r ${where}`;
}

async function historyBefore(sql: Sql, run: RunRow, candidates: string[]): Promise<void> {
  await sql`
    select r.id as run_id,
      coalesce(
        (select (c->'details'->>'p95_us')::float8 from jsonb_array_elements(r.verdict->'checks') c
          where c->>'name' = 'latency_p95' and jsonb_typeof(c->'details'->'p95_us') = 'number'),
        (r.stats->'latency'->'successful'->>'p95_ms')::float8 * 1000) as p95_us
    from runs r
    where r.test_suite_id = ${run.test_suite_id} and r.tenant_id = ${run.tenant_id} and r.status = 'success'
      and r.verdict->>'verdict' = 'pass'
      and (r.branch is null or r.branch = 'main')
      and r.requested_at < ${run.requested_at} and r.id <> ${run.id}
      and (select array_agg(t->>'endpoint_id' order by t->>'endpoint_id' collate "C")
           from jsonb_array_elements(coalesce(r.config_snapshot->'suite'->'suite_targets', r.config_snapshot->'suite'->'config'->'targets')) t)
          = ${candidates}::text[]
    order by r.requested_at desc, r.id desc limit ${HISTORY_READ}`;
}

async function planOf(sql: Sql, query: string, params: unknown[]): Promise<string> {
  const rows = await sql.unsafe<{ 'QUERY PLAN': string }[]>(`explain ${query}`, params as never[]);
  return rows.map((r) => r['QUERY PLAN']).find((l) => /Index|Seq Scan/.test(l))?.trim() ?? rows[0]!['QUERY PLAN'];
}

async function main(): Promise<void> {
  console.log(machineLine());
  const db = await createFreshDatabase('rvs_bench_history');
  const sql = createSql(db.url, { max: 1 });
  try {
    const s = await seed(sql);
    // The run being finalized: newer than every stored one.
    const current = {
      id: randomUUID(),
      tenant_id: s.tenantId,
      test_suite_id: s.suiteId,
      requested_at: new Date('2030-01-01T00:00:00Z'),
      config_snapshot: s.snapshot,
      baseline_branch: 'main',
    } as RunRow;
    const results: string[][] = [];
    let stored = 0;
    for (const size of SIZES) {
      const insertStarted = performance.now();
      await insertRuns(sql, s, stored, size);
      stored = size;
      await sql`vacuum analyze runs`;
      const [count] = await sql<{ n: number; toast: string }[]>`
        select count(*)::int as n, pg_size_pretty(pg_total_relation_size('runs')) as toast from runs where test_suite_id = ${s.suiteId} and finished_at is not null`;
      console.log(`${fmt(count!.n)} finished runs in the suite (runs table ${count!.toast}; inserted in ${fmt((performance.now() - insertStarted) / 1000, 1)} s)`);

      await sql`drop index if exists runs_suite_finished_history`;
      const trendOld = await timeMedian(BEFORE_REPEATS, () => trendBefore(sql, s));
      const historyOld = await timeMedian(BEFORE_REPEATS, () => historyBefore(sql, current, [s.candidate]));

      await sql`
        create index runs_suite_finished_history on runs (test_suite_id, requested_at desc, id desc)
          include (tenant_id, status, branch, baseline_branch) where finished_at is not null`;
      const backfillStarted = performance.now();
      const summarised = await backfillRunSummaries(sql);
      const backfillMs = performance.now() - backfillStarted;
      await sql`vacuum analyze runs`;
      const trendNew = await timeMedian(AFTER_REPEATS, () => listSuiteTrend(sql, s.tenantId, s.suiteId, { limit: TREND_LIMIT, offset: 0, branch: null }));
      const pageNew = await timeMedian(AFTER_REPEATS, () => listSuiteTrend(sql, s.tenantId, s.suiteId, { limit: 100, offset: 0, branch: 'main' }));
      const historyNew = await timeMedian(AFTER_REPEATS, () => findPassingHistory(sql, current, HISTORY_READ));
      const history = await findPassingHistory(sql, current, HISTORY_READ);
      if (history.length !== HISTORY_READ) throw new Error(`history read ${history.length} runs, expected ${HISTORY_READ}`);
      console.log(`  backfillRunSummaries: ${fmt(summarised)} runs summarised in ${fmt(backfillMs / 1000, 1)} s`);
      console.log(
        `  trend plan: ${await planOf(sql, `select id from runs r where r.tenant_id = $1 and r.test_suite_id = $2 and r.finished_at is not null order by r.requested_at desc, r.id desc limit 200`, [s.tenantId, s.suiteId])}`,
      );
      results.push(
        [`trend limit ${TREND_LIMIT} (+count)`, fmt(size), fmt(trendOld, 1), fmt(trendNew, 1), trendNew <= TARGET_MS ? 'met' : 'MISSED'],
        ['suite page (limit 100, branch)', fmt(size), '', fmt(pageNew, 1), pageNew <= TARGET_MS ? 'met' : 'MISSED'],
        [`baseline lookup (${HISTORY_READ} runs)`, fmt(size), fmt(historyOld, 1), fmt(historyNew, 1), historyNew <= TARGET_MS ? 'met' : 'MISSED'],
      );
    }
    console.log(`\nmedian ms (before: ${BEFORE_REPEATS} repeats, after: ${AFTER_REPEATS}); target <= ${TARGET_MS} ms`);
    console.log(table(['query', 'runs', 'before ms', 'after ms', 'target'], results));
    if (results.some((r) => r[4] === 'MISSED')) process.exitCode = 1;
  } finally {
    await sql.end({ timeout: 5 });
    if (process.env.BENCH_HISTORY_KEEP === '1') console.log(`kept database ${db.name}`);
    else await db.drop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
