import { z } from 'zod';
import { chainIdSchema, presentedChainId, storedChainId, type ChainId } from '../domain/chain-id';
import { findVisiblePreset } from '../db/catalog';
import {
  chainReferences,
  deleteChain as deleteChainRow,
  findChain,
  insertChain,
  listChains as listChainRows,
  updateChain,
  type ChainRow,
} from '../db/chains';
import { onForeignKeyViolation, PG_UNIQUE_VIOLATION, pgErrorCode } from '../db/pg-errors';
import { CHAIN_FAMILIES, type ChainFamily } from '../chains/registry';
import { presetRefSchema } from '../domain/catalog-presets';
import { conflict, notFound, validationError } from '../errors';
import { parseOrThrow } from '../parse-or-throw';
import { page, type Page } from './pagination';
import type { Ctx } from './context';
import { loadOwned } from './load-owned';
import { displayName } from '../domain/display-name';

const httpUrl = z
  .url({ protocol: /^https?$/, error: 'must be an http or https URL' })
  .max(2048);

/** The fields of a chain (and of a chain preset), without defaults so PATCH can leave them out. */
export const chainFields = {
  name: displayName,
  slug: z
    .string()
    .min(1)
    .max(100)
    .regex(/^[a-z0-9][a-z0-9-]*$/, 'must be lower-case letters, digits and dashes'),
  family: z.enum(CHAIN_FAMILIES),
  chain_id: chainIdSchema.nullable(),
  explorer_url: httpUrl.nullable(),
};

export const createChainInput = z.strictObject({
  name: chainFields.name,
  slug: chainFields.slug,
  family: chainFields.family.default('evm'),
  chain_id: chainFields.chain_id.default(null),
  explorer_url: chainFields.explorer_url.default(null),
});

/** POST /v1/chains: either every required field, or a preset whose fields the given ones override. */
export const createChainRequest = z.strictObject({
  preset: presetRefSchema.optional(),
  name: chainFields.name.optional(),
  slug: chainFields.slug.optional(),
  family: chainFields.family.optional(),
  chain_id: chainFields.chain_id.optional(),
  explorer_url: chainFields.explorer_url.optional(),
});

export const patchChainInput = createChainRequest
  .omit({ preset: true })
  .refine((patch) => Object.keys(patch).length > 0, 'give at least one field to change');

export interface ChainResponse {
  id: string;
  name: string;
  slug: string;
  family: ChainFamily;
  chain_id: ChainId | null;
  explorer_url: string | null;
  created_at: Date;
  updated_at: Date;
}

export function presentChain(row: ChainRow): ChainResponse {
  return {
    id: row.id,
    name: row.name,
    slug: row.slug,
    // The column only ever holds a CHAIN_FAMILIES value: every write is validated against it.
    family: row.family as ChainFamily,
    chain_id: presentedChainId(row.chain_id),
    explorer_url: row.explorer_url,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

const slugTaken = (slug: string) => conflict(`a chain with slug "${slug}" already exists`);

/** Fills a create request from its preset (explicit fields win), then validates it as a plain create. */
async function resolveChainRequest(ctx: Ctx, request: z.infer<typeof createChainRequest>) {
  const { preset: ref, ...explicit } = request;
  if (ref === undefined) return parseOrThrow(createChainInput, explicit);
  const preset = await findVisiblePreset(ctx.deps.sql, 'chain', ctx.principal.tenantId, ref);
  if (!preset) throw validationError([{ field: 'preset', message: 'no such chain preset in the catalog' }]);
  return parseOrThrow(createChainInput, {
    name: preset.name,
    slug: preset.slug,
    family: preset.family,
    chain_id: presentedChainId(preset.chain_id),
    explorer_url: preset.explorer_url,
    ...explicit,
  });
}

export async function createChain({ ctx, input }: { ctx: Ctx; input: z.infer<typeof createChainRequest> }) {
  const chain = await resolveChainRequest(ctx, input);
  try {
    const row = await insertChain(ctx.deps.sql, {
      tenantId: ctx.principal.tenantId,
      name: chain.name,
      slug: chain.slug,
      family: chain.family,
      chainId: storedChainId(chain.chain_id),
      explorerUrl: chain.explorer_url,
    });
    return presentChain(row);
  } catch (error) {
    if (pgErrorCode(error) === PG_UNIQUE_VIOLATION) throw slugTaken(chain.slug);
    throw error;
  }
}

function loadChain(ctx: Ctx, chainId: string): Promise<ChainRow> {
  return loadOwned(ctx, 'chain', findChain, chainId);
}

export async function getChain({ ctx, input }: { ctx: Ctx; input: { chainId: string } }): Promise<ChainResponse> {
  return presentChain(await loadChain(ctx, input.chainId));
}

export async function listChains({ ctx, input }: { ctx: Ctx; input: { limit: number; offset: number } }): Promise<Page<ChainResponse>> {
  const { rows, total } = await listChainRows(ctx.deps.sql, ctx.principal.tenantId, input);
  return page(rows.map(presentChain), total, input.limit, input.offset);
}

export async function patchChain({
  ctx,
  input,
}: {
  ctx: Ctx;
  input: { chainId: string; patch: z.infer<typeof patchChainInput> };
}): Promise<ChainResponse> {
  await loadChain(ctx, input.chainId);
  const { patch } = input;
  try {
    const row = await updateChain(ctx.deps.sql, input.chainId, ctx.principal.tenantId, {
      name: patch.name,
      slug: patch.slug,
      family: patch.family,
      chainId: patch.chain_id === undefined ? undefined : storedChainId(patch.chain_id),
      explorerUrl: patch.explorer_url,
    });
    // Gone between the read and the write: a concurrent delete won.
    if (!row) throw notFound('chain');
    return presentChain(row);
  } catch (error) {
    if (pgErrorCode(error) === PG_UNIQUE_VIOLATION) throw slugTaken(patch.slug ?? '');
    throw error;
  }
}

/** 409 while endpoints or suites still use the chain: deleting it would orphan them. */
export async function deleteChain({ ctx, input }: { ctx: Ctx; input: { chainId: string } }): Promise<void> {
  await loadChain(ctx, input.chainId);
  const deleted = await onForeignKeyViolation(
    () =>
      ctx.deps.sql.begin(async (tx) => {
        const refs = await chainReferences(tx, input.chainId);
        const users = [countOf(refs.endpoints, 'endpoint'), countOf(refs.suites, 'suite')].filter((u) => u !== null);
        if (users.length > 0) throw conflict(`the chain is still used by ${users.join(' and ')}; delete them first`);
        return deleteChainRow(tx, input.chainId, ctx.principal.tenantId);
      }),
    () => conflict('the chain is still used by endpoints or suites; delete them first'),
  );
  if (!deleted) throw notFound('chain');
}

/** "1 suite", "3 suites"; null for none. */
export function countOf(n: number, noun: string): string | null {
  if (n === 0) return null;
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}
