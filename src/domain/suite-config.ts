import { z } from 'zod';
import { thresholdsSchema } from './thresholds';
import { vantagePointsSchema } from './vantage';
import { branchName, DEFAULT_BASELINE_BRANCH } from './branch';
import { exceedsJsonDepth } from './canonical-json';
import { MAX_JSON_DEPTH } from './json-bounds';
import { sweepPlan, sweepRates } from './sweep';
import { addressName, HEAD_WATCH_VIAS, TRANSPORTS, type Transport } from './transport';

/** Limits that protect the service (and the probed endpoints) from oversized workloads. */
export const WORKLOAD_LIMITS = {
  maxRequestsPerTarget: 1_000_000,
  maxConcurrency: 256,
  maxWarmupRequests: 1_000,
  minTimeoutMs: 100,
  maxTimeoutMs: 60_000,
  maxMethods: 50,
  maxTargets: 10,
  maxDurationS: 24 * 60 * 60,
  maxRatePerSecond: 10_000,
  maxBlockLag: 10_000,
  maxBatchSize: 100,
} as const;

/**
 * A suite config as stored (defaults applied, a preset resolved) is at most this big as JSON: every
 * run copies it into its snapshot, so an unbounded config multiplies into every run read (DESIGN §5).
 */
export const MAX_SUITE_CONFIG_BYTES = 64 * 1024;

/**
 * Free-form JSON (workload params, run metadata) nests at most MAX_JSON_DEPTH levels: the probe
 * serialises and canonicalises params, and both walk them.
 */
export const boundedJsonDepth = <S extends z.ZodType>(schema: S) =>
  schema.refine((value) => !exceedsJsonDepth(value, MAX_JSON_DEPTH), `must nest at most ${MAX_JSON_DEPTH} levels`);

const uuid = z.uuid();

/** How the request workload reaches an endpoint: over its address of one transport (the registry's keys). */
export const WORKLOAD_TRANSPORTS = TRANSPORTS;
export type WorkloadTransport = Transport;
/** Why a suite or trigger naming an endpoint the workload's transport cannot reach is refused. */
export const noAddressMessage = (transport: Transport): string =>
  `endpoint has no ${addressName(transport)}, and config.workload.transport is "${transport}"`;
export const NO_WS_URL_MESSAGE = noAddressMessage('ws');

// Thresholds are declared once, in thresholds.ts (bounds, defaults, stored shape).
export { thresholdOverridesSchema, thresholdsSchema } from './thresholds';

// The name pattern and the default methods here are the outer bound every family fits (every
// family's method names are [A-Za-z0-9_]); a suite's chain family adds its own
// rule and default (ChainAdapter.methodName, .defaultMethods) in services/suites.ts.
const methodSchema = z.strictObject({
  method: z.string().min(1).max(100).regex(/^[A-Za-z0-9_]+$/, 'must be a JSON-RPC method name'),
  params: boundedJsonDepth(z.array(z.unknown()).max(20)).default([]),
  weight: z.number().positive().max(1_000).default(1),
});

/** Bounds of a capacity sweep (DESIGN §14): its steps and calls per target. */
export const SWEEP_LIMITS = {
  maxSteps: 20,
  maxStepS: 600,
  maxWarmupS: 120,
  maxCallsPerTarget: WORKLOAD_LIMITS.maxRequestsPerTarget,
} as const;

const sweepRate = z.number().min(0.1).max(WORKLOAD_LIMITS.maxRatePerSecond);

/**
 * A capacity sweep: open-loop steps at rising rates, each `warmup_s` (not counted) then `step_s`
 * (measured) long. The rates are listed, or start·factor^k up to max.
 */
