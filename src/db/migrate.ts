import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { BUILTIN_CHAIN_PRESETS, BUILTIN_WORKLOAD_PRESETS } from '../chains/registry';
import { syncBuiltinPresets } from './catalog';
import { backfillRunSummaries } from './runs';
import { maintainSamplePartitions } from './sample-partitions';
import type { Sql } from './client';

const MIGRATIONS_DIR = path.join(__dirname, 'migrations');
// Any constant works; it only has to be the same in every process that migrates.
const MIGRATION_LOCK_KEY = 0x525653; // "RVS"

/**
 * Applies pending migrations in one transaction under an advisory lock, so two processes
 * starting at once apply each migration exactly once (the second waits, then finds nothing to do).
 * Then, in the same transaction, the catalog's built-in rows are made the chain registry's presets:
 * reference data lives with its family's code, not in SQL, and a new family's presets arrive with
 * the release that registers it.
 */
export async function migrate(sql: Sql): Promise<string[]> {
  const files = (await readdir(MIGRATIONS_DIR)).filter((f) => /^\d{3}_[\w-]+\.sql$/.test(f)).sort();
  const pending = await applyMigrations(sql, files);
  // Outside the migration transaction, in bounded batches: safe on a large runs table (see 032).
  // Every start, so a backfill cut short by a restart resumes.
  await backfillRunSummaries(sql);
  // This week's and the coming weeks' sample tables, when the legacy table no longer needs its
  // validation scan (that runs in the sample-expiry schedule, never at start-up; see 041).
  await maintainSamplePartitions(sql, { now: new Date() });
  return pending;
}

async function applyMigrations(sql: Sql, files: string[]): Promise<string[]> {
  return sql.begin(async (tx) => {
    await tx`select pg_advisory_xact_lock(${MIGRATION_LOCK_KEY})`;
    await tx`create table if not exists schema_migrations (
      name text primary key,
      applied_at timestamptz not null default now()
    )`;
    const applied = new Set((await tx<{ name: string }[]>`select name from schema_migrations`).map((r) => r.name));
    const pending = files.filter((f) => !applied.has(f));
    for (const file of pending) {
      await tx.unsafe(await readFile(path.join(MIGRATIONS_DIR, file), 'utf8'));
      await tx`insert into schema_migrations (name) values (${file})`;
    }
    await syncBuiltinPresets(tx, { chains: BUILTIN_CHAIN_PRESETS, workloads: BUILTIN_WORKLOAD_PRESETS });
    return pending;
  });
}
