import { z } from 'zod';
import { presentedChainId, storedChainId, type ChainId } from '../domain/chain-id';
import {
  builtinSlugExists,
  deleteTenantPreset,
  findPresetById,
  findPresetBySlug,
  insertChainPreset,
  insertWorkloadPreset,
  listPresets,
  type CatalogKind,
  type ChainPresetRow,
  type WorkloadPresetRow,
} from '../db/catalog';
import { PG_UNIQUE_VIOLATION, pgErrorCode } from '../db/pg-errors';
import { CHAIN_FAMILIES, type ChainFamily } from '../chains/registry';
import { isUuidShaped, presetRefSchema, presetSlugSchema } from '../domain/catalog-presets';
import { workloadSchema } from '../domain/suite-config';
import { conflict, forbidden, notFound } from '../errors';
import { page, paginationQuery, type Page } from './pagination';
import { chainFields } from './chains';
import type { Ctx } from './context';
import { storedMember } from './stored-vocabulary';
import { displayName } from '../domain/display-name';

/** A workload preset is small reference data; anything bigger is a mistake (or abuse). */
export const MAX_WORKLOAD_PRESET_BYTES = 64 * 1024;

export const catalogListQuery = paginationQuery.extend({ family: z.enum(CHAIN_FAMILIES).optional() });

export const presetParam = z.strictObject({ presetId: presetRefSchema });

export const createChainPresetInput = z.strictObject({
  slug: presetSlugSchema,
  name: chainFields.name,
  family: chainFields.family.default('evm'),
  chain_id: chainFields.chain_id.default(null),
  explorer_url: chainFields.explorer_url.default(null),
});

export const createWorkloadPresetInput = z.strictObject({
  slug: presetSlugSchema,
  name: displayName,
  family: z.enum(CHAIN_FAMILIES).default('evm'),
  description: z.string().max(2000).default(''),
  // Stored as given (defaults not applied), so a suite's overrides merge with what the author
  // wrote, not with defaults; but it must be a workload a suite could use as it is.
  workload: z.record(z.string(), z.unknown()).superRefine((workload, issues) => {
    if (Buffer.byteLength(JSON.stringify(workload)) > MAX_WORKLOAD_PRESET_BYTES) {
      issues.addIssue({ code: 'custom', message: `must be at most ${MAX_WORKLOAD_PRESET_BYTES / 1024} KiB as JSON` });
      return;
    }
    const parsed = workloadSchema.safeParse(workload);
    if (parsed.success) return;
    for (const issue of parsed.error.issues) {
      issues.addIssue(
        issue.code === 'unrecognized_keys'
          ? { code: 'unrecognized_keys', keys: issue.keys, path: issue.path, message: issue.message }
          : { code: 'custom', path: issue.path, message: issue.message },
      );
    }
  }),
});

export interface ChainPresetResponse {
  id: string;
  slug: string;
  name: string;
  family: ChainFamily;
  chain_id: ChainId | null;
  explorer_url: string | null;
  built_in: boolean;
  created_at: Date;
}

export interface WorkloadPresetResponse {
  id: string;
  slug: string;
  name: string;
  family: ChainFamily;
  description: string;
  workload: Record<string, unknown>;
  built_in: boolean;
  created_at: Date;
}

export function presentChainPreset(row: ChainPresetRow): ChainPresetResponse {
  return {
    id: row.id,
    slug: row.slug,
    name: row.name,
    family: storedMember(CHAIN_FAMILIES, row.family, 'catalog presets.family'),
    chain_id: presentedChainId(row.chain_id),
    explorer_url: row.explorer_url,
    built_in: row.tenant_id === null,
    created_at: row.created_at,
  };
}

export function presentWorkloadPreset(row: WorkloadPresetRow): WorkloadPresetResponse {
  return {
    id: row.id,
    slug: row.slug,
    name: row.name,
    family: storedMember(CHAIN_FAMILIES, row.family, 'catalog presets.family'),
    description: row.description,
    workload: row.workload,
    built_in: row.tenant_id === null,
    created_at: row.created_at,
  };
}

const LABEL: Record<CatalogKind, string> = { chain: 'chain preset', workload: 'workload preset' };

/**
 * By id: another tenant's entry is a 403 like every other resource. By slug: only the built-ins
 * and the caller's own entries are searched, so another tenant's slug is simply not found.
 */
