import { z } from 'zod';
import type { Queryable } from './client';

/*
 * What the integrity step stored per candidate (migration 040, issue 34): counts, the extra
 * requests it sent, the anchor, and each call's finding. Declared once here (STYLE rule 16):
 * the row is read through its schema.
 */

/** One call of the run and what its proof showed. */
export const integrityCallFindingSchema = z.discriminatedUnion('kind', [
  z.strictObject({ method: z.string(), params: z.string(), kind: z.literal('proven'), block: z.string().nullable() }),
  z.strictObject({ method: z.string(), params: z.string(), kind: z.literal('wrong'), block: z.string().nullable(), path: z.string(), message: z.string() }),
  z.strictObject({ method: z.string(), params: z.string(), kind: z.literal('not_provable'), reason: z.string() }),
]);
export type IntegrityCallFinding = z.infer<typeof integrityCallFindingSchema>;

export const runIntegrityRowSchema = z.strictObject({
  run_id: z.string(),
  target_id: z.string(),
  proven: z.number().int().min(0),
  wrong: z.number().int().min(0),
  not_provable: z.number().int().min(0),
  extra_requests: z.number().int().min(0),
  anchor_number: z.string().nullable(),
  anchor_hash: z.string().nullable(),
  anchor_source: z.enum(['trusted_block', 'reference']).nullable(),
  findings: z.array(integrityCallFindingSchema),
});
export type RunIntegrityRow = z.infer<typeof runIntegrityRowSchema>;

/** Stores (or replaces, on a retried step) one candidate's results. */
export async function upsertRunIntegrity(sql: Queryable, row: RunIntegrityRow): Promise<void> {
  await sql`
    insert into run_integrity ${sql({ ...row, findings: sql.json(row.findings as never) } as never, 'run_id', 'target_id', 'proven', 'wrong', 'not_provable', 'extra_requests', 'anchor_number', 'anchor_hash', 'anchor_source', 'findings')}
    on conflict (run_id, target_id) do update set
      proven = excluded.proven, wrong = excluded.wrong, not_provable = excluded.not_provable,
      extra_requests = excluded.extra_requests, anchor_number = excluded.anchor_number,
      anchor_hash = excluded.anchor_hash, anchor_source = excluded.anchor_source,
      findings = excluded.findings, verified_at = now()`;
}

/** The run's stored results, by target id, each read through its schema. */
export async function findRunIntegrity(sql: Queryable, runId: string): Promise<Map<string, RunIntegrityRow>> {
  const rows = await sql`
    select run_id, target_id, proven, wrong, not_provable, extra_requests, anchor_number::text as anchor_number, anchor_hash, anchor_source, findings
    from run_integrity where run_id = ${runId}`;
  return new Map(rows.map((row) => {
    const parsed = runIntegrityRowSchema.parse(row);
    return [parsed.target_id, parsed];
  }));
}
