import { suiteWarnings, type SuiteWarning } from '../domain/suite-warnings';
import { z } from 'zod';
import { findVisiblePreset } from '../db/catalog';
import { findChain, type ChainRow } from '../db/chains';
import { addressOf, findEndpoints } from '../db/endpoints';
import { findRunOfTenant } from '../db/runs';
import { onForeignKeyViolation } from '../db/pg-errors';
import {
  countSuiteRuns,
  deleteSuite as deleteSuiteRow,
  findSuite,
  insertSuite,
  listSuites as listSuiteRows,
  updateSuite,
  type SuiteRow,
} from '../db/suites';
import { mergeWorkloadPreset, presetRefSchema } from '../domain/catalog-presets';
import { noAddressMessage, suiteConfigSchema, type SuiteConfig } from '../domain/suite-config';
import { headWatchTransport } from '../domain/transport';
import { conflict, notFound, validationError, type ErrorDetail } from '../errors';
import { parseOrThrow } from '../parse-or-throw';
import { page, paginationQuery, type Page } from './pagination';
import { applySchedule, assertMayFire, checkScheduleInterval, removeSchedule, scheduleInput, schedulesOf, type ScheduleResponse } from './schedules';
import { adapterForChain } from './chain-support';
import { countOf } from './chains';
import type { Ctx } from './context';
import { loadOwned } from './load-owned';
import { displayName } from '../domain/display-name';

const suiteFields = {
  name: displayName,
  description: z.string().max(2000),
  // Validated by suiteConfigSchema in the verb, once a workload preset has been resolved.
  config: z.record(z.string(), z.unknown(), { error: 'must be an object' }),
};

export const createSuiteInput = z.strictObject({
  chain_id: z.uuid(),
  name: suiteFields.name,
  description: suiteFields.description.default(''),
  config: suiteFields.config,
  schedule: scheduleInput.optional(),
});

/** The chain is fixed (the config's endpoints belong to it); a config replaces the whole config. */
export const patchSuiteInput = z
  .strictObject({
    name: suiteFields.name.optional(),
    description: suiteFields.description.optional(),
    config: suiteFields.config.optional(),
    schedule: scheduleInput.optional(),
  })
  .refine((patch) => Object.keys(patch).length > 0, 'give at least one field to change');

export interface SuiteResponse {
  id: string;
  chain_id: string;
  name: string;
  description: string;
  config: SuiteConfig;
  created_at: Date;
  updated_at: Date;
  /** Null without a schedule (services/schedules.ts). */
  schedule: ScheduleResponse | null;
  warnings: SuiteWarning[];
}

export function presentSuite(row: SuiteRow, schedule: ScheduleResponse | null = null): SuiteResponse {
  return {
    id: row.id,
    chain_id: row.chain_id,
    name: row.name,
    description: row.description,
    config: row.config,
    created_at: row.created_at,
    updated_at: row.updated_at,
    schedule,
    warnings: suiteWarnings(row.config),
  };
}

