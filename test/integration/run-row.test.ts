import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { z } from 'zod';
import { createSql, type Queryable, type Sql } from '../../src/db/client';
import { RUN_LIST_COLUMNS, runRowSchema, type RunConfigSnapshot } from '../../src/db/run-row';
import { findRun, insertRun, listRuns } from '../../src/db/runs';
import { suiteConfigSchema } from '../../src/domain/suite-config';
import { presentRunSummary } from '../../src/services/runs/present';

/**
 * The run row schema (src/db/run-row.ts) against the migrated `runs` table: a migration that adds,
 * drops or changes a column without the schema (or the other way round) fails here.
 */

/** The zod type a column of each Postgres type is read as (postgres.js: bigint as a string). */
const ZOD_TYPE_OF: Record<string, readonly string[]> = {
  uuid: ['string'],
  text: ['string', 'enum'],
  'timestamp with time zone': ['date'],
  date: ['date'],
  integer: ['number'],
  bigint: ['string'],
  jsonb: ['custom'],
  ARRAY: ['array'],
};

interface Column {
  column_name: string;
  data_type: string;
  is_nullable: 'YES' | 'NO';
}

/** Every disagreement between the table's columns and the schema, as readable lines (none: they agree). */
async function disagreements(sql: Queryable): Promise<string[]> {
  const columns = await sql<Column[]>`
    select column_name, data_type, is_nullable from information_schema.columns
    where table_schema = current_schema() and table_name = 'runs' order by ordinal_position`;
  const shape: Record<string, z.ZodType> = runRowSchema.shape;
  const found: string[] = [];
  for (const c of columns) {
    const field = shape[c.column_name];
    if (!field) {
      found.push(`column ${c.column_name} is not in runRowSchema`);
      continue;
    }
    const nullable = field.safeParse(null).success;
    if (nullable !== (c.is_nullable === 'YES')) found.push(`${c.column_name}: nullable ${c.is_nullable} in the table, ${nullable ? '' : 'not '}nullable in the schema`);
    const inner = (field instanceof z.ZodNullable ? (field.unwrap() as z.ZodType) : field).def.type;
    if (!(ZOD_TYPE_OF[c.data_type] ?? []).includes(inner)) found.push(`${c.column_name}: ${c.data_type} in the table, ${inner} in the schema`);
  }
  const inTable = new Set(columns.map((c) => c.column_name));
  for (const name of Object.keys(shape)) if (!inTable.has(name)) found.push(`runRowSchema.${name} is no column of runs`);
  return found;
}

describe('run row schema', () => {
  let sql: Sql;
  beforeAll(() => {
    sql = createSql(inject('databaseUrl'), { max: 2 });
  });
  afterAll(async () => {
    await sql.end();
  });

  it('names every column of the migrated runs table, with its nullability and type', async () => {
    expect(await disagreements(sql)).toEqual([]);
  });

  it('fails a migration that adds a column the schema lacks, or changes a column\'s type or nullability', async () => {
    const rollback = new Error('rollback');
    const found = await sql
      .begin(async (tx) => {
        await tx`alter table runs add column shapes_probe text`;
        await tx`alter table runs alter column acknowledged_count type bigint`;
        await tx`alter table runs alter column seed drop not null`;
        const lines = await disagreements(tx);
        throw Object.assign(rollback, { lines });
      })
      .catch((e: unknown) => (e === rollback ? (rollback as Error & { lines: string[] }).lines : Promise.reject(e)));
    expect(found).toEqual([
      'acknowledged_count: bigint in the table, number in the schema',
      'seed: nullable YES in the table, not nullable in the schema',
      'column shapes_probe is not in runRowSchema',
    ]);
  });

  it('reads back a run as inserted: every column the schema names and no other, in the run and in the list', async () => {
    const [tenant, chain, endpoint, suite, run] = [randomUUID(), randomUUID(), randomUUID(), randomUUID(), randomUUID()];
    const config = suiteConfigSchema.parse({ targets: [{ endpoint_id: endpoint }] });
    const snapshot: RunConfigSnapshot = { suite: { id: suite, name: 's', config }, chain: { id: chain, name: 'c', slug: 'c', explorer_url: null, family: 'evm' } };
    await sql`insert into tenants (id, name, slug) values (${tenant}, 'T', ${`t-${tenant}`})`;
    await sql`insert into chains (id, tenant_id, name, slug, family) values (${chain}, ${tenant}, 'c', 'c', 'evm')`;
    await sql`
      insert into endpoints (id, tenant_id, chain_id, name, protocol, addresses, timeout_ms)
      values (${endpoint}, ${tenant}, ${chain}, 'e', 'json-rpc-http', '[{"transport": "http", "url_redacted": "http://127.0.0.1:1", "url_encrypted": "x"}]', 1000)`;
    await sql`insert into suites (id, tenant_id, chain_id, name, config) values (${suite}, ${tenant}, ${chain}, 's', ${sql.json(config as never)})`;
    const inserted = await sql.begin((tx) =>
      insertRun(tx, {
        id: run,
        tenantId: tenant,
        suiteId: suite,
        triggeredBy: 'api',
        baselineRunId: null,
        metadata: { ci: 'yes' },
        configSnapshot: snapshot,
        seed: 7,
        workflowId: `run-${run}`,
        branch: 'feature',
        commitSha: 'abc1234',
        baselineBranch: 'main',
        targets: [{ id: randomUUID(), endpointId: endpoint, endpointName: 'e', role: 'primary', callsPlanned: 10 }],
      }),
    );
    // Strict: a column the table returns and the schema does not name is an error here.
    const [raw] = await sql`select * from runs where id = ${run}`;
    const row = runRowSchema.strict().parse(raw);
    expect(row).toMatchObject({ status: 'queued', seed: '7', branch: 'feature', commit_sha: 'abc1234', baseline_branch: 'main', metadata: { ci: 'yes' } });
    // Decided when the run is requested: a small API-triggered run is interactive.
    expect(row.priority_class).toBe('interactive');
    expect(inserted.run).toEqual(row);
    expect(await findRun(sql, run)).toEqual(row);

    const { rows } = await listRuns(sql, tenant, { suiteId: null, status: null, limit: 10, offset: 0 });
    expect(Object.keys(rows[0]!).sort()).toEqual([...RUN_LIST_COLUMNS, 'config_snapshot'].sort());
    expect(rows[0]!.config_snapshot).toEqual({ suite: { id: suite, name: 's' }, chain: snapshot.chain });
    // Returned as stored, in the list and the run resource alike.
    expect(presentRunSummary(rows[0]!, inserted.targets, [], 0).priority_class).toBe('interactive');
  });
});