export const sweepSchema = z
  .strictObject({
    rates: z.array(sweepRate).min(1).max(SWEEP_LIMITS.maxSteps).optional(),
    start: sweepRate.optional(),
    factor: z.number().min(1.1).max(10).optional(),
    max: sweepRate.optional(),
    step_s: z.number().int().min(1).max(SWEEP_LIMITS.maxStepS).default(30),
    warmup_s: z.number().int().min(0).max(SWEEP_LIMITS.maxWarmupS).default(5),
  })
  .superRefine((s, ctx) => {
    const geometric = s.start !== undefined || s.factor !== undefined || s.max !== undefined;
    if (s.rates && geometric) ctx.addIssue({ code: 'custom', path: ['rates'], message: 'give rates, or start, factor and max, not both' });
    if (!s.rates && !geometric) ctx.addIssue({ code: 'custom', path: ['rates'], message: 'give rates, or start, factor and max' });
    if (s.rates && s.rates.some((r, i) => i > 0 && r <= s.rates![i - 1]!)) {
      ctx.addIssue({ code: 'custom', path: ['rates'], message: 'must rise strictly' });
    }
    if (!s.rates && geometric) {
      for (const key of ['start', 'factor', 'max'] as const) {
        if (s[key] === undefined) ctx.addIssue({ code: 'custom', path: [key], message: 'required with start, factor and max' });
      }
      if (s.start !== undefined && s.max !== undefined && s.max < s.start) ctx.addIssue({ code: 'custom', path: ['max'], message: 'must be at least start' });
      if (s.start !== undefined && s.max !== undefined && s.factor !== undefined) {
        const steps = Math.floor(Math.log(s.max / s.start) / Math.log(s.factor) + 1e-9) + 1;
        if (steps > SWEEP_LIMITS.maxSteps) ctx.addIssue({ code: 'custom', path: ['max'], message: `gives ${steps} steps; at most ${SWEEP_LIMITS.maxSteps}` });
      }
    }
    const rates = sweepRates(s);
    if (rates.length > 0 && rates.length <= SWEEP_LIMITS.maxSteps) {
      const calls = sweepPlan({ rates, step_s: s.step_s, warmup_s: s.warmup_s }).callsPerTarget;
      if (calls > SWEEP_LIMITS.maxCallsPerTarget) {
        ctx.addIssue({ code: 'custom', path: ['step_s'], message: `plans ${calls} calls per target; at most ${SWEEP_LIMITS.maxCallsPerTarget}` });
      }
    }
  });

export type SweepConfig = z.infer<typeof sweepSchema>;

export const workloadSchema = z
  .strictObject({
  methods: z
    .array(methodSchema)
    .min(1)
    .max(WORKLOAD_LIMITS.maxMethods)
    .default([{ method: 'eth_blockNumber', params: [], weight: 1 }]),
  /** Null when the campaign is bound by duration_s instead. */
  requests_per_target: z.number().int().min(1).max(WORKLOAD_LIMITS.maxRequestsPerTarget).nullable().default(null),
  duration_s: z.number().int().min(1).max(WORKLOAD_LIMITS.maxDurationS).nullable().default(null),
  concurrency: z.number().int().min(1).max(WORKLOAD_LIMITS.maxConcurrency).default(4),
  /** Open loop when set: requests start on a fixed schedule whatever the endpoint does. */
  rate_per_second: z.number().min(0.1).max(WORKLOAD_LIMITS.maxRatePerSecond).nullable().default(null),
  warmup_requests: z.number().int().min(0).max(WORKLOAD_LIMITS.maxWarmupRequests).default(5),
  timeout_ms: z.number().int().min(WORKLOAD_LIMITS.minTimeoutMs).max(WORKLOAD_LIMITS.maxTimeoutMs).default(10_000),
  /** Parameters are pinned to head − block_lag, so nodes that lag a little can still serve them. */
  block_lag: z.number().int().min(0).max(WORKLOAD_LIMITS.maxBlockLag).default(5),
  /** Every endpoint of the suite (reference included) needs an address of this transport. */
  transport: z.enum(WORKLOAD_TRANSPORTS).default('http'),
  /** Calls per JSON-RPC batch (1: none); HTTP and JSON-RPC 2.0 families only. */
  batch_size: z.number().int().min(1).max(WORKLOAD_LIMITS.maxBatchSize).default(1),
  /** A capacity sweep instead of one rate (absent: none, and configs stored before it stay as they were). */
  sweep: sweepSchema.optional(),
  })
  .transform((w, ctx) => {
    if (w.sweep && (w.rate_per_second !== null || w.duration_s !== null || w.requests_per_target !== null)) {
      ctx.addIssue({ code: 'custom', path: ['sweep'], message: 'a sweep sets its own rates and lengths: leave rate_per_second, duration_s and requests_per_target unset' });
    }
    if (w.requests_per_target !== null && w.duration_s !== null) {
      ctx.addIssue({ code: 'custom', path: ['duration_s'], message: 'give requests_per_target or duration_s, not both' });
    }
    if (w.batch_size > 1 && w.transport !== 'http') {
      ctx.addIssue({ code: 'custom', path: ['batch_size'], message: 'batches go over HTTP only: batch_size must be 1 when transport is "ws"' });
    }
    // A sweep's calls follow from its rates and lengths (sweepPlan), so it keeps both unset.
    if (w.requests_per_target === null && w.duration_s === null && !w.sweep) return { ...w, requests_per_target: 100 };
    return w;
  });

