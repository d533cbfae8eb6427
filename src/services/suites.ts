import { z } from 'zod';
import { findChain } from '../db/chains';
import { findEndpoints } from '../db/endpoints';
import { findSuite, insertSuite, listSuites as listSuiteRows, type SuiteRow } from '../db/suites';
import { suiteConfigSchema, type SuiteConfig } from '../domain/suite-config';
import { notFound, validationError, type ErrorDetail } from '../errors';
import { page, type Page } from '../http/validate';
import { assertSameTenant, type Ctx } from './context';

export const createSuiteInput = z.strictObject({
  chain_id: z.uuid(),
  name: z.string().trim().min(1).max(200),
  description: z.string().max(2000).default(''),
  config: suiteConfigSchema,
});

export interface SuiteResponse {
  id: string;
  chain_id: string;
  name: string;
  description: string;
  config: SuiteConfig;
  created_at: Date;
  updated_at: Date;
}

export function presentSuite(row: SuiteRow): SuiteResponse {
  return {
    id: row.id,
    chain_id: row.chain_id,
    name: row.name,
    description: row.description,
    config: row.config,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/** Every endpoint a suite names must be the caller's and on the suite's chain. */
async function checkEndpoints(ctx: Ctx, chainId: string, config: SuiteConfig): Promise<void> {
  const wanted = [
    ...config.targets.map((t, i) => ({ id: t.endpoint_id, field: `config.targets.${i}.endpoint_id` })),
    ...(config.reference_endpoint_id ? [{ id: config.reference_endpoint_id, field: 'config.reference_endpoint_id' }] : []),
  ];
  const found = new Map((await findEndpoints(ctx.deps.sql, wanted.map((w) => w.id))).map((e) => [e.id, e]));
  const details: ErrorDetail[] = [];
  for (const w of wanted) {
    const endpoint = found.get(w.id);
    if (!endpoint || endpoint.tenant_id !== ctx.principal.tenantId) {
      details.push({ field: w.field, message: 'no such endpoint in your tenant' });
    } else if (endpoint.chain_id !== chainId) {
      details.push({ field: w.field, message: 'endpoint belongs to another chain' });
    }
  }
  if (details.length > 0) throw validationError(details);
}

export async function createSuite({ ctx, input }: { ctx: Ctx; input: z.infer<typeof createSuiteInput> }) {
  const chain = await findChain(ctx.deps.sql, input.chain_id);
  if (!chain || chain.tenant_id !== ctx.principal.tenantId) {
    throw validationError([{ field: 'chain_id', message: 'no such chain in your tenant' }]);
  }
  await checkEndpoints(ctx, chain.id, input.config);
  const row = await ctx.deps.sql.begin((tx) =>
    insertSuite(tx, {
      tenantId: ctx.principal.tenantId,
      chainId: chain.id,
      name: input.name,
      description: input.description,
      config: input.config,
    }),
  );
  return presentSuite(row);
}

export async function getSuite({ ctx, input }: { ctx: Ctx; input: { suiteId: string } }) {
  const row = await findSuite(ctx.deps.sql, input.suiteId);
  if (!row) throw notFound('suite');
  assertSameTenant(ctx, row);
  return presentSuite(row);
}

export async function listSuites({ ctx, input }: { ctx: Ctx; input: { limit: number; offset: number } }): Promise<Page<SuiteResponse>> {
  const { rows, total } = await listSuiteRows(ctx.deps.sql, ctx.principal.tenantId, input);
  return page(rows.map(presentSuite), total, input.limit, input.offset);
}
