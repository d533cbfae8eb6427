import { Gauge } from 'prom-client';
import type { Queryable } from '../db/client';
import { countRunsByStatusAndVerdict } from '../db/run-counts';
import { apiRegistry } from './registry';

/**
 * How long counts read from PostgreSQL are reused. The metrics port needs no credential, so
 * without it every scrape (or anyone hammering the port) would cost an aggregate over `runs`;
 * with it that costs at most one aggregate per 15 s, and a Prometheus scraping every 15 s or
 * more seldom still sees fresh counts. docs/operations.md states it.
 */
export const RUN_COUNTS_MAX_AGE_MS = 15_000;

/**
 * rvs_runs{status, verdict}: how many runs there are in each status and verdict, read from
 * PostgreSQL when the API's metrics are scraped, at most RUN_COUNTS_MAX_AGE_MS old (every API
 * replica reports the same totals; take max(), not sum(), across replicas). The verdict is "none"
 * until the run is finalized.
 */
const runsStored = new Gauge({
  name: 'rvs_runs',
  help: 'Runs stored, by status and verdict (none before the verdict); read from PostgreSQL at scrape time, at most 15 s old',
  labelNames: ['status', 'verdict'] as const,
  registers: [apiRegistry],
});

/**
 * The `collect` of the API's metrics server: refreshes rvs_runs with one query shared by every
 * scrape arriving while it runs (single flight), and skips the query while the last counts are
 * younger than RUN_COUNTS_MAX_AGE_MS, measured from when their query started. A failed query is
 * not cached: the scrapes waiting on it fail (a 500), and the next scrape queries again.
 * `query` and `now` are for tests (counting queries, moving the clock without sleeping).
 */
export function createRunCountsCollector(
  sql: Queryable,
  options: { query?: typeof countRunsByStatusAndVerdict; now?: () => number } = {},
): () => Promise<void> {
  const query = options.query ?? countRunsByStatusAndVerdict;
  const now = options.now ?? Date.now;
  let fetchedAt: number | null = null;
  let inFlight: Promise<void> | null = null;

  async function refresh(startedAt: number): Promise<void> {
    const rows = await query(sql);
    runsStored.reset();
    for (const row of rows) runsStored.set({ status: row.status, verdict: row.verdict ?? 'none' }, row.count);
    fetchedAt = startedAt;
  }

  return () => {
    if (inFlight) return inFlight;
    const at = now();
    if (fetchedAt !== null && at - fetchedAt < RUN_COUNTS_MAX_AGE_MS) return Promise.resolve();
    // Cleared in a callback, so after the assignment even if the query throws synchronously.
    inFlight = refresh(at).finally(() => {
      inFlight = null;
    });
    return inFlight;
  };
}
