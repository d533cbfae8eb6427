import { randomBytes, randomUUID } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import { createSql, type Sql } from '../../src/db/client';
import { migrate } from '../../src/db/migrate';

const MIGRATIONS_DIR = path.join(__dirname, '..', '..', 'src', 'db', 'migrations');

/**
 * Migration 007 cleans data written under the old rules: redacted endpoint URLs that still showed
 * keys, and Idempotency-Key records that may hold a created API key's plaintext secret.
 */
describe('migration 007 (secret hygiene)', () => {
  let admin: Sql;
  let sql: Sql;
  const dbName = `rvs_migrate_007_${randomBytes(4).toString('hex')}`;
  beforeAll(async () => {
    admin = createSql(inject('databaseUrl'), { max: 1 });
    await admin.unsafe(`create database ${dbName}`);
    const url = new URL(inject('databaseUrl'));
    url.pathname = `/${dbName}`;
    sql = createSql(url.toString(), { max: 1 });
  });
  afterAll(async () => {
    await sql?.end();
    await admin.unsafe(`drop database if exists ${dbName} with (force)`);
    await admin.end();
  });

  it('rewrites stored redacted URLs to scheme, host and port, and drops idempotency records', async () => {
    // The schema as it was before 007, applied and recorded the way migrate() does.
    const before = (await readdir(MIGRATIONS_DIR)).filter((f) => /^\d{3}_[\w-]+\.sql$/.test(f) && f < '007').sort();
    await sql`create table schema_migrations (name text primary key, applied_at timestamptz not null default now())`;
    for (const file of before) {
      await sql.unsafe(await readFile(path.join(MIGRATIONS_DIR, file), 'utf8'));
      await sql`insert into schema_migrations (name) values (${file})`;
    }
    const tenantId = randomUUID();
    const chainId = randomUUID();
    await sql`insert into tenants (id, name, slug) values (${tenantId}, 't', 't')`;
    await sql`insert into chains (id, tenant_id, name, slug, family) values (${chainId}, ${tenantId}, 'c', 'c', 'evm')`;
    const stored = {
      'https://****@rpc.example.com/v2/****?apikey=****': 'https://****@rpc.example.com/****/****?****',
      'https://rpc.example.com:8545/key:SECRET': 'https://rpc.example.com:8545/****',
      'https://node.example.com/': 'https://node.example.com/',
      'http://[::1]:8545//a/b/': 'http://[::1]:8545//****/****/',
    };
    for (const old of Object.keys(stored)) {
      await sql`
        insert into endpoints (id, tenant_id, chain_id, name, protocol, url_redacted, url_encrypted, timeout_ms)
        values (${randomUUID()}, ${tenantId}, ${chainId}, ${old}, 'json-rpc-http', ${old}, 'x', 1000)`;
    }
    await sql`
      insert into idempotency_keys (tenant_id, key, request_hash, status_code, response_body)
      values (${tenantId}, 'k', 'h', 201, '{"key":"rvs_abcdefghijkl_SECRET"}')`;

    expect((await migrate(sql)).filter((f) => f.startsWith('007_'))).toHaveLength(1);

    const rows = await sql<{ name: string; url_redacted: string }[]>`select name, url_redacted from endpoints`;
    expect(Object.fromEntries(rows.map((r) => [r.name, r.url_redacted]))).toEqual(stored);
    expect(await sql`select * from idempotency_keys`).toHaveLength(0);
    const [column] = await sql`select 1 from information_schema.columns where table_name = 'idempotency_keys' and column_name = 'principal'`;
    expect(column).toBeDefined();
  });
});