async function loadPreset<K extends CatalogKind>(ctx: Ctx, kind: K, ref: string) {
  const { sql } = ctx.deps;
  const row = isUuidShaped(ref)
    ? await findPresetById(sql, kind, ref)
    : await findPresetBySlug(sql, kind, ctx.principal.tenantId, ref);
  if (!row) throw notFound(LABEL[kind]);
  if (row.tenant_id !== null && row.tenant_id !== ctx.principal.tenantId) throw forbidden();
  return row;
}

async function assertSlugFree(ctx: Ctx, kind: CatalogKind, slug: string): Promise<void> {
  if (await builtinSlugExists(ctx.deps.sql, kind, slug)) {
    throw conflict(`"${slug}" is the slug of a built-in ${LABEL[kind]}; choose another`);
  }
}

async function insertUnique<T>(kind: CatalogKind, slug: string, insert: () => Promise<T>): Promise<T> {
  try {
    return await insert();
  } catch (error) {
    if (pgErrorCode(error) === PG_UNIQUE_VIOLATION) throw conflict(`a ${LABEL[kind]} with slug "${slug}" already exists`);
    throw error;
  }
}

export async function listChainPresets({
  ctx,
  input,
}: {
  ctx: Ctx;
  input: z.infer<typeof catalogListQuery>;
}): Promise<Page<ChainPresetResponse>> {
  const { rows, total } = await listPresets(ctx.deps.sql, 'chain', ctx.principal.tenantId, { ...input, family: input.family ?? null });
  return page(rows.map(presentChainPreset), total, input.limit, input.offset);
}

export async function getChainPreset({ ctx, input }: { ctx: Ctx; input: { presetId: string } }): Promise<ChainPresetResponse> {
  return presentChainPreset(await loadPreset(ctx, 'chain', input.presetId));
}

export async function createChainPreset({
  ctx,
  input,
}: {
  ctx: Ctx;
  input: z.infer<typeof createChainPresetInput>;
}): Promise<ChainPresetResponse> {
  await assertSlugFree(ctx, 'chain', input.slug);
  const row = await insertUnique('chain', input.slug, () =>
    insertChainPreset(ctx.deps.sql, {
      tenantId: ctx.principal.tenantId,
      slug: input.slug,
      name: input.name,
      family: input.family,
      chainId: storedChainId(input.chain_id),
      explorerUrl: input.explorer_url,
    }),
  );
  return presentChainPreset(row);
}

export async function listWorkloadPresets({
  ctx,
  input,
}: {
  ctx: Ctx;
  input: z.infer<typeof catalogListQuery>;
}): Promise<Page<WorkloadPresetResponse>> {
  const { rows, total } = await listPresets(ctx.deps.sql, 'workload', ctx.principal.tenantId, { ...input, family: input.family ?? null });
  return page(rows.map(presentWorkloadPreset), total, input.limit, input.offset);
}

export async function getWorkloadPreset({ ctx, input }: { ctx: Ctx; input: { presetId: string } }): Promise<WorkloadPresetResponse> {
  return presentWorkloadPreset(await loadPreset(ctx, 'workload', input.presetId));
}

export async function createWorkloadPreset({
  ctx,
  input,
}: {
  ctx: Ctx;
  input: z.infer<typeof createWorkloadPresetInput>;
}): Promise<WorkloadPresetResponse> {
  await assertSlugFree(ctx, 'workload', input.slug);
  const row = await insertUnique('workload', input.slug, () =>
    insertWorkloadPreset(ctx.deps.sql, {
      tenantId: ctx.principal.tenantId,
      slug: input.slug,
      name: input.name,
      family: input.family,
      description: input.description,
      workload: input.workload,
    }),
  );
  return presentWorkloadPreset(row);
}

/** Built-ins are read-only (403). Chains and suites made from a preset copied it, so nothing breaks. */
export async function deletePreset({ ctx, input }: { ctx: Ctx; input: { kind: CatalogKind; presetId: string } }): Promise<void> {
  const row = await loadPreset(ctx, input.kind, input.presetId);
  if (row.tenant_id === null) throw forbidden(`built-in ${LABEL[input.kind]}s cannot be changed or deleted`);
  if (!(await deleteTenantPreset(ctx.deps.sql, input.kind, ctx.principal.tenantId, row.id))) throw notFound(LABEL[input.kind]);
}
