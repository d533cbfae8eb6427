import { z } from 'zod';
import { findChain, insertChain, listChains as listChainRows, type ChainRow } from '../db/chains';
import { PG_UNIQUE_VIOLATION, pgErrorCode } from '../db/pg-errors';
import { conflict, notFound } from '../errors';
import { page, type Page } from '../http/validate';
import { assertSameTenant, type Ctx } from './context';

const httpUrl = z
  .url({ protocol: /^https?$/, error: 'must be an http or https URL' })
  .max(2048);

export const createChainInput = z.strictObject({
  name: z.string().trim().min(1).max(200),
  slug: z
    .string()
    .min(1)
    .max(100)
    .regex(/^[a-z0-9][a-z0-9-]*$/, 'must be lower-case letters, digits and dashes'),
  family: z.enum(['evm', 'solana', 'bitcoin']).default('evm'),
  chain_id: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).nullable().default(null),
  explorer_url: httpUrl.nullable().default(null),
});

export interface ChainResponse {
  id: string;
  name: string;
  slug: string;
  family: string;
  chain_id: number | null;
  explorer_url: string | null;
  created_at: Date;
  updated_at: Date;
}

export function presentChain(row: ChainRow): ChainResponse {
  return {
    id: row.id,
    name: row.name,
    slug: row.slug,
    family: row.family,
    chain_id: row.chain_id === null ? null : Number(row.chain_id),
    explorer_url: row.explorer_url,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export async function createChain({ ctx, input }: { ctx: Ctx; input: z.infer<typeof createChainInput> }) {
  try {
    const row = await insertChain(ctx.deps.sql, {
      tenantId: ctx.principal.tenantId,
      name: input.name,
      slug: input.slug,
      family: input.family,
      chainId: input.chain_id,
      explorerUrl: input.explorer_url,
    });
    return presentChain(row);
  } catch (error) {
    if (pgErrorCode(error) === PG_UNIQUE_VIOLATION) throw conflict(`a chain with slug "${input.slug}" already exists`);
    throw error;
  }
}

export async function getChain({ ctx, input }: { ctx: Ctx; input: { chainId: string } }): Promise<ChainResponse> {
  const row = await findChain(ctx.deps.sql, input.chainId);
  if (!row) throw notFound('chain');
  assertSameTenant(ctx, row);
  return presentChain(row);
}

export async function listChains({ ctx, input }: { ctx: Ctx; input: { limit: number; offset: number } }): Promise<Page<ChainResponse>> {
  const { rows, total } = await listChainRows(ctx.deps.sql, ctx.principal.tenantId, input);
  return page(rows.map(presentChain), total, input.limit, input.offset);
}
