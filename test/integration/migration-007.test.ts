import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { migrate } from '../../src/db/migrate';
import { applyMigrationsBefore, useEmptyDatabase } from '../helpers/migration-database';

/**
 * Migration 007 cleans data written under the old rules: redacted endpoint URLs that still showed
 * keys, and Idempotency-Key records that may hold a created API key's plaintext secret.
 */
describe('migration 007 (secret hygiene)', () => {
  const db = useEmptyDatabase('rvs_migrate_007');

  it('rewrites stored redacted URLs to scheme, host and port, and drops idempotency records', async () => {
    const { sql } = db;
    await applyMigrationsBefore(sql, '007');
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
