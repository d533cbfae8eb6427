/**
 * npm run bench:storage — what a run costs on disk (issue 36 item 3): bytes per raw sample in
 * run_samples (heap, TOAST, indexes) with correctness off and on, and the bytes a run keeps once
 * its samples expired (the runs row with its verdict and every row keyed by its run_id), then a
 * sizing table computed from those figures.
 *
 * Each scenario writes two runs of a candidate and a reference, SAMPLES_PER_TARGET samples each,
 * through the service's own path: per chunk of CHUNK_MAX_CALLS what activities/probe-chunk.ts
 * writes (a head read before and after, writeSampleChunk's COPY, the prober-health row),
 * finishTarget, the re-check and explanation steps and finalizeRun (which, correctness on, fills
 * matches_reference), then expireRunSamples (what the rvs-sample-expiry schedule runs). The first
 * run lands in an empty run_samples, the second on top of it: its index growth is the one a
 * long-lived table sees (the primary key starts with a random UUIDv4 run_id, so later runs split
 * pages mid-tree), after a VACUUM as autovacuum would run. Sizes are pg_relation_size /
 * pg_indexes_size deltas around each run. Then AGGREGATE_RUNS small runs (correctness on), all
 * finalized and expired, give what a run keeps as the growth of the files of runs and of every
 * table with a run_id column (indexes and page overhead included), besides the rows' own bytes.
 *
 * Correctness off, an answer is not fingerprinted (response_hash null); on, each ok answer keeps
 * its 32-hex fingerprint (fingerprintWith's form: sha256 hex, first 32 characters). Either way an ok
 * scalar answer keeps its shown value (scalar_answer), as the probe does.
 */
import { createHash, randomUUID } from 'node:crypto';
import os from 'node:os';
import { explainRunMismatches } from '../activities/explain-mismatches';
import { finalizeRun } from '../activities/finalize-run';
import { CHUNK_MAX_CALLS } from '../activities/probe-chunk';
import { recheckHeadMoved } from '../activities/recheck-head-moved';
import { SecretBox } from '../src/crypto/secret-box';
import { createSql, type Sql } from '../src/db/client';
import { recordProberHealth } from '../src/db/prober-health';
import { recordHead } from '../src/db/run-heads';
import { finishTarget } from '../src/db/run-targets';
import { expireRunSamples } from '../src/db/sample-retention';
import { writeSampleChunk, type SampleRow } from '../src/db/samples-ingest';
import { scalarAnswer } from '../src/domain/answer-diff';
import type { SampleOutcome } from '../src/domain/sample-outcome';
import { seedFinalizeRun } from './finalize-seed';
import { createFreshDatabase, fmt, machineLine, table } from './lib';

const SAMPLES_PER_RUN = Number(process.env.BENCH_STORAGE_SAMPLES ?? 200_000);
const SAMPLES_PER_TARGET = Math.floor(SAMPLES_PER_RUN / 2);
/** Small runs whose aggregates are measured as file growth: enough of them that pages fill. */
const AGGREGATE_RUNS = Number(process.env.BENCH_STORAGE_AGGREGATE_RUNS ?? 100);
const AGGREGATE_RUN_SAMPLES_PER_TARGET = 250;
/** A whole chunk (one probe activity) of activities/probe-chunk.ts. */
const WRITE_CHUNK = CHUNK_MAX_CALLS;
const ADDRESS = '0x00000000000000000000000000000000000000aa';
// Block-pinned or head-independent calls (nothing to re-check), with answers of their real shape.
const WORKLOAD = [
  { method: 'eth_chainId', result: '0x1' },
  { method: 'eth_getBalance', params: [ADDRESS, '0x10'], result: '0x1bc16d674ec80000' },
  { method: 'eth_getCode', params: [ADDRESS, '0x10'], result: `0x${'6080604052348015600f57600080fd5b50'.repeat(40)}` },
  { method: 'net_version', result: '1' },
] as const;
const FINGERPRINTS = WORKLOAD.map((w) => createHash('sha256').update(JSON.stringify(w.result)).digest('hex').slice(0, 32));
const SCALARS = WORKLOAD.map((w) => scalarAnswer(w.result));

