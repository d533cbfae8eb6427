/**
 * npm run bench:regions — how a regional worker's samples should reach the central store
 * (docs/regions.md): written by the worker to the central PostgreSQL, or returned in batches
 * through Temporal and written by a central worker.
 *
 * 1. The size of one batch of samples as a Temporal payload (the SDK's default JSON converter),
 *    raw and gzipped, against Temporal's payload limits (warning at 256 KB, error at 2 MB) and the
 *    history limit a run's workflow would fill (50 MB).
 * 2. writeSampleChunk (delete-then-COPY in one transaction: what probe-chunk.ts does once a
 *    second) of the same batch to a fresh database, directly and through a loopback TCP proxy that
 *    holds every segment half an RTT each way — a worker in another region writing to the central
 *    database. The extra time ÷ RTT is the number of round trips one batch costs.
 *
 * Only loopback traffic; the database is dropped at the end.
 */
import { randomUUID } from 'node:crypto';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { gzipSync } from 'node:zlib';
import { defaultPayloadConverter } from '@temporalio/common';
import { createSql, type Sql } from '../src/db/client';
import { writeSampleChunk, type SampleRow } from '../src/db/samples-ingest';
import { createFreshDatabase, fmt, machineLine, percentile, table } from './lib';

const BATCHES = [1_000, 5_000];
const RTTS_MS = [0, 40, 150];
const ROUNDS = Number(process.env.BENCH_REGIONS_ROUNDS ?? 10);
const PAYLOAD_WARN = 256 * 1024;
const PAYLOAD_ERROR = 2 * 1024 * 1024;
const HISTORY_LIMIT = 50 * 1024 * 1024;

function makeRows(runId: string, targetId: string, from: number, count: number): SampleRow[] {
  const base = Date.now();
  return Array.from({ length: count }, (_, i) => {
    const seq = from + i;
    const failed = seq % 50 === 49;
    return {
      run_id: runId,
      target_id: targetId,
      region: 'eu-west',
      seq,
      role: 'primary',
      method: 'eth_getBlockByNumber',
      started_at: new Date(base + seq),
      latency_us: 800 + ((seq * 7919) % 20_000),
      ok: !failed,
      outcome: failed ? 'rpc_error' : 'ok',
      http_status: 200,
      rpc_error_code: failed ? -32000 : null,
      response_hash: failed ? null : (seq * 2654435761).toString(16).padStart(32, '0').slice(-32),
      matches_reference: null,
      reason: null,
      send_lag_us: null,
    } satisfies SampleRow;
  });
}

/** A loopback TCP proxy that delivers every segment half an RTT late in each direction, in order. */
async function startDelayProxy(upstreamPort: number, rttMs: number): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const delayed = (from: Socket, to: Socket) => {
    let last = 0;
    from.on('data', (chunk: Buffer) => {
      const due = Math.max(Date.now() + rttMs / 2, last);
      last = due;
      setTimeout(() => to.write(chunk), due - Date.now());
    });
    from.on('end', () => setTimeout(() => to.end(), Math.max(0, last - Date.now())));
  };
  const server: Server = createServer((client) => {
    const upstream = connect(upstreamPort, '127.0.0.1');
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.setNoDelay(true);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => {
        client.destroy();
        upstream.destroy();
      });
    }
    delayed(client, upstream);
    delayed(upstream, client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return {
    port: typeof address === 'object' && address ? address.port : 0,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

async function main(): Promise<void> {
  console.log(machineLine());
  console.log('\n1. One batch of samples as a Temporal payload (default JSON converter)\n');
  const payloadRows = BATCHES.map((n) => {
    const rows = makeRows(randomUUID(), randomUUID(), 0, n);
    const data = defaultPayloadConverter.toPayload(rows)!.data!;
    const gz = gzipSync(data).length;
    // A run of 1,000,000 calls per target (the service's largest) in batches of n.
    const perMillion = (data.length * 1_000_000) / n;
    return [
      fmt(n),
      `${fmt(data.length / 1024)} KB`,
      `${fmt(gz / 1024)} KB`,
      data.length > PAYLOAD_ERROR ? 'error (> 2 MB)' : data.length > PAYLOAD_WARN ? 'warning (> 256 KB)' : 'below',
      `${fmt(perMillion / 2 ** 20)} MB (${fmt(perMillion / HISTORY_LIMIT, 1)}× the 50 MB limit)`,
    ];
  });
  console.log(table(['samples', 'payload', 'gzipped', "Temporal's payload limit", 'history for 1,000,000 calls of one target'], payloadRows));

  console.log(`\n2. writeSampleChunk of one batch to the central database, ${ROUNDS} rounds each (median, p95)\n`);
  const db = await createFreshDatabase('bench_regions');
  const url = new URL(db.url);
  const upstreamPort = Number(url.port || 5432);
  const results: string[][] = [];
  const medians = new Map<string, number>();
  try {
    for (const rtt of RTTS_MS) {
      const proxy = rtt === 0 ? null : await startDelayProxy(upstreamPort, rtt);
      const target = new URL(db.url);
      if (proxy) target.port = String(proxy.port);
      const sql: Sql = createSql(target.toString(), { max: 1 });
      try {
        await sql`select 1`;
        for (const n of BATCHES) {
          const runId = randomUUID();
          const targetId = randomUUID();
          const times: number[] = [];
          for (let round = 0; round < ROUNDS; round++) {
            const rows = makeRows(runId, targetId, round * n, n);
            const started = performance.now();
            await writeSampleChunk(sql, { runId, targetId, region: 'eu-west', fromSeq: round * n, toSeq: (round + 1) * n }, rows);
            times.push(performance.now() - started);
          }
          times.sort((x, y) => x - y);
          const median = percentile(times, 0.5);
          medians.set(`${rtt}/${n}`, median);
          const base = medians.get(`0/${n}`)!;
          results.push([
            `${rtt} ms`,
            fmt(n),
            `${fmt(median, 1)} ms`,
            `${fmt(percentile(times, 0.95), 1)} ms`,
            rtt === 0 ? '–' : fmt((median - base) / rtt, 1),
            `${fmt(((n * 1000) / median) | 0)} samples/s`,
          ]);
        }
      } finally {
        await sql.end({ timeout: 5 });
        await proxy?.close();
      }
    }
  } finally {
    await db.drop();
  }
  console.log(table(['RTT to database', 'samples', 'median', 'p95', 'round trips (extra ÷ RTT)', 'one writer sustains'], results));
  const far = medians.get('150/1000')!;
  console.log(
    `\nA worker 150 ms from the database commits a 1,000-sample batch in ${fmt(far, 0)} ms ` +
      `(ratio to loopback ${fmt(far / medians.get('0/1000')!, 1)}×); batches are written while probing goes on, one at a time, ` +
      `so one target keeps up with ${fmt((1000 * 1000) / far)} samples/s from there.`,
  );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
