import { z } from 'zod';
import { presetRefSchema } from '../../../domain/catalog-presets';
import { COMMITMENT_LEVELS, suiteConfigSchema, workloadSchema } from '../../../domain/suite-config';
import * as suites from '../../../services/suites';
import { SuiteSchedule } from '../schedules/schemas';
import { component, int, pageOf, timestamp, uuid, uuidParam } from '../shared/schemas';

export const suiteParams = uuidParam('suiteId');

export const Thresholds = component(
  'Thresholds',
  z.object({
    latency_p95_max_ms: z.number(),
    latency_regression_max_pct: z.number(),
    latency_regression_min_ms: z.number().optional().describe('the latency checks\' floor: a slower p95 fails only when more than this many ms slower (default 5, 0–10,000)'),
    latency_vs_reference_max_pct: z.number(),
    correctness_min_pct: z.number(),
    correctness_enabled: z.boolean(),
    fail_on_inconclusive: z.boolean().optional().describe('an inconclusive check fails the verdict too (default false)'),
    success_rate_min_pct: z.number().optional().describe('the availability check\'s minimum success rate (default 99)'),
    head_lag_p95_max_ms: z.number().optional().describe('freshness_vs_reference: most a candidate\'s head arrival lag p95 may be, ms (default 500)'),
    missed_heads_max_pct: z.number().optional().describe('freshness_vs_reference: most a candidate may miss of the reference\'s heads, percent (default 1)'),
    stall_max_s: z.number().optional().describe('freshness_vs_reference: longest a candidate may announce no new head, seconds (default 30)'),
    capacity_min_rps: z.number().optional().describe('capacity (a sweep): the knee must be at least this many calls/s (0–10,000; default: the sweep\'s lowest rate)'),
    sweep_send_lag_max_pct: z.number().optional().describe('a sweep step is credited only while the prober\'s send-lag p99 is at most this percent of the step\'s p95 latency (or 5 ms); else prober_behind (0–10,000; default 10)'),
  }),
);

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
    .enum(['http', 'ws'])
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
      via: z.enum(['subscribe', 'poll']).describe('`subscribe`: the family\'s head subscription over each endpoint\'s ws_url (every endpoint needs one); `poll`: the head read over HTTP every poll_interval_ms'),
      poll_interval_ms: int.describe('poll only: the interval (50–60,000, default 250), which is also the resolution of a polled arrival time'),
      grace_ms: int.describe('a reference head that a candidate has not announced this long after the reference is missed (0–600,000, default 2,000)'),
      late_ms: int.describe('an announcement more than this long after the reference\'s is late: counted, not missed (default 1,000)'),
    })
    .describe('A head watch: for every head the reference announces, when each candidate announced it (docs/freshness.md).'),
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
      commitment: z
        .enum(COMMITMENT_LEVELS)
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
