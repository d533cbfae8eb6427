import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { findEndpoint, insertEndpoint, storedAddressSchema, updateEndpoint } from '../../src/db/endpoints';
import { migrate } from '../../src/db/migrate';
import { applyMigrationsBefore, useEmptyDatabase } from '../helpers/migration-database';

/**
 * Migration 037: an endpoint's URLs become a list of addresses, one per transport. Endpoints
 * stored before keep their url (the http address) and ws_url (the ws address), still readable
 * through the url_* and ws_url_* columns, which Postgres now derives from the list.
 */
describe('migration 037 (endpoint addresses)', () => {
  const db = useEmptyDatabase('rvs_migrate_037');

  it('moves url and ws_url into addresses, keeps them readable as views, and refuses a list the rules do not allow', async () => {
    const { sql } = db;
    await applyMigrationsBefore(sql, '037');
    const [tenant, chain, httpOnly, both] = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
    await sql`insert into tenants (id, name, slug) values (${tenant}, 'T', ${`t-${tenant}`})`;
    await sql`insert into chains (id, tenant_id, name, slug, family) values (${chain}, ${tenant}, 'c', 'c', 'evm')`;
    await sql`
      insert into endpoints (id, tenant_id, chain_id, name, protocol, url_redacted, url_encrypted, timeout_ms)
      values (${httpOnly}, ${tenant}, ${chain}, 'http-only', 'json-rpc-http', 'https://a.example/****', 'enc-a', 1000)`;
    await sql`
      insert into endpoints (id, tenant_id, chain_id, name, protocol, url_redacted, url_encrypted, ws_url_redacted, ws_url_encrypted, timeout_ms)
      values (${both}, ${tenant}, ${chain}, 'both', 'json-rpc-http', 'https://b.example/', 'enc-b', 'wss://b.example/****', 'enc-b-ws', 1000)`;

    expect((await migrate(sql)).filter((f) => f.startsWith('037_'))).toHaveLength(1);

    const first = (await findEndpoint(sql, httpOnly))!;
    expect(first.addresses).toEqual([{ transport: 'http', url_redacted: 'https://a.example/****', url_encrypted: 'enc-a' }]);
    expect(first).toMatchObject({ url_redacted: 'https://a.example/****', url_encrypted: 'enc-a', ws_url_redacted: null, ws_url_encrypted: null });
    const second = (await findEndpoint(sql, both))!;
    expect(second.addresses).toEqual([
      { transport: 'http', url_redacted: 'https://b.example/', url_encrypted: 'enc-b' },
      { transport: 'ws', url_redacted: 'wss://b.example/****', url_encrypted: 'enc-b-ws' },
    ]);
    expect(second).toMatchObject({ url_encrypted: 'enc-b', ws_url_redacted: 'wss://b.example/****', ws_url_encrypted: 'enc-b-ws' });
    for (const row of [first, second]) for (const address of row.addresses) storedAddressSchema.parse(address);

    // The views follow the list: a new ws address shows as ws_url, its removal as null.
    const ws = { transport: 'ws', url_redacted: 'ws://a.example/', url_encrypted: 'enc-a-ws' };
    const updated = await updateEndpoint(sql, httpOnly, tenant, { addresses: [...first.addresses, ws] });
    expect(updated).toMatchObject({ ws_url_redacted: 'ws://a.example/', ws_url_encrypted: 'enc-a-ws' });
    expect(await updateEndpoint(sql, httpOnly, tenant, { addresses: first.addresses })).toMatchObject({ ws_url_encrypted: null });

    // Written only through the list.
    await expect(sql`update endpoints set ws_url_encrypted = 'x' where id = ${httpOnly}`).rejects.toThrow(/can only be updated to DEFAULT/);
    const refused = async (addresses: unknown) =>
      insertEndpoint(sql, {
        tenantId: tenant,
        chainId: chain,
        name: 'bad',
        protocol: 'json-rpc-http',
        addresses: addresses as never,
        headerNames: [],
        headersEncrypted: null,
        timeoutMs: 1000,
      });
    const http = { transport: 'http', url_redacted: 'https://c.example/', url_encrypted: 'enc-c' };
    await expect(refused([])).rejects.toThrow(/url_redacted|not-null/);
    await expect(refused([ws])).rejects.toThrow(/url_redacted|not-null/);
    await expect(refused([http, http])).rejects.toThrow(/endpoints_addresses_valid/);
    await expect(refused([http, { transport: 'ws', url_redacted: 'ws://c.example/' }])).rejects.toThrow(/endpoints_addresses_valid/);
    await expect(refused({ http })).rejects.toThrow(/endpoints_addresses_valid|not-null/);
    expect((await refused([http, ws])).ws_url_encrypted).toBe('enc-a-ws');
  });
});