/** Bounds of a head watch: it holds one socket (or one poll loop) per endpoint for its whole duration. */
export const FRESHNESS_LIMITS = {
  maxDurationS: 3_600,
  minPollIntervalMs: 50,
  maxPollIntervalMs: 60_000,
  maxGraceMs: 600_000,
} as const;

/**
 * A head watch beside (or instead of) the request workload: every target and the reference are
 * watched at once for duration_s, each reference head matched with each candidate's announcement.
 */
export const freshnessSchema = z.strictObject({
  duration_s: z.number().int().min(1).max(FRESHNESS_LIMITS.maxDurationS),
  via: z.enum(HEAD_WATCH_VIAS).default('subscribe'),
  /** poll only: how often each endpoint's head is read (the measurement's resolution). */
  poll_interval_ms: z.number().int().min(FRESHNESS_LIMITS.minPollIntervalMs).max(FRESHNESS_LIMITS.maxPollIntervalMs).default(250),
  /** A reference head no candidate announcement matched within this long is missed. */
  grace_ms: z.number().int().min(0).max(FRESHNESS_LIMITS.maxGraceMs).default(2_000),
  /** An announcement more than this long after the reference's is late (counted, not a miss). */
  late_ms: z.number().int().min(0).max(FRESHNESS_LIMITS.maxGraceMs).default(1_000),
});

export type FreshnessConfig = z.infer<typeof freshnessSchema>;

/** Bounds of the integrity step (DESIGN.md §15): requests it may add per run, blocks a header may be from the anchor. */
export const INTEGRITY_LIMITS = { maxRequests: 5_000, maxAnchorDistance: 10_000 } as const;

/**
 * The integrity check (DESIGN.md §15, docs/integrity.md): each answer of a provable method is
 * proven against a header the run trusts — `trusted_block` when given, else the reference's hash
 * of the pinned block, else the candidate's own headers (self-consistency).
 */
export const integritySchema = z.strictObject({
  enabled: z.boolean().default(true),
  trusted_block: z
    .strictObject({
      number: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
      hash: z.string().regex(/^0x[0-9a-fA-F]{64}$/, 'must be a 32-byte 0x-prefixed hash'),
    })
    .nullable()
    .default(null),
  /** Requests the step may send each candidate beyond the probes (the calls re-asked and their proofs). */
  max_requests: z.number().int().min(1).max(INTEGRITY_LIMITS.maxRequests).default(200),
  /** A header farther than this from the anchor is not linked to it: its answers are not provable. */
  max_anchor_distance: z.number().int().min(0).max(INTEGRITY_LIMITS.maxAnchorDistance).default(256),
});

export type IntegrityConfig = z.infer<typeof integritySchema>;

/**
 * The names `config.commitment` accepts (its public enum): every read level some chain family
 * declares (ChainAdapter.readLevels; a registry test checks this is their union). What a level
 * means, its default and which a suite may name are its family's: the schema only bounds the names.
 */
export const READ_LEVEL_NAMES = ['processed', 'confirmed', 'finalized'] as const;

