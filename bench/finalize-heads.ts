/**
 * npm run bench:finalize-heads — finalize on a run whose head watch stored many head rows (issue
 * 30, H3: a flooding candidate once stored 790,523 in a 60 s watch and finalize, loading them all,
 * died at the worker's heap cap on every attempt). Seeds a fresh database with a 60 s EVM watch:
 * BENCH_FINALIZE_HEADS rows on the candidate (default 790,000), one head a second on the reference,
 * 100 samples per target; then prints finalize's time and its peak heap (sampled every 10 ms).
 * Runs as it is on code before the bound, for the comparison (it writes the rows with SQL).
 */
import { randomUUID } from 'node:crypto';
import { finalizeRun } from '../activities/finalize-run';
import { SecretBox } from '../src/crypto/secret-box';
import { createSql, type Sql } from '../src/db/client';
import { finishTarget } from '../src/db/run-targets';
import { writeSampleChunk, type SampleRow } from '../src/db/samples-ingest';
import { seedFinalizeRun } from './finalize-seed';
import { createFreshDatabase, fmt, machineLine } from './lib';

const HEADS = Number(process.env.BENCH_FINALIZE_HEADS ?? 790_000);
const WATCH_S = 60;
const SAMPLES = 100;

function sample(runId: string, targetId: string, role: SampleRow['role'], seq: number, start: number): SampleRow {
  return {
    run_id: runId,
    target_id: targetId,
    seq,
    role,
    method: 'eth_blockNumber',
    started_at: new Date(start + seq),
    latency_us: 800 + ((seq * 7919) % 20_000),
    ok: true,
    outcome: 'ok',
    http_status: null,
    rpc_error_code: null,
    response_hash: null,
    matches_reference: null,
    send_lag_us: null,
  };
}

const seedRun = (sql: Sql) =>
  seedFinalizeRun(
    sql,
    ({ candidate, reference }) => ({
      targets: [{ endpoint_id: candidate }],
      reference_endpoint_id: reference,
      baseline: { mode: 'none' },
      workload: { methods: [{ method: 'eth_blockNumber' }], requests_per_target: SAMPLES, concurrency: 1, warmup_requests: 0 },
      thresholds: { correctness_enabled: false },
      freshness: { duration_s: WATCH_S, grace_ms: 1_500 },
    }),
    SAMPLES,
  );

async function main(): Promise<void> {
  console.log(machineLine());
  const db = await createFreshDatabase('rvs_bench_finalize_heads');
  const sql = createSql(db.url);
  try {
    const { runId, candidateId, referenceId } = await seedRun(sql);
    const start = Date.now();
    for (const [targetId, role] of [[candidateId, 'primary'], [referenceId, 'reference']] as const) {
      const rows = Array.from({ length: SAMPLES }, (_, i) => sample(runId, targetId, role, i, start));
      await writeSampleChunk(sql, { runId, targetId, fromSeq: 0, toSeq: SAMPLES }, rows);
      await finishTarget(sql, targetId, 'success', {});
    }
    // The flood: distinct heads 1..HEADS spread over the watch; the reference: one a second.
    await sql`
      insert into run_head_arrivals (run_id, target_id, number, hash, arrival_ms, via, segment)
      select ${runId}, ${candidateId}, g, '0x' || lpad(to_hex(g), 64, '0'), g * ${(WATCH_S * 1000) / HEADS}::float8, 'subscribe', 0
      from generate_series(1, ${HEADS}::int) g`;
    await sql`
      insert into run_head_arrivals (run_id, target_id, number, hash, arrival_ms, via, segment)
      select ${runId}, ${referenceId}, g, '0x' || lpad(to_hex(g), 64, '0'), g * 1000.0, 'subscribe', 0
      from generate_series(1, ${WATCH_S - 1}::int) g`;
    for (const targetId of [candidateId, referenceId]) {
      await sql`
        insert into run_head_watch_segments (run_id, target_id, segment, watch_started_at, started_ms, last_seen_ms, live_from_ms)
        values (${runId}, ${targetId}, 0, now(), 0, ${WATCH_S * 1000}, 0)`;
    }
    console.log(`${fmt(HEADS)} candidate head rows and ${WATCH_S - 1} reference head rows stored`);

    const deps = { sql, box: new SecretBox(randomUUID()), allowPrivateTargets: false };
    global.gc?.();
    const baseline = process.memoryUsage();
    let peakHeap = baseline.heapUsed;
    let peakRss = baseline.rss;
    const sampler = setInterval(() => {
      const m = process.memoryUsage();
      peakHeap = Math.max(peakHeap, m.heapUsed);
      peakRss = Math.max(peakRss, m.rss);
    }, 10);
    const started = performance.now();
    const result = await finalizeRun(deps, { runId, status: 'success', failureReason: null, stepsDone: true });
    const seconds = (performance.now() - started) / 1000;
    clearInterval(sampler);
    const mb = (n: number) => (n / 1024 / 1024).toFixed(0);
    console.log(
      `finalize: ${seconds.toFixed(2)} s; heap ${mb(baseline.heapUsed)} → peak ${mb(peakHeap)} MB (+${mb(peakHeap - baseline.heapUsed)}); ` +
        `rss ${mb(baseline.rss)} → peak ${mb(peakRss)} MB; verdict ${result.verdict}`,
    );
  } finally {
    await sql.end({ timeout: 5 });
    await db.drop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
