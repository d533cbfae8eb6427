import type { Queryable } from '../db/client';
import { forbidden, notFound } from '../errors';
import type { Ctx } from './context';

/**
 * A resource of the caller's tenant, by the id a path names. A missing row is a 404 first; a row
 * of another tenant is a 403, as the spec says (its existence is not a secret worth a second rule
 * per route). `hidden` rows exist but are not this kind of resource to the caller (an endpoint a
 * run owns is its run's): a 404, exactly like a missing one, whoever's tenant they are in.
 */
export async function loadOwned<Row extends { tenant_id: string }>(
  ctx: Ctx,
  what: string,
  find: (sql: Queryable, id: string) => Promise<Row | undefined>,
  id: string,
  hidden?: (row: Row) => boolean,
): Promise<Row> {
  const row = await find(ctx.deps.sql, id);
  if (!row || hidden?.(row)) throw notFound(what);
  if (row.tenant_id !== ctx.principal.tenantId) throw forbidden();
  return row;
}