export const retrySchema = z.strictObject({
  max_attempts: z.number().int().min(1).max(20).default(3),
  initial_interval_ms: z.number().int().min(100).max(600_000).default(1_000),
  backoff_coefficient: z.number().min(1).max(10).default(2),
  max_interval_ms: z.number().int().min(100).max(3_600_000).default(30_000),
});

export const suiteConfigSchema = z
  .strictObject({
    targets: z
      .array(z.strictObject({ endpoint_id: uuid, role: z.literal('primary').default('primary') }))
      .min(1)
      .max(WORKLOAD_LIMITS.maxTargets),
    reference_endpoint_id: uuid.nullable().default(null),
    baseline: z
      .strictObject({
        // Suites stored before `history` existed keep the mode they were stored with.
        mode: z.enum(['none', 'history', 'previous_success', 'run']).default('history'),
        run_id: uuid.nullable().default(null),
        /** history: how many earlier passing runs form the band. */
        window: z.number().int().min(1).max(50).default(10),
        /** history: fewer passing runs than this fall back to the previous run's samples. */
        min_runs: z.number().int().min(2).max(50).default(5),
        /**
         * history / previous_success read only runs of this branch (and runs naming none); runs
         * of other branches compare against it and never join it.
         */
        branch: branchName.default(DEFAULT_BASELINE_BRANCH),
      })
      .refine((b) => b.min_runs <= b.window, { path: ['min_runs'], message: 'must be at most window' })
      .prefault({}),
    workload: workloadSchema.prefault({}),
    thresholds: thresholdsSchema.prefault({}),
    retry: retrySchema.prefault({}),
    // Absent: no head watch (and configs stored before it stay byte for byte as they were).
    freshness: freshnessSchema.optional(),
    // Absent: no integrity step (and configs stored before it stay byte for byte as they were).
    integrity: integritySchema.optional(),
    // Absent: the family's default level (and configs stored before it stay as they were).
    commitment: z.enum(READ_LEVEL_NAMES).optional(),
    // Regions whose workers probe every target (DESIGN.md §14). Absent: probed from wherever a
    // worker of the main queue runs, recorded as region 'local' (configs stored before it stay as they were).
    vantage_points: vantagePointsSchema.optional(),
    // How long a region's probe task waits for a worker of the region before the region is
    // vantage_unavailable (Temporal's schedule-to-start timeout). Absent: DEFAULT_VANTAGE_START_TIMEOUT_S.
    vantage_start_timeout_s: z.number().int().min(1).max(3_600).optional(),
  })
  .superRefine((config, ctx) => {
    const ids = config.targets.map((t) => t.endpoint_id);
    if (new Set(ids).size !== ids.length) {
      ctx.addIssue({ code: 'custom', path: ['targets'], message: 'an endpoint may appear only once' });
    }
    if (config.reference_endpoint_id && ids.includes(config.reference_endpoint_id)) {
      ctx.addIssue({
        code: 'custom',
        path: ['reference_endpoint_id'],
        message: 'the reference must not also be a target',
      });
    }
    if (config.freshness && !config.reference_endpoint_id) {
      ctx.addIssue({ code: 'custom', path: ['freshness'], message: 'a head watch measures against the reference: set reference_endpoint_id' });
    }
    if (config.vantage_points && config.workload.sweep) {
      // A sweep's steps run from the main queue (workflows/sweep.ts); refused rather than run from one place silently.
      ctx.addIssue({ code: 'custom', path: ['vantage_points'], message: 'a capacity sweep (workload.sweep) runs from one place: leave vantage_points unset' });
    }
    if (config.baseline.mode === 'run' && !config.baseline.run_id) {
      ctx.addIssue({ code: 'custom', path: ['baseline', 'run_id'], message: 'required when mode is "run"' });
    }
    if (Buffer.byteLength(JSON.stringify(config)) > MAX_SUITE_CONFIG_BYTES) {
      ctx.addIssue({ code: 'custom', path: [], message: `must be at most ${MAX_SUITE_CONFIG_BYTES / 1024} KiB as JSON (workload params included)` });
    }
  });

export type SuiteConfig = z.infer<typeof suiteConfigSchema>;
export type Workload = SuiteConfig['workload'];
export type RetryPolicy = SuiteConfig['retry'];
