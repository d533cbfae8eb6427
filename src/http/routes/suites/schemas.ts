import { z } from 'zod';
import { presetRefSchema } from '../../../domain/catalog-presets';
import { READ_LEVEL_NAMES, suiteConfigSchema, WORKLOAD_TRANSPORTS, workloadSchema } from '../../../domain/suite-config';
import { storedThresholdsSchema } from '../../../domain/thresholds';
import { HEAD_WATCH_VIAS } from '../../../domain/transport';
import * as suites from '../../../services/suites';
import { SuiteSchedule } from '../schedules/schemas';
import { component, int, pageOf, timestamp, uuid, uuidParam } from '../shared/schemas';

export const suiteParams = uuidParam('suiteId');

export const Thresholds = component('Thresholds', storedThresholdsSchema);

export const workloadMethod = z.object({
  method: z.string(),
  params: z.array(z.unknown()).describe('JSON-RPC params; the string {{pinned_block}} is replaced by the run\'s pinned block as the chain family writes it (Bitcoin: a height, also as {{pinned_height}}; its block hash as {{pinned_block_hash}} and a txid in it as {{pinned_txid}})'),
  weight: z.number(),
});

export const workloadFields = {
  methods: z.array(workloadMethod),
  requests_per_target: int.nullable().describe('null when the campaign is bound by duration_s'),
  duration_s: int.nullable(),
  concurrency: int,
  rate_per_second: z.number().nullable().describe('open loop when set'),
  warmup_requests: int,
  timeout_ms: int,
  block_lag: int,
  transport: z
    .enum(WORKLOAD_TRANSPORTS)
    .optional()
    .describe('how the requests reach each endpoint: "http" (its url, the default; absent from suites stored before it existed) or "ws" (its ws_url, one socket carrying many calls matched by id; every endpoint of the suite, reference included, needs a ws_url)'),
  batch_size: int
    .optional()
    .describe('calls per JSON-RPC batch over HTTP (1–100; 1, the default, sends single calls; absent from suites stored before it existed). Each call is still one sample, its outcome read from its own element; a batch refused as a whole (HTTP 413, a single -32600 error, a non-array answer) gives every member that outcome. JSON-RPC 2.0 families and transport "http" only'),
};

export const Sweep = component(
  'Sweep',
  z
    .object({
      rates: z.array(z.number()).optional().describe('the steps\' rates, calls/s per target, rising strictly (1–20 of them)'),
      start: z.number().optional().describe('or: the first rate …'),
      factor: z.number().optional().describe('… multiplied by this (1.1–10) each step …'),
      max: z.number().optional().describe('… up to this rate (at most 20 steps)'),
      step_s: int.describe('measured seconds per step (1–600, default 30)'),
      warmup_s: int.describe('warm-up seconds before each step\'s measurement (0–120, default 5): stored, flagged, counted nowhere'),
    })
    .describe(
      'A capacity sweep: open-loop steps at rising rates (candidates and reference alike, each step on one shared schedule), ' +
        'stopping once every candidate broke the budget (latency_p95_max_ms, success_rate_min_pct) by a clear margin. ' +
        'rate_per_second, duration_s and requests_per_target stay unset. See docs/sweeps.md.',
    ),
);

export const Workload = component('Workload', z.object({ ...workloadFields, sweep: Sweep.optional() }));

export const Freshness = component(
  'Freshness',
  z
    .object({
      duration_s: int.describe('how long every target and the reference are watched at once (1–3,600)'),
      via: z.enum(HEAD_WATCH_VIAS).describe('`subscribe`: the family\'s head subscription over each endpoint\'s ws_url (every endpoint needs one); `poll`: the head read over HTTP every poll_interval_ms'),
      poll_interval_ms: int.describe('poll only: the interval (50–60,000, default 250), which is also the resolution of a polled arrival time'),
      grace_ms: int.describe('a reference head that a candidate has not announced this long after the reference is missed (0–600,000, default 2,000)'),
      late_ms: int.describe('an announcement more than this long after the reference\'s is late: counted, not missed (default 1,000)'),
    })
    .describe('A head watch: for every head the reference announces, when each candidate announced it (docs/freshness.md).'),
);

