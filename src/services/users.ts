import { findTenant } from '../db/tenants';
import { callerOf, type Ctx } from './context';

export async function getMe({ ctx }: { ctx: Ctx }) {
  const principal = callerOf(ctx);
  const tenant = await findTenant(ctx.deps.sql, principal.tenantId);
  return {
    id: principal.id,
    kind: principal.kind,
    tenant: { id: principal.tenantId, name: tenant?.name ?? '' },
    scopes: [...principal.scopes],
    name: principal.name,
    email: principal.email,
  };
}
