import { randomBytes } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, inject } from 'vitest';
import { createSql, type Sql } from '../../src/db/client';

const MIGRATIONS_DIR = path.join(__dirname, '..', '..', 'src', 'db', 'migrations');

/**
 * An empty database of the calling test file's own on the test server (not the shared migrated
 * one), created before its tests and dropped after them: a migration test starts from the schema
 * as it was and runs migrate() on it. Registers the file's beforeAll and afterAll.
 */
export function useEmptyDatabase(prefix: string): { readonly sql: Sql } {
  const name = `${prefix}_${randomBytes(4).toString('hex')}`;
  let admin: Sql | undefined;
  let sql: Sql | undefined;
  beforeAll(async () => {
    admin = createSql(inject('databaseUrl'), { max: 1 });
    await admin.unsafe(`create database ${name}`);
    const url = new URL(inject('databaseUrl'));
    url.pathname = `/${name}`;
    sql = createSql(url.toString(), { max: 1 });
  });
  afterAll(async () => {
    await sql?.end();
    await admin?.unsafe(`drop database if exists ${name} with (force)`);
    await admin?.end();
  });
  return {
    get sql() {
      if (!sql) throw new Error('the database is created in beforeAll');
      return sql;
    },
  };
}

/** The schema as it was before migration `version` ('013'): the earlier files applied and recorded the way migrate() does. */
export async function applyMigrationsBefore(sql: Sql, version: string): Promise<void> {
  const before = (await readdir(MIGRATIONS_DIR)).filter((f) => /^\d{3}_[\w-]+\.sql$/.test(f) && f < version).sort();
  await sql`create table schema_migrations (name text primary key, applied_at timestamptz not null default now())`;
  for (const file of before) {
    await sql.unsafe(await readFile(path.join(MIGRATIONS_DIR, file), 'utf8'));
    await sql`insert into schema_migrations (name) values (${file})`;
  }
}
