import { Gauge } from 'prom-client';
import type { Queryable } from '../db/client';
import { countRunsByStatusAndVerdict } from '../db/run-counts';
import { registry } from './registry';

/**
 * rvs_runs{status, verdict}: how many runs there are in each status and verdict, read from
 * PostgreSQL when the API's metrics are scraped (every API replica reports the same totals;
 * take max(), not sum(), across replicas). The verdict is "none" until the run is finalized.
 */
const runsStored = new Gauge({
  name: 'rvs_runs',
  help: 'Runs stored, by status and verdict (none before the verdict); read from PostgreSQL at scrape time',
  labelNames: ['status', 'verdict'] as const,
  registers: [registry],
});

export async function collectRunCounts(sql: Queryable): Promise<void> {
  const rows = await countRunsByStatusAndVerdict(sql);
  runsStored.reset();
  for (const row of rows) runsStored.set({ status: row.status, verdict: row.verdict ?? 'none' }, row.count);
}