/** Schedules, calls per run, probed targets (reference included) and retention of the sizing table. */
const SCHEDULES = [
  { name: 'every 5 min', runsPerDay: 288 },
  { name: 'every 15 min', runsPerDay: 96 },
  { name: 'hourly', runsPerDay: 24 },
];
const CALLS = [1_000, 10_000];
const TARGETS = [1, 2, 3];
const RETENTION_DAYS = [7, 30, 90];

interface Scenario {
  name: string;
  correctness: boolean;
}
const SCENARIOS: Scenario[] = [
  { name: 'correctness off', correctness: false },
  { name: 'correctness on', correctness: true },
];

function sample(runId: string, targetId: string, role: SampleRow['role'], seq: number, start: number, correctness: boolean): SampleRow {
  const w = seq % WORKLOAD.length;
  // 1 call in 100 fails (alternately a timeout and an RPC error): no answer, so no hash nor value.
  const failed = seq % 100 === 99;
  const outcome: SampleOutcome = failed ? (seq % 200 === 199 ? 'timeout' : 'rpc_error') : 'ok';
  return {
    run_id: runId,
    target_id: targetId,
    seq,
    role,
    method: WORKLOAD[w]!.method,
    started_at: new Date(start + seq * 3),
    latency_us: 800 + ((seq * 7919 + (role === 'reference' ? 1_234 : 0)) % 40_000),
    ok: !failed,
    outcome,
    http_status: outcome === 'timeout' ? null : 200,
    rpc_error_code: outcome === 'rpc_error' ? -32000 : null,
    response_hash: failed || !correctness ? null : FINGERPRINTS[w]!,
    matches_reference: null,
    scalar_answer: failed ? null : SCALARS[w]!,
  };
}

interface RelationSizes {
  heap: number;
  toast: number;
  indexes: number;
}

async function sampleSizes(sql: Sql): Promise<RelationSizes> {
  // run_samples is partitioned (migration 041): its files are its partitions'.
  const [row] = await sql<{ heap: string; toast: string; indexes: string }[]>`
    select coalesce(sum(pg_relation_size(p.relid)), 0) as heap,
           coalesce(sum((select pg_total_relation_size(reltoastrelid) from pg_class where oid = p.relid and reltoastrelid <> 0)), 0) as toast,
           coalesce(sum(pg_indexes_size(p.relid)), 0) as indexes
    from pg_partition_tree('run_samples') p where p.isleaf`;
  return { heap: Number(row!.heap), toast: Number(row!.toast), indexes: Number(row!.indexes) };
}

/** Every table but run_samples that keeps rows of a run: runs itself and those with a run_id column. */
async function aggregateTables(sql: Sql): Promise<string[]> {
  const rows = await sql<{ table_name: string }[]>`
    select distinct c.table_name from information_schema.columns c
    join information_schema.tables t on t.table_schema = c.table_schema and t.table_name = c.table_name and t.table_type = 'BASE TABLE'
    where c.table_schema = current_schema() and c.column_name = 'run_id' and c.table_name not like 'run\\_samples%'
    order by c.table_name`;
  return rows.map((r) => r.table_name);
}

/** Rows and their stored bytes (pg_column_size of the whole row: TOASTed values as stored, compressed) per table. */
async function runAggregates(sql: Sql, tables: string[], runIds: string[]): Promise<Map<string, { rows: number; bytes: number }>> {
  const result = new Map<string, { rows: number; bytes: number }>();
  const [runs] = await sql<{ rows: number; bytes: string | null }[]>`
    select count(*)::int as rows, sum(pg_column_size(r.*)) as bytes from runs r where r.id = any(${runIds}::uuid[])`;
  result.set('runs', { rows: runs!.rows, bytes: Number(runs!.bytes ?? 0) });
  for (const name of tables) {
    const [row] = await sql<{ rows: number; bytes: string | null }[]>`
      select count(*)::int as rows, sum(pg_column_size(t.*)) as bytes from ${sql(name)} t where t.run_id = any(${runIds}::uuid[])`;
    result.set(name, { rows: row!.rows, bytes: Number(row!.bytes ?? 0) });
  }
  return result;
}

