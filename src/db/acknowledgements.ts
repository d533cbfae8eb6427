import { randomUUID } from 'node:crypto';
import type { Queryable, Sql } from './client';

export interface AcknowledgementRow {
  id: string;
  tenant_id: string;
  run_id: string;
  principal_kind: 'api_key' | 'user';
  principal_id: string;
  principal_name: string;
  note: string;
  created_at: Date;
}

export interface NewAcknowledgement {
  tenantId: string;
  runId: string;
  principal: { kind: 'api_key' | 'user'; id: string; name: string };
  note: string;
}

/**
 * The row and runs.acknowledged_count change together, so the count is always the number of rows.
 * A run that already has `max` is not acknowledged again: undefined then. The run's row is locked
 * before its count is read, so concurrent acknowledgements cannot pass the cap together.
 */
export async function insertAcknowledgement(sql: Sql, a: NewAcknowledgement, max: number): Promise<AcknowledgementRow | undefined> {
  return sql.begin(async (tx) => {
    // "no key update": the lock the count's update takes anyway; sample inserts (key share) go on.
    const [run] = await tx<{ acknowledged_count: number }[]>`
      select acknowledged_count from runs where id = ${a.runId} for no key update`;
    if (!run || run.acknowledged_count >= max) return undefined;
    const [row] = await tx<AcknowledgementRow[]>`
      insert into run_acknowledgements (id, tenant_id, run_id, principal_kind, principal_id, principal_name, note)
      values (${randomUUID()}, ${a.tenantId}, ${a.runId}, ${a.principal.kind}, ${a.principal.id}, ${a.principal.name}, ${a.note})
      returning *`;
    await tx`update runs set acknowledged_count = acknowledged_count + 1 where id = ${a.runId}`;
    return row!;
  });
}

export async function findAcknowledgement(sql: Queryable, runId: string, id: string): Promise<AcknowledgementRow | undefined> {
  const [row] = await sql<AcknowledgementRow[]>`select * from run_acknowledgements where id = ${id} and run_id = ${runId}`;
  return row;
}

export async function listAcknowledgements(
  sql: Queryable,
  runId: string,
  page: { limit: number; offset: number },
): Promise<{ rows: AcknowledgementRow[]; total: number }> {
  const rows = await sql<AcknowledgementRow[]>`
    select * from run_acknowledgements where run_id = ${runId}
    order by created_at desc, id desc limit ${page.limit} offset ${page.offset}`;
  const [count] = await sql<{ n: number }[]>`select count(*)::int as n from run_acknowledgements where run_id = ${runId}`;
  return { rows, total: count!.n };
}
