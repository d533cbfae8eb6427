/**
 * npm run bench:finalize — how long finalizeRun takes on a large run with a reference and the
 * correctness check on: BENCH_FINALIZE_SAMPLES samples in all (default 1,000,000: half on the
 * candidate, half on the reference), written with COPY (writeSampleChunk) into a fresh database
 * that is dropped at the end. Also prints the plan of the correctness join (it must be a hash
 * join: the nested loop PostgreSQL picks without statistics was quadratic).
 *
 * Every tenth candidate answer differs from the reference's and every 25th reference call failed,
 * so the tally, the mismatch list and every flag are exercised; the bench checks the tally.
 */
import { randomUUID } from 'node:crypto';
import { explainRunMismatches } from '../activities/explain-mismatches';
import { finalizeRun } from '../activities/finalize-run';
import { recheckHeadMoved } from '../activities/recheck-head-moved';
import { SecretBox } from '../src/crypto/secret-box';
import { createSql, type Sql } from '../src/db/client';
import { findRun } from '../src/db/runs';
import { finishTarget } from '../src/db/run-targets';
import { pairedLatencies } from '../src/db/paired-samples';
import { writeSampleChunk, type SampleRow } from '../src/db/samples-ingest';
import type { CorrectnessCheck } from '../src/domain/verdict';
import { seedFinalizeRun } from './finalize-seed';
import { createFreshDatabase, fmt, machineLine } from './lib';

const TOTAL = Number(process.env.BENCH_FINALIZE_SAMPLES ?? 1_000_000);
// BENCH_FINALIZE_PAIRED=1: an open-loop run probed on a shared anchor, so finalize also takes the
// paired path (db/paired-samples.ts: the pairing skew and the paired p95 difference in SQL).
const PAIRED = process.env.BENCH_FINALIZE_PAIRED === '1';
const PER_TARGET = Math.floor(TOTAL / 2);
// BENCH_FINALIZE_ANALYZE=1: statistics on run_samples before finalize (a long campaign has them).
const ANALYZE = process.env.BENCH_FINALIZE_ANALYZE === '1';
const WRITE_BATCH = 20_000;
const TARGET_SECONDS = 30;
const ADDRESS = '0x00000000000000000000000000000000000000aa';
// Block-pinned or head-independent calls: a differing answer is a mismatch, not inconclusive.
const WORKLOAD_METHODS = [
  { method: 'eth_chainId' },
  { method: 'eth_getBalance', params: [ADDRESS, '0x10'] },
  { method: 'eth_getCode', params: [ADDRESS, '0x10'] },
  { method: 'net_version' },
];
const METHODS = WORKLOAD_METHODS.map((m) => m.method);

function sample(runId: string, targetId: string, role: SampleRow['role'], seq: number, start: number): SampleRow {
  const failed = role === 'reference' && seq % 25 === 0;
  const differs = role === 'primary' && seq % 10 === 0;
  return {
    run_id: runId,
    target_id: targetId,
    seq,
    role,
    method: METHODS[seq % METHODS.length]!,
    started_at: new Date(start + seq),
    latency_us: 800 + ((seq * 7919) % 20_000),
    ok: !failed,
    outcome: failed ? 'http_error' : 'ok',
    http_status: failed ? 503 : null,
    rpc_error_code: null,
    response_hash: failed ? null : differs ? `d${seq.toString(16).padStart(31, '0')}` : (seq % 1000).toString(16).padStart(32, '0'),
    matches_reference: null,
    send_lag_us: PAIRED ? (seq * (role === 'primary' ? 37 : 53)) % 500 : null,
  };
}

/** The rows finalize needs around the samples: tenant, chain, two endpoints, a suite and a claimed run. */
const seedRun = (sql: Sql) =>
  seedFinalizeRun(
    sql,
    ({ candidate, reference }) => ({
      targets: [{ endpoint_id: candidate }],
      reference_endpoint_id: reference,
      baseline: { mode: 'none' },
      workload: { methods: WORKLOAD_METHODS, requests_per_target: PER_TARGET, concurrency: 32, warmup_requests: 0, ...(PAIRED ? { rate_per_second: 1_000 } : {}) },
      thresholds: { correctness_enabled: true },
    }),
    PER_TARGET,
  );