export const Integrity = component(
  'Integrity',
  z
    .object({
      enabled: z.boolean().describe('false: no integrity step (default true once `integrity` is given)'),
      trusted_block: z
        .object({ number: int, hash: z.string() })
        .nullable()
        .describe('the block the proofs link to (from your own node or an explorer); null: the reference\'s hash of the pinned block, else the candidate\'s own headers (self-consistency)'),
      max_requests: int.describe('requests the step may send each candidate beyond the probes (1–5,000, default 200)'),
      max_anchor_distance: int.describe('a header farther than this many blocks from the anchor is not linked: its answers are not provable (0–10,000, default 256)'),
    })
    .describe('The integrity check: each answer of a provable method proven against a header the run trusts (docs/integrity.md).'),
);

export const SuiteConfig = component(
  'SuiteConfig',
  z
    .strictObject({
      targets: z.array(z.object({ endpoint_id: uuid, role: z.literal('primary') })),
      reference_endpoint_id: uuid.nullable(),
      baseline: z.object({
        mode: z.enum(['none', 'history', 'previous_success', 'run']),
        run_id: uuid.nullable(),
        window: int.optional().describe('history: earlier passing runs in the band (1–50, default 10); absent from suites stored before it existed'),
        min_runs: int.optional().describe('history: below this many passing runs, compare with the previous passing run (default 5)'),
        branch: z
          .string()
          .optional()
          .describe('history / previous_success read only runs of this branch (and runs naming none); other branches compare against it and never join it (default "main"; absent from suites stored before it existed, which means "main")'),
      }),
      workload: Workload,
      thresholds: Thresholds,
      retry: z.object({
        max_attempts: int,
        initial_interval_ms: int,
        backoff_coefficient: z.number(),
        max_interval_ms: int,
      }),
      freshness: Freshness.optional().describe('absent: no head watch'),
      integrity: Integrity.optional().describe('absent: no integrity step'),
      commitment: z
        .enum(READ_LEVEL_NAMES)
        .optional()
        .describe('Solana only (400 on other families): the commitment level of the head read and of every "{{commitment}}" in params; absent means "finalized"'),
      vantage_points: z
        .array(z.string())
        .optional()
        .describe('regions (RVS_REGION of a worker) every target is probed from, each on its queue rvs-probe-<region>; absent: probed by any worker, recorded as region "local" (docs/regions.md)'),
      vantage_start_timeout_s: int
        .optional()
        .describe('how long a region\'s probe task waits for a worker of the region before the region is vantage_unavailable (1–3,600, default 60)'),
    })
    .describe('A suite configuration as stored: every default applied, a workload preset resolved into its methods.'),
);

export const Suite = component(
  'Suite',
  z.object({
    id: uuid,
    chain_id: uuid,
    name: z.string(),
    description: z.string(),
    config: SuiteConfig,
    created_at: timestamp,
    updated_at: timestamp,
    schedule: SuiteSchedule.nullable(),
    warnings: z
      .array(
        z.object({
          check: z.enum(['latency_vs_reference', 'latency_vs_baseline', 'availability']),
          field: z.string(),
          message: z.string(),
        }),
      )
      .describe('checks the workload is too small to let decide (docs/statistics.md: fewest calls per check); empty when every check can decide'),
  }),
);


export const SuitePage = pageOf('SuitePage', Suite);

/*
 * Request bodies. The suites service takes `config` as any object and validates it itself, once a
 * workload preset has been resolved (services/suites.ts resolveConfig), so the route lets any
 * object through and the document shows what that validation accepts: suiteConfigSchema, with
 * `workload` either written out or `{preset, ...overrides}` (the component SuiteConfigRequest).
 */
const workloadByPreset = workloadSchema.in
  .extend({
    preset: presetRefSchema.describe('a workload preset id or slug from the catalog; the other fields override it'),
  })
  .describe('a catalog workload preset, with overrides');
component(
  'SuiteConfigRequest',
  z
    .strictObject({
      ...suiteConfigSchema.shape,
      workload: z.union([workloadSchema, workloadByPreset]).optional(),
    })
    .describe('Validated as a whole; every field with a default may be left out.'),
);
const configAsDocumented = { $ref: '#/components/schemas/SuiteConfigRequestInput' };

export const createSuiteBody = suites.createSuiteInput.extend({ config: suites.createSuiteInput.shape.config.meta(configAsDocumented) });
export const patchSuiteBody = suites.patchSuiteInput
  .safeExtend({ config: suites.createSuiteInput.shape.config.meta(configAsDocumented).optional() })
  .describe('At least one field; a config replaces the whole config.');