/** Suites with their schedules (next fire times asked of Temporal). */
async function present(ctx: Ctx, rows: SuiteRow[]): Promise<SuiteResponse[]> {
  const schedules = await schedulesOf(ctx.deps, rows.map((r) => r.id));
  return rows.map((row) => presentSuite(row, schedules.get(row.id) ?? null));
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/**
 * `workload: {preset, ...overrides}` becomes the preset's workload with the overrides on top;
 * then the whole config is validated as if the caller had written it out. The stored config
 * holds the resolved methods: a later change to the preset never changes a suite.
 */
async function resolveConfig(ctx: Ctx, chain: ChainRow, raw: Record<string, unknown>): Promise<SuiteConfig> {
  let config = raw;
  if (isRecord(raw.workload) && 'preset' in raw.workload) {
    const { preset: ref, ...overrides } = raw.workload;
    const field = 'config.workload.preset';
    const parsedRef = presetRefSchema.safeParse(ref);
    if (!parsedRef.success) throw validationError([{ field, message: 'must be a workload preset id or slug' }]);
    const preset = await findVisiblePreset(ctx.deps.sql, 'workload', ctx.principal.tenantId, parsedRef.data);
    if (!preset) throw validationError([{ field, message: 'no such workload preset in the catalog' }]);
    if (preset.family !== chain.family) {
      throw validationError([{ field, message: `"${preset.slug}" is for ${preset.family} chains; this suite's chain is ${chain.family}` }]);
    }
    config = { ...raw, workload: mergeWorkloadPreset(preset.workload, overrides) };
  }
  // After the preset: a preset of another family is the more precise complaint.
  const adapter = adapterForChain(chain, 'chain_id');
  // A workload that names no methods gets its chain family's default.
  const workload = config.workload === undefined ? {} : config.workload;
  if (isRecord(workload) && !('methods' in workload)) config = { ...config, workload: { ...workload, methods: adapter.defaultMethods } };
  const parsed = parseOrThrow(suiteConfigSchema, config, 'config');
  const badNames: ErrorDetail[] = parsed.workload.methods.flatMap((m, i) =>
    adapter.methodName.pattern.test(m.method) ? [] : [{ field: `config.workload.methods.${i}.method`, message: adapter.methodName.message }],
  );
  if (badNames.length > 0) throw validationError(badNames);
  if (parsed.workload.batch_size > 1 && adapter.envelope !== 'json-rpc-2.0') {
    throw validationError([{ field: 'config.workload.batch_size', message: `chains of family "${chain.family}" answer JSON-RPC 1.0, which has no batches: batch_size must be 1` }]);
  }
  const levels = adapter.readLevels.names;
  if (parsed.commitment !== undefined && !levels.includes(parsed.commitment)) {
    const message = levels.length === 0 ? `chains of family "${chain.family}" have no commitment levels` : `must be one of ${levels.join(', ')} on ${chain.family} chains`;
    throw validationError([{ field: 'config.commitment', message }]);
  }
  return parsed;
}

/**
 * Every endpoint a suite names must be the caller's and on the suite's chain; a head watch by
 * subscription needs each of them to have a ws_url and the family a head subscription.
 */
async function checkEndpoints(ctx: Ctx, chain: ChainRow, config: SuiteConfig): Promise<void> {
  const chainId = chain.id;
  const wanted = [
    ...config.targets.map((t, i) => ({ id: t.endpoint_id, field: `config.targets.${i}.endpoint_id` })),
    ...(config.reference_endpoint_id ? [{ id: config.reference_endpoint_id, field: 'config.reference_endpoint_id' }] : []),
  ];
  const found = new Map((await findEndpoints(ctx.deps.sql, wanted.map((w) => w.id))).map((e) => [e.id, e]));
  const details: ErrorDetail[] = [];
  for (const w of wanted) {
    const endpoint = found.get(w.id);
    // An endpoint owned by a run (a trigger's per-run target) is no endpoint a suite may name.
    if (!endpoint || endpoint.tenant_id !== ctx.principal.tenantId || endpoint.owner_run_id !== null) {
      details.push({ field: w.field, message: 'no such endpoint in your tenant' });
    } else if (endpoint.chain_id !== chainId) {
      details.push({ field: w.field, message: 'endpoint belongs to another chain' });
    } else if (addressOf(endpoint, config.workload.transport) === undefined) {
      details.push({ field: w.field, message: noAddressMessage(config.workload.transport) });
    } else if (config.freshness?.via === 'subscribe' && addressOf(endpoint, headWatchTransport('subscribe')) === undefined) {
      details.push({ field: w.field, message: 'freshness.via "subscribe" needs a ws_url on every endpoint; this one has none (use via "poll")' });
    }
  }
  if (config.freshness?.via === 'subscribe' && adapterForChain(chain, 'chain_id').headSubscription === undefined) {
    details.push({ field: 'config.freshness.via', message: `chains of family "${chain.family}" have no head subscription; use via "poll"` });
  }
  if (details.length > 0) throw validationError(details);
}

/**
 * A baseline run is named by id: it must be the caller's. Another tenant's run gets the same
 * answer as one that does not exist, so the check does not reveal which ids exist.
 */
async function checkBaselineRun(ctx: Ctx, config: SuiteConfig): Promise<void> {
  const runId = config.baseline.run_id;
  if (runId && !(await findRunOfTenant(ctx.deps.sql, runId, ctx.principal.tenantId))) {
    throw validationError([{ field: 'config.baseline.run_id', message: 'no such run in your tenant' }]);
  }
}

// An endpoint or the chain deleted between the checks above and the write.
const deletedMeanwhile = () => conflict('a chain or endpoint this suite names was deleted meanwhile; try again');

export async function createSuite({ ctx, input }: { ctx: Ctx; input: z.infer<typeof createSuiteInput> }) {
  assertMayFire(ctx, input.schedule);
  const chain = await findChain(ctx.deps.sql, input.chain_id);
  if (!chain || chain.tenant_id !== ctx.principal.tenantId) {
    throw validationError([{ field: 'chain_id', message: 'no such chain in your tenant' }]);
  }
  const config = await resolveConfig(ctx, chain, input.config);
  await checkEndpoints(ctx, chain, config);
  await checkBaselineRun(ctx, config);
  checkScheduleInterval(ctx.deps, input.schedule);
  const row = await onForeignKeyViolation(
    () =>
      ctx.deps.sql.begin(async (tx) => {
        const suite = await insertSuite(tx, {
          tenantId: ctx.principal.tenantId,
          chainId: chain.id,
          name: input.name,
          description: input.description,
          config,
        });
        // Temporal is reconciled before the commit: if it fails, the suite is not created.
        await applySchedule(ctx.deps, tx, suite, input.schedule, ctx.log);
        return suite;
      }),
    deletedMeanwhile,
  );
  return (await present(ctx, [row]))[0]!;
}

function loadSuite(ctx: Ctx, suiteId: string): Promise<SuiteRow> {
  return loadOwned(ctx, 'suite', findSuite, suiteId);
}

export async function getSuite({ ctx, input }: { ctx: Ctx; input: { suiteId: string } }) {
  return (await present(ctx, [await loadSuite(ctx, input.suiteId)]))[0]!;
}

export const listSuitesQuery = paginationQuery.extend({
  name: z
    .string()
    .min(1)
    .max(200)
    .optional()
    .describe('only the suites with exactly this name (case-sensitive; names are not unique, so a page may hold several)'),
});

export async function listSuites({ ctx, input }: { ctx: Ctx; input: z.infer<typeof listSuitesQuery> }): Promise<Page<SuiteResponse>> {
  const { rows, total } = await listSuiteRows(ctx.deps.sql, ctx.principal.tenantId, { limit: input.limit, offset: input.offset, name: input.name ?? null });
  return page(await present(ctx, rows), total, input.limit, input.offset);
}

/** Runs already triggered keep the config they snapshotted; later runs use the new one. */
export async function patchSuite({
  ctx,
  input,
}: {
  ctx: Ctx;
  input: { suiteId: string; patch: z.infer<typeof patchSuiteInput> };
}): Promise<SuiteResponse> {
  const suite = await loadSuite(ctx, input.suiteId);
  const { patch } = input;
  assertMayFire(ctx, patch.schedule);
  let config: SuiteConfig | undefined;
  if (patch.config !== undefined) {
    const chain = (await findChain(ctx.deps.sql, suite.chain_id))!;
    config = await resolveConfig(ctx, chain, patch.config);
    await checkEndpoints(ctx, chain, config);
    await checkBaselineRun(ctx, config);
  }
  checkScheduleInterval(ctx.deps, patch.schedule);
  const row = await onForeignKeyViolation(
    () =>
      ctx.deps.sql.begin(async (tx) => {
        const updated = await updateSuite(tx, input.suiteId, ctx.principal.tenantId, { name: patch.name, description: patch.description, config });
        // A new schedule, or a new name for the Temporal note: reconciled before the commit.
        if (updated && (patch.schedule !== undefined || patch.name !== undefined)) {
          await applySchedule(ctx.deps, tx, updated, patch.schedule, ctx.log);
        }
        return updated;
      }),
    deletedMeanwhile,
  );
  if (!row) throw notFound('suite');
  return (await present(ctx, [row]))[0]!;
}

/** 409 once the suite has runs: runs are kept as history and point at their suite. */
export async function deleteSuite({ ctx, input }: { ctx: Ctx; input: { suiteId: string } }): Promise<void> {
  await loadSuite(ctx, input.suiteId);
  const hasRuns = (n: number) =>
    conflict(`the suite has ${n > 0 ? countOf(n, 'run') : 'runs'}; runs are kept as history, so a suite that has run cannot be deleted`);
  const deleted = await onForeignKeyViolation(
    () =>
      ctx.deps.sql.begin(async (tx) => {
        const runs = await countSuiteRuns(tx, input.suiteId);
        if (runs > 0) throw hasRuns(runs);
        // Its Temporal Schedule goes first: if Temporal cannot be reached, the suite stays.
        await removeSchedule(ctx.deps, tx, input.suiteId, ctx.log);
        return deleteSuiteRow(tx, input.suiteId, ctx.principal.tenantId);
      }),
    () => hasRuns(0),
  );
  if (!deleted) throw notFound('suite');
}
