import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import { createSql, type Sql } from '../../src/db/client';
import { migrate } from '../../src/db/migrate';

describe('migrations', () => {
  let admin: Sql;
  let url: string;
  const dbName = `rvs_migrate_${randomBytes(4).toString('hex')}`;
  beforeAll(async () => {
    admin = createSql(inject('databaseUrl'), { max: 1 });
    await admin.unsafe(`create database ${dbName}`);
    const u = new URL(inject('databaseUrl'));
    u.pathname = `/${dbName}`;
    url = u.toString();
  });
  afterAll(async () => {
    await admin.unsafe(`drop database if exists ${dbName} with (force)`);
    await admin.end();
  });

  it('applies each migration exactly once when several processes start at the same moment', async () => {
    const clients = Array.from({ length: 4 }, () => createSql(url, { max: 1 }));
    try {
      const applied = await Promise.all(clients.map((sql) => migrate(sql)));
      const all = applied.flat();
      // Every migration was applied by exactly one of the racers.
      expect(new Set(all).size).toBe(all.length);
      expect(all.length).toBeGreaterThan(0);
      const [rows] = await clients[0]!`select count(*)::int as n from schema_migrations`;
      expect(rows!.n).toBe(all.length);
      // And a later start finds nothing to do.
      expect(await migrate(clients[0]!)).toEqual([]);
    } finally {
      await Promise.all(clients.map((sql) => sql.end()));
    }
  });
});