/** pg_total_relation_size (heap, TOAST, indexes) of runs and the run_id tables together. */
async function aggregateFiles(sql: Sql, tables: string[]): Promise<number> {
  const [row] = await sql<{ bytes: string }[]>`
    select sum(pg_total_relation_size(c.oid)) as bytes from pg_class c
    where c.relkind = 'r' and c.relnamespace = current_schema()::regnamespace and c.relname = any(${['runs', ...tables]})`;
  return Number(row!.bytes);
}

interface RunFigures {
  scenario: string;
  run: number;
  samples: number;
  heap: number;
  toast: number;
  indexes: number;
  liveRowBytes: number;
  writeSeconds: number;
  finalizeSeconds: number;
  verdict: string;
}

const delta = (after: RelationSizes, before: RelationSizes): RelationSizes => ({
  heap: after.heap - before.heap,
  toast: after.toast - before.toast,
  indexes: after.indexes - before.indexes,
});

async function oneRun(
  sql: Sql,
  scenario: Scenario,
  run: number,
  box: SecretBox,
  perTarget = SAMPLES_PER_TARGET,
): Promise<{ runId: string; figures: RunFigures }> {
  const { runId, candidateId, referenceId } = await seedFinalizeRun(
    sql,
    ({ candidate, reference }) => ({
      targets: [{ endpoint_id: candidate }],
      reference_endpoint_id: reference,
      baseline: { mode: 'none' },
      workload: {
        methods: WORKLOAD.map((w) => ('params' in w ? { method: w.method, params: w.params } : { method: w.method })),
        requests_per_target: perTarget,
        concurrency: 32,
        warmup_requests: 0,
      },
      thresholds: { correctness_enabled: scenario.correctness },
    }),
    perTarget,
  );
  const before = await sampleSizes(sql);
  const start = Date.now();
  const writeStarted = performance.now();
  for (const [targetId, role] of [[candidateId, 'primary'], [referenceId, 'reference']] as const) {
    for (let from = 0; from < perTarget; from += WRITE_CHUNK) {
      const to = Math.min(perTarget, from + WRITE_CHUNK);
      const rows = Array.from({ length: to - from }, (_, i) => sample(runId, targetId, role, from + i, start, scenario.correctness));
      // What one probe activity keeps besides its samples: a head read before and after the chunk
      // (the suite has a reference) and the prober-health row of its attempt.
      const head = BigInt(21_000_000 + from / WRITE_CHUNK);
      await recordHead(sql, { runId, targetId, observedAt: new Date(start + from * 3), head });
      await writeSampleChunk(sql, { runId, targetId, fromSeq: from, toSeq: to }, rows);
      await recordHead(sql, { runId, targetId, observedAt: new Date(start + to * 3), head: head + 1n });
      await recordProberHealth(
        sql,
        { runId, targetId, activity: 'probeChunk', fromSeq: from, attempt: 1 },
        { worker: `${os.hostname()}:${process.pid}`, loopDelayP99Us: 21_000, loopDelayMaxUs: 48_000, sendLagP99Us: null, cpuPct: 41.5, durationMs: 4_200 },
      );
    }
    await finishTarget(sql, targetId, 'success', {});
  }
  const writeSeconds = (performance.now() - writeStarted) / 1000;
  const deps = { sql, box, allowPrivateTargets: false };
  const finalizeStarted = performance.now();
  await recheckHeadMoved(deps, { runId });
  await explainRunMismatches(deps, { runId });
  const result = await finalizeRun(deps, { runId, status: 'success', failureReason: null, stepsDone: true });
  const finalizeSeconds = (performance.now() - finalizeStarted) / 1000;
  const grown = delta(await sampleSizes(sql), before);
  const [live] = await sql<{ n: number; bytes: string }[]>`
    select count(*)::int as n, sum(pg_column_size(s.*)) as bytes from run_samples s where s.run_id = ${runId}`;
  if (live!.n !== 2 * perTarget) throw new Error(`run ${runId} holds ${live!.n} samples, expected ${2 * perTarget}`);
  return {
    runId,
    figures: {
      scenario: scenario.name,
      run,
      samples: live!.n,
      ...grown,
      liveRowBytes: Number(live!.bytes),
      writeSeconds,
      finalizeSeconds,
      verdict: result.verdict,
    },
  };
}

const perSample = (bytes: number, f: RunFigures) => bytes / f.samples;
const total = (f: RunFigures) => f.heap + f.toast + f.indexes;

