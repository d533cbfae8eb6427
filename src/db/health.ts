import type { Sql } from './client';

/** One round trip to the database: the cheapest query that needs a working connection. */
export async function pingDatabase(sql: Sql): Promise<void> {
  await sql`select 1`;
}