async function main(): Promise<void> {
  console.log(machineLine());
  const db = await createFreshDatabase('rvs_bench_finalize');
  const sql = createSql(db.url);
  const watchdog = setTimeout(() => {
    console.error('bench:finalize took too long; aborting');
    void sql
      .end({ timeout: 1 })
      .then(() => db.drop())
      .finally(() => process.exit(2));
  }, 600_000);
  try {
    const [server] = await sql<{ version: string }[]>`select current_setting('server_version') as version`;
    console.log(`PostgreSQL ${server!.version}, database ${db.name}`);
    const { runId, candidateId, referenceId } = await seedRun(sql);

    const start = Date.now();
    const writeStarted = performance.now();
    for (const [targetId, role] of [[candidateId, 'primary'], [referenceId, 'reference']] as const) {
      for (let from = 0; from < PER_TARGET; from += WRITE_BATCH) {
        const to = Math.min(PER_TARGET, from + WRITE_BATCH);
        const rows = Array.from({ length: to - from }, (_, i) => sample(runId, targetId, role, from + i, start));
        await writeSampleChunk(sql, { runId, targetId, fromSeq: from, toSeq: to }, rows);
      }
      await finishTarget(sql, targetId, 'success', {});
    }
    const writeSeconds = (performance.now() - writeStarted) / 1000;
    console.log(`${fmt(2 * PER_TARGET)} samples written with COPY in ${writeSeconds.toFixed(1)} s (not part of the figure)`);
    if (ANALYZE) {
      // As a long campaign leaves it: autovacuum has analyzed run_samples while the run was probed.
      await sql`analyze run_samples`;
      console.log('run_samples analyzed (BENCH_FINALIZE_ANALYZE=1): finalize plans with statistics');
    }

    // The plan finalize gets, as finalize gets it: same transaction setting, no statistics.
    const plan = await sql.begin(async (tx) => {
      await tx`set local enable_nestloop = off`;
      return tx.unsafe<{ 'QUERY PLAN': string }[]>(
        `explain update run_samples c
           set matches_reference = case when c.ok and r.ok then c.response_hash = r.response_hash end
           from run_samples r
           where c.run_id = $1 and c.target_id = any($2::uuid[])
             and r.run_id = c.run_id and r.target_id = $3::uuid and r.seq = c.seq and r.method = c.method
             and c.matches_reference is distinct from (case when c.ok and r.ok then c.response_hash = r.response_hash end)`,
        [runId, [candidateId], referenceId],
      );
    });
    console.log('correctness join plan:');
    for (const line of plan) console.log(`  ${line['QUERY PLAN']}`);

    // No head-dependent call in this workload: nothing is re-checked, so the box is never used.
    const deps = { sql, box: new SecretBox(randomUUID()), allowPrivateTargets: false };
    // The run steps before finalize, as the workflow calls them (the explanation's calls are
    // refused at once: no address is allowed here); then finalize alone, which holds the lock.
    const stepsStarted = performance.now();
    await recheckHeadMoved(deps, { runId });
    await explainRunMismatches(deps, { runId });
    const stepSeconds = (performance.now() - stepsStarted) / 1000;
    const started = performance.now();
    const result = await finalizeRun(deps, { runId, status: 'success', failureReason: null, stepsDone: true });
    const seconds = (performance.now() - started) / 1000;
    console.log(`re-check and explanation steps: ${stepSeconds.toFixed(2)} s; finalize with its lock: ${seconds.toFixed(2)} s; both: ${(stepSeconds + seconds).toFixed(2)} s`);

    const run = (await findRun(sql, runId))!;
    const correctness = run.verdict!.checks.find((c): c is CorrectnessCheck => c.name === 'correctness')!.details;
    const skipped = Math.ceil(PER_TARGET / 25);
    const mismatched = Math.ceil(PER_TARGET / 10) - Math.ceil(PER_TARGET / 50);
    const expected = { compared: PER_TARGET - skipped, mismatched, skipped };
    const ok =
      correctness.compared === expected.compared && correctness.mismatched === expected.mismatched && correctness.skipped === expected.skipped;
    console.log(
      `finalize: ${seconds.toFixed(2)} s for ${fmt(2 * PER_TARGET)} samples (${fmt(PER_TARGET)} candidate + ${fmt(PER_TARGET)} reference); ` +
        `verdict ${result.verdict}; correctness compared ${fmt(correctness.compared!)}, mismatched ${fmt(correctness.mismatched!)}, skipped ${fmt(correctness.skipped!)}` +
        ` (${ok ? 'as expected' : `EXPECTED ${JSON.stringify(expected)}`})`,
    );
    console.log(`target: under ${TARGET_SECONDS} s — ${seconds < TARGET_SECONDS ? 'met' : 'MISSED'}`);
    if (PAIRED) {
      const pairedStarted = performance.now();
      await sql.begin((tx) => pairedLatencies(tx, runId, candidateId, referenceId));
      const pairedSeconds = (performance.now() - pairedStarted) / 1000;
      console.log(`pairing (part of finalize): ${JSON.stringify(run.verdict!.reference_comparison?.pairing)}`);
      console.log(`pairedLatencies alone, again: ${pairedSeconds.toFixed(2)} s over ${fmt(PER_TARGET)} pairs`);
    }
    if (!ok) process.exitCode = 1;
  } finally {
    clearTimeout(watchdog);
    await sql.end({ timeout: 5 });
    await db.drop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