async function main(): Promise<void> {
  console.log(machineLine());
  console.log(`date: ${new Date().toISOString()}`);
  const db = await createFreshDatabase('rvs_bench_storage');
  const sql = createSql(db.url, { max: 1 });
  const watchdog = setTimeout(() => {
    console.error('bench:storage took too long; aborting');
    void sql
      .end({ timeout: 1 })
      .then(() => db.drop())
      .finally(() => process.exit(2));
  }, 178_000);
  try {
    const [server] = await sql<{ version: string }[]>`select current_setting('server_version') as version`;
    console.log(`PostgreSQL ${server!.version}, database ${db.name}; ${fmt(2 * SAMPLES_PER_TARGET)} samples per run (candidate + reference)`);
    const box = new SecretBox(randomUUID());
    const tables = await aggregateTables(sql);
    const figures: RunFigures[] = [];
    const aggregates: { scenario: string; runs: number; perTable: Map<string, { rows: number; bytes: number }> }[] = [];
    for (const scenario of SCENARIOS) {
      // Each scenario starts from an empty table, as the first run of a new installation does.
      await sql`truncate run_samples`;
      const runIds: string[] = [];
      for (const run of [1, 2]) {
        // Before the second run, what autovacuum does on a long-lived table: the dead row versions
        // finalize's matches_reference update left (correctness on) become free space for new rows.
        if (run === 2) await sql`vacuum run_samples`;
        const { runId, figures: f } = await oneRun(sql, scenario, run, box);
        runIds.push(runId);
        figures.push(f);
        console.log(
          `  ${scenario.name}, run ${run}: wrote ${fmt(f.samples)} samples in ${fmt(f.writeSeconds, 1)} s, finalized (${f.verdict}) in ${fmt(f.finalizeSeconds, 1)} s; ` +
            `+${fmt(total(f) / 2 ** 20, 1)} MiB`,
        );
      }
      // Expiry as the schedule runs it, far enough ahead that both runs are past the default retention.
      const expired = await expireRunSamples(sql, { now: new Date(Date.now() + 1_000 * 86_400_000), defaultDays: 90, runLimit: 500, batchSize: 10_000 });
      if (expired.runs !== 2 || expired.samples !== 4 * SAMPLES_PER_TARGET) throw new Error(`expiry removed ${JSON.stringify(expired)}`);
      aggregates.push({ scenario: scenario.name, runs: 2, perTable: await runAggregates(sql, tables, runIds) });
    }

    // What stays of a run, as files grow: many small runs (correctness on: the larger verdict),
    // each finalized and expired, and the growth of runs and the run_id tables over them.
    await sql`truncate run_samples`;
    const filesBefore = await aggregateFiles(sql, tables);
    const smallRunIds: string[] = [];
    const correctnessOn = SCENARIOS.find((s) => s.correctness)!;
    for (let i = 0; i < AGGREGATE_RUNS; i++) {
      smallRunIds.push((await oneRun(sql, correctnessOn, i + 1, box, AGGREGATE_RUN_SAMPLES_PER_TARGET)).runId);
    }
    const smallExpired = await expireRunSamples(sql, { now: new Date(Date.now() + 1_000 * 86_400_000), defaultDays: 90, runLimit: AGGREGATE_RUNS, batchSize: 10_000 });
    if (smallExpired.runs !== AGGREGATE_RUNS) throw new Error(`expiry removed ${JSON.stringify(smallExpired)}`);
    const filesAfter = await aggregateFiles(sql, tables);
    aggregates.push({ scenario: `${fmt(AGGREGATE_RUNS)} small runs, on`, runs: AGGREGATE_RUNS, perTable: await runAggregates(sql, tables, smallRunIds) });

    console.log('');
    console.log('raw samples (run_samples), growth of its files per run:');
    console.log(
      table(
        ['scenario, run', 'samples', 'heap B/sample', 'TOAST B/sample', 'index B/sample', 'total B/sample', 'live row B/sample'],
        figures.map((f) => [
          `${f.scenario}, run ${f.run}${f.run === 1 ? ' (empty table)' : ' (on top, vacuumed)'}`,
          fmt(f.samples),
          fmt(perSample(f.heap, f), 1),
          fmt(perSample(f.toast, f), 1),
          fmt(perSample(f.indexes, f), 1),
          fmt(perSample(total(f), f), 1),
          fmt(perSample(f.liveRowBytes, f), 1),
        ]),
      ),
    );
    console.log('live row = sum of pg_column_size(row) of the run\'s samples (tuple without page, item pointer or index overhead).');

    console.log('');
    console.log('kept per run after its samples expired (rows and pg_column_size of the rows, per run):');
    const tableNames = [...aggregates[0]!.perTable.keys()];
    console.log(
      table(
        ['table', ...aggregates.flatMap((a) => [`${a.scenario}: rows`, 'bytes'])],
        [
          ...tableNames
            .filter((name) => aggregates.some((a) => a.perTable.get(name)!.rows > 0))
            .map((name) => [name, ...aggregates.flatMap((a) => [fmt(a.perTable.get(name)!.rows / a.runs, 1), fmt(a.perTable.get(name)!.bytes / a.runs)])]),
          [
            'all',
            ...aggregates.flatMap((a) => {
              const all = [...a.perTable.values()];
              return [fmt(all.reduce((s, x) => s + x.rows, 0) / a.runs, 1), fmt(all.reduce((s, x) => s + x.bytes, 0) / a.runs)];
            }),
          ],
        ],
      ),
    );
    const filesPerRun = (filesAfter - filesBefore) / AGGREGATE_RUNS;
    console.log(
      `files of runs and the run_id tables (heap, TOAST, indexes, dead row versions included) grew ${fmt(filesAfter - filesBefore)} bytes ` +
        `over ${fmt(AGGREGATE_RUNS)} runs of ${fmt(2 * AGGREGATE_RUN_SAMPLES_PER_TARGET)} samples: ${fmt(filesPerRun)} per run`,
    );

    // The sizing table: the second run's heap growth (a table already holding runs, vacuumed) of
    // each scenario, and the largest index growth of a second run. The key (run_id, target_id, seq,
    // region) is the same either way; what varies from run to run is where a new random run_id
    // lands: mid-tree (splits leave pages half full, as in a table of many runs) or at the right end.
    const onTop = figures.filter((f) => f.run === 2);
    const indexPerSample = Math.max(...onTop.map((f) => perSample(f.indexes, f)));
    const bytesPerSample = Object.fromEntries(
      SCENARIOS.map((s) => {
        const f = onTop.find((x) => x.scenario === s.name)!;
        return [s.name, perSample(f.heap + f.toast, f) + indexPerSample];
      }),
    ) as Record<string, number>;
    const keptPerRun = filesPerRun;
    console.log('');
    console.log(
      `sizing: raw samples kept = runs/day × retention days × calls × targets × bytes/sample ` +
        `(${SCENARIOS.map((s) => `${s.name} ${fmt(bytesPerSample[s.name]!, 0)} B`).join(', ')}: run 2's heap + the larger run 2 index, ${fmt(indexPerSample, 0)} B); ` +
        `aggregates kept = runs/year × ${fmt(keptPerRun)} B per run; GB = 10^9 bytes`,
    );
    const gb = (bytes: number) => fmt(bytes / 1e9, bytes / 1e9 < 1 ? 2 : bytes / 1e9 < 10 ? 1 : 0);
    const rows: string[][] = [];
    for (const schedule of SCHEDULES) {
      for (const calls of CALLS) {
        for (const targets of TARGETS) {
          const perRun = calls * targets;
          rows.push([
            `${schedule.name}, ${fmt(calls)} calls × ${targets}`,
            ...SCENARIOS.flatMap((s) => RETENTION_DAYS.map((days) => gb(schedule.runsPerDay * days * perRun * bytesPerSample[s.name]!))),
            gb(schedule.runsPerDay * 365 * keptPerRun),
          ]);
        }
      }
    }
    console.log(
      table(
        ['schedule, calls × targets', ...SCENARIOS.flatMap((s) => RETENTION_DAYS.map((d) => `${s.correctness ? 'on' : 'off'} ${d} d`)), 'aggregates/yr'],
        rows,
      ),
    );
    console.log(`load average at the end: ${os.loadavg().map((l) => fmt(l, 2)).join(' ')}`);
  } finally {
    clearTimeout(watchdog);
    await sql.end({ timeout: 5 });
    await db.drop();
    console.log(`dropped database ${db.name}`);
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
