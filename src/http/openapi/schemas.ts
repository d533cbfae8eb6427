import { z } from 'zod';
import { SCOPES } from '../../auth/scopes';
import { CHAIN_FAMILIES } from '../../domain/catalog-presets';
import { ERROR_STATUS, type ErrorCode } from '../../errors';

/*
 * The RESPONSE bodies of the API as zod schemas, written from what the presenters return
 * (services/*.ts: presentChain, presentEndpoint, presentSuite, presentRun, getVerdict,
 * getRunMetrics, listRunSamples, getMe, presentApiKey, presentChainPreset, presentWorkloadPreset,
 * services/dashboard.ts getDashboardData, errors.ts errorEnvelope). Request schemas are not here:
 * the OpenAPI document reuses the services' own input schemas (routes.ts).
 *
 * Every object is strict (additionalProperties: false) on purpose: the conformance test
 * (test/integration/openapi.test.ts) validates real responses against these, so a field added,
 * removed or renamed in a presenter fails it until this file follows.
 *
 * Each schema registered with `component` becomes components.schemas.<id> in the document and
 * is referenced by $ref wherever it is used.
 */

export const componentRegistry = z.registry<{ id: string }>();

function component<S extends z.ZodType>(id: string, schema: S): S {
  componentRegistry.add(schema, { id });
  return schema;
}

// ---- primitives ---------------------------------------------------------------------------------

const uuid = z.uuid();
/** JSON has no dates: every timestamp is Date#toJSON(), ISO-8601 UTC with milliseconds. */
const timestamp = z.iso.datetime();
const int = z.number().int();
const count = z.number().int().min(0);
const url = z.string().meta({ format: 'uri' });
const freeObject = z.record(z.string(), z.unknown());

export const RUN_STATUSES = ['queued', 'claimed', 'running', 'success', 'failed', 'cancelled'] as const;
export const TARGET_STATUSES = ['pending', 'running', 'success', 'failed', 'cancelled'] as const;
export const TARGET_ROLES = ['primary', 'reference'] as const;
export const SAMPLE_OUTCOMES = ['ok', 'http_error', 'rpc_error', 'timeout', 'connection_error', 'invalid_response'] as const;

const role = z.enum(TARGET_ROLES).describe('`primary`: a candidate endpoint; `reference`: the trusted endpoint it is compared with');
const checkStatus = z.enum(['pass', 'fail', 'inconclusive']).describe('`inconclusive`: the run could not tell (an interval straddles the limit); fails the verdict only with thresholds.fail_on_inconclusive');

// ---- pagination and errors ---------------------------------------------------------------------

export const Pagination = component(
  'Pagination',
  z.strictObject({
    total: count.describe('number of matching items, all pages together'),
    limit: int.min(1).max(200),
    offset: count,
    has_more: z.boolean().describe('offset + data.length < total'),
  }),
);

/** The list envelope of every list endpoint, around the schema of one item. */
export function pageOf<S extends z.ZodType>(id: string, item: S) {
  return component(id, z.strictObject({ data: z.array(item), pagination: Pagination }));
}

export const ERROR_CODES = Object.keys(ERROR_STATUS) as ErrorCode[];

export const ErrorDetail = component(
  'ErrorDetail',
  z.strictObject({
    field: z.string().describe('dotted path of the offending field, a path parameter name, or a header name'),
    message: z.string(),
  }),
);

export const ErrorEnvelope = component(
  'ErrorEnvelope',
  z
    .strictObject({
      error: z.strictObject({
        code: z.enum(ERROR_CODES as [ErrorCode, ...ErrorCode[]]),
        message: z.string().describe('human-readable; never carries internal details'),
        details: z.array(ErrorDetail).describe('always present; empty when there is nothing to list'),
        request_id: z.string().describe('same value as the X-Request-Id response header'),
      }),
    })
    .describe('The body of every non-2xx response.'),
);

// ---- chains, endpoints ---------------------------------------------------------------------------

export const Chain = component(
  'Chain',
  z.strictObject({
    id: uuid,
    name: z.string(),
    slug: z.string(),
    family: z.enum(CHAIN_FAMILIES),
    chain_id: int.nullable().describe('the chain\'s numeric id (EIP-155 for EVM chains); null when it has none'),
    explorer_url: url.nullable(),
    created_at: timestamp,
    updated_at: timestamp,
  }),
);

export const Endpoint = component(
  'Endpoint',
  z.strictObject({
    id: uuid,
    chain_id: uuid,
    name: z.string(),
    url: z.string().describe('redacted: user info, query values and key-like path segments are shown as ****'),
    protocol: z.literal('json-rpc-http'),
    header_names: z.array(z.string()).describe('names of the configured headers; their values are never returned'),
    timeout_ms: int,
    created_at: timestamp,
    updated_at: timestamp,
  }),
);

// ---- suites --------------------------------------------------------------------------------------

export const Thresholds = component(
  'Thresholds',
  z.strictObject({
    latency_p95_max_ms: z.number(),
    latency_regression_max_pct: z.number(),
    latency_regression_min_ms: z.number().optional().describe('the latency checks\' floor: a slower p95 fails only when more than this many ms slower (default 5, 0–10,000)'),
    latency_vs_reference_max_pct: z.number(),
    correctness_min_pct: z.number(),
    correctness_enabled: z.boolean(),
    fail_on_inconclusive: z.boolean().optional().describe('an inconclusive check fails the verdict too (default false)'),
    success_rate_min_pct: z.number().optional().describe('the availability check\'s minimum success rate (default 99)'),
  }),
);

const workloadMethod = z.strictObject({
  method: z.string(),
  params: z.array(z.unknown()).describe('JSON-RPC params; the string {{pinned_block}} is replaced by the run\'s pinned block'),
  weight: z.number(),
});

const workloadFields = {
  methods: z.array(workloadMethod),
  requests_per_target: int.nullable().describe('null when the campaign is bound by duration_s'),
  duration_s: int.nullable(),
  concurrency: int,
  rate_per_second: z.number().nullable().describe('open loop when set'),
  warmup_requests: int,
  timeout_ms: int,
  block_lag: int,
};

export const Workload = component('Workload', z.strictObject(workloadFields));

export const SuiteConfig = component(
  'SuiteConfig',
  z
    .strictObject({
      targets: z.array(z.strictObject({ endpoint_id: uuid, role: z.literal('primary') })),
      reference_endpoint_id: uuid.nullable(),
      baseline: z.strictObject({
        mode: z.enum(['none', 'history', 'previous_success', 'run']),
        run_id: uuid.nullable(),
        window: int.optional().describe('history: earlier passing runs in the band (1–50, default 10); absent from suites stored before it existed'),
        min_runs: int.optional().describe('history: below this many passing runs, compare with the previous passing run (default 5)'),
      }),
      workload: Workload,
      thresholds: Thresholds,
      retry: z.strictObject({
        max_attempts: int,
        initial_interval_ms: int,
        backoff_coefficient: z.number(),
        max_interval_ms: int,
      }),
    })
    .describe('A suite configuration as stored: every default applied, a workload preset resolved into its methods.'),
);

export const Suite = component(
  'Suite',
  z.strictObject({
    id: uuid,
    chain_id: uuid,
    name: z.string(),
    description: z.string(),
    config: SuiteConfig,
    created_at: timestamp,
    updated_at: timestamp,
  }),
);

// ---- runs ----------------------------------------------------------------------------------------

export const LatencySummary = component(
  'LatencySummary',
  z.strictObject({
    avg_ms: int,
    p50_ms: int,
    p95_ms: int,
    p99_ms: int,
    sample_count: count,
  }),
);

const calls = z.strictObject({ total: count, successful: count, failed: count });
const latency = z.strictObject({ successful: LatencySummary, all: LatencySummary });

export const RunStats = component(
  'RunStats',
  z
    .strictObject({
      calls,
      tests: z.strictObject({ successful: count, failed: count }).describe('primary targets that finished probing / did not'),
      latency,
    })
    .describe(
      'Stats of the primary targets together. calls.total = calls.successful + calls.failed; ' +
        'latency.successful covers successful calls (sample_count = calls.successful), latency.all every call (sample_count = calls.total).',
    ),
);

export const RunTarget = component(
  'RunTarget',
  z.strictObject({
    id: uuid,
    endpoint_id: uuid,
    endpoint_name: z.string(),
    role,
    order_index: count,
    status: z.enum(TARGET_STATUSES),
    metadata: z.strictObject({ stats: RunStats.optional().describe('this target\'s own stats, once it finished (tests: the target itself)') }),
  }),
);

export const RetryAttempt = component(
  'RetryAttempt',
  z.strictObject({
    target_id: uuid.nullable(),
    endpoint_id: uuid.nullable(),
    activity: z.string(),
    chunk: int.min(0).nullable().describe('first seq of the probe chunk the attempt belonged to; null for activities that are no chunk'),
    attempt: int.min(1).describe('Temporal attempt number, counted per chunk (per activity execution)'),
    error_type: z.string().describe('"infrastructure" (our database unreachable), "attempt_lost" (worker stopped, timeout), or the failure type'),
    message: z.string(),
    failed_at: timestamp,
    next_attempt_at: timestamp.nullable(),
  }),
);

export const Run = component(
  'Run',
  z.strictObject({
    id: uuid,
    test_suite_id: uuid,
    triggered_by: z.enum(['api', 'schedule']),
    status: z.enum(RUN_STATUSES),
    requested_at: timestamp,
    claimed_at: timestamp.nullable().describe('null until the workflow claimed the run'),
    started_at: timestamp.nullable().describe('null until the first probe started'),
    finished_at: timestamp.nullable().describe('null until the run is terminal'),
    retry_count: count.describe('= retry_history.length'),
    failure_reason: z.string().nullable(),
    baseline_run_id: uuid.nullable(),
    acknowledged_count: count,
    metadata: freeObject.describe('the object given when the run was triggered'),
    /** The suite config as it was when the run was requested, threshold overrides applied. */
    config_snapshot: SuiteConfig,
    stats: RunStats,
    progress: z.strictObject({
      calls_planned: count.nullable().describe('null for a duration-bound closed-loop campaign'),
      calls_done: count,
    }),
    workflow_id: z.string().describe('the Temporal workflow id, run-<id>'),
    targets: z.array(RunTarget),
    retry_history: z.array(RetryAttempt),
    suite: z.strictObject({ id: uuid, name: z.string(), config: SuiteConfig }),
    chain: z.strictObject({ id: uuid, name: z.string(), slug: z.string(), explorer_url: url.nullable() }),
  }),
);

/** A run as GET /v1/runs lists it: the run without the suite config it ran with. */
export const RunSummary = component(
  'RunSummary',
  Run.omit({ config_snapshot: true })
    .extend({ suite: z.strictObject({ id: uuid, name: z.string() }) })
    .describe('A run without config_snapshot and suite.config (GET /v1/runs/{runId} has them): a page stays small whatever the configs.'),
);

// ---- verdict -------------------------------------------------------------------------------------

const checkOf = <N extends string, D extends z.ZodType>(name: N, details: D, appears: string) =>
  z.strictObject({ name: z.literal(name), status: checkStatus, message: z.string(), details }).describe(appears);

export const CorrectnessMismatch = component(
  'CorrectnessMismatch',
  z.strictObject({ method: z.string(), params: z.unknown(), candidate_hash: z.string(), reference_hash: z.string() }),
);

const intervalMs = z.strictObject({ lower: z.number(), upper: z.number().nullable().describe('null: too few samples to bound it') });
const intervalPct = z.strictObject({ lower: z.number(), upper: z.number().nullable().describe('null: unbounded') });
const percentileMs = z.strictObject({ point: z.number(), lower: z.number(), upper: z.number().nullable() });
const percentileIntervalsMs = z
  .strictObject({ p50: percentileMs, p95: percentileMs, p99: percentileMs })
  .describe('95 % order-statistic confidence intervals, ms');
const latencyReason = z.enum(['no_samples', 'under_floor', 'within_limit', 'above_limit', 'straddles_limit']);
const baselineModelUsed = z.enum(['history', 'previous_run', 'run']);

export const BaselineLimits = component(
  'BaselineLimits',
  z.strictObject({
    max_pct: z.number(),
    floor_ms: z.number(),
    history_median_ms: z.number().optional(),
    history_upper_ms: z.number().optional().describe('history: upper limit of the 99 % one-sided t prediction interval'),
    history_lower_ms: z.number().optional(),
    history_log_sd: z.number().optional(),
    upper_boundary: z.number().optional(),
    vs_baseline_interval_pct: intervalPct.optional().describe('previous_run / run: 95 % interval of the difference'),
    run_drift_sd: z.number().optional().describe('previous_run / run: log-scale run-drift allowance added to each side'),
  }),
);

// Fields added by the verdict statistics are optional: verdicts stored before them lack them.
export const Check = component(
  'Check',
  z.discriminatedUnion('name', [
    checkOf(
      'latency_p95',
      z.strictObject({
        p95: int,
        threshold: z.number(),
        p95_us: int.nullable().optional().describe('the candidate p95 in µs (what the history baseline reads)'),
        intervals_ms: percentileIntervalsMs.optional(),
        targets: z
          .array(z.strictObject({ endpoint_id: uuid, endpoint_name: z.string(), successful: count, intervals_ms: percentileIntervalsMs }))
          .optional()
          .describe('each primary target on its own'),
      }),
      'always',
    ),
    checkOf(
      'latency_vs_reference',
      z.strictObject({
        candidate_p95_ms: int,
        reference_p95_ms: int,
        vs_reference_pct: z.number(),
        max_pct: z.number(),
        method: z.enum(['unpaired', 'paired']).optional(),
        candidate_p95_interval_ms: intervalMs.optional(),
        reference_p95_interval_ms: intervalMs.optional(),
        vs_reference_interval_pct: intervalPct.optional(),
        difference_ms: z.number().nullable().optional(),
        floor_ms: z.number().optional(),
        reason: latencyReason.optional(),
        calls_to_decide: int.nullable().optional().describe('inconclusive: calls a run would likely need to decide'),
      }),
      'when the suite has a reference endpoint',
    ),
    checkOf(
      'correctness',
      z.strictObject({
        compared: count,
        matched: count,
        mismatched: count,
        inconclusive: count,
        skipped: count,
        rechecked: count.optional().describe('head-moved differences re-sent at a fixed block (absent from verdicts judged before the re-check)'),
        recheck_resolved: count.optional(),
        recheck_confirmed: count.optional().describe('re-checks that still differed: counted in mismatched'),
        recheck_failed: count.optional(),
        recheck_limit: count.optional(),
        match_rate_pct: z.number().nullable().describe('null when nothing could be compared'),
        min_pct: z.number(),
        mismatches: z.array(CorrectnessMismatch).max(10).describe('at most 10, spread round-robin over the mismatching methods'),
        mismatches_by_method: z
          .array(z.strictObject({ method: z.string(), mismatched: count, compared: count }))
          .optional()
          .describe('every method with a mismatch, most first; compared = its matched + mismatched pairs (absent from verdicts judged before it)'),
      }),
      'when the suite has a reference and thresholds.correctness_enabled',
    ),
    checkOf(
      'latency_vs_baseline',
      z.strictObject({
        baseline_run_id: uuid,
        candidate_p95_ms: int,
        baseline_p95_ms: int.describe('history: the median of the history\'s p95s, rounded'),
        vs_baseline_pct: z.number(),
        max_pct: z.number(),
        model: baselineModelUsed.optional(),
        run_ids: z.array(uuid).optional(),
        candidate_p95_interval_ms: intervalMs.optional(),
        baseline_p95_interval_ms: intervalMs.optional(),
        vs_baseline_interval_pct: intervalPct.optional(),
        vs_history_median_pct: z.number().nullable().optional(),
        limits: BaselineLimits.optional(),
        difference_ms: z.number().nullable().optional(),
        floor_ms: z.number().optional(),
        reason: z.enum(['no_samples', 'under_floor', 'within_limit', 'above_limit', 'straddles_limit', 'within_band', 'under_pct', 'above_band']).optional(),
        calls_to_decide: int.nullable().optional(),
        history_runs: int.nullable().optional(),
      }),
      'when a baseline model applies (history, previous run or chosen run)',
    ),
    checkOf(
      'availability',
      z.strictObject({
        calls: count,
        successful: count,
        success_rate_pct: z.number().nullable(),
        success_rate_interval_pct: z.strictObject({ lower: z.number(), upper: z.number() }).describe('95 % Wilson interval'),
        min_pct: z.number(),
        answered_bucket_share: z.number().nullable().describe('share of the run\'s 1 s buckets with a successful call'),
        reason: z.enum(['no_calls', 'at_or_above_minimum', 'below_minimum', 'straddles_minimum']),
        calls_to_decide: int.nullable(),
        reference: z
          .strictObject({
            calls: count,
            successful: count,
            success_rate_pct: z.number().nullable(),
            success_rate_interval_pct: z.strictObject({ lower: z.number(), upper: z.number() }),
            answered_bucket_share: z.number().nullable(),
          })
          .nullable()
          .describe('the reference\'s own availability, reported (not judged)'),
      }),
      'always (verdicts judged before it existed lack it)',
    ),
  ]),
);

export const MethodComparison = component(
  'MethodComparison',
  z.strictObject({
    method: z.string(),
    calls: count,
    failed: count,
    candidate_p95_ms: int,
    reference_p95_ms: int,
    vs_reference_pct: z.number().nullable().describe('null when either side has no successful call of the method'),
  }),
);

export const ReferenceComparison = component(
  'ReferenceComparison',
  z.strictObject({
    endpoint_id: uuid,
    endpoint_name: z.string(),
    status: checkStatus,
    head_lag_blocks: z.number().nullable().describe('median candidate head − reference head, in blocks; null when not observed'),
    latency: z.strictObject({
      candidate_p50_ms: int,
      candidate_p95_ms: int,
      candidate_p99_ms: int,
      reference_p95_ms: int,
      vs_reference_pct: z.number().describe('negative: the candidate is faster'),
      by_method: z.array(MethodComparison),
      status: checkStatus,
      message: z.string(),
      method: z.enum(['unpaired', 'paired']).optional(),
      candidate_intervals_ms: percentileIntervalsMs.optional(),
      reference_intervals_ms: percentileIntervalsMs.optional(),
      vs_reference_interval_pct: intervalPct.optional(),
    }),
  }),
);

export const BaselineComparison = component(
  'BaselineComparison',
  z.strictObject({
    run_id: uuid,
    candidate_p95_ms: int,
    baseline_p95_ms: int,
    vs_baseline_pct: z.number(),
    status: checkStatus,
    message: z.string(),
    model: baselineModelUsed.optional().describe('history, previous_run or run'),
    run_ids: z.array(uuid).optional().describe('the runs the baseline used, newest first'),
    limits: BaselineLimits.optional(),
    candidate_p95_interval_ms: intervalMs.optional(),
  }),
);

const verdictFields = {
  verdict: z.enum(['pass', 'fail', 'error']).describe('`error`: the run failed or was cancelled, nothing to judge'),
  summary: z.string(),
  checks: z.array(Check),
  reference_comparison: ReferenceComparison.nullable().describe('null when the suite has no reference endpoint'),
  baseline_comparison: BaselineComparison.nullable().describe('null when no baseline run exists'),
  thresholds: Thresholds,
  markdown_summary: z.string(),
  exit_code: z.literal([0, 1, 2]).describe('0 pass, 1 fail, 2 error'),
};

export const Verdict = component(
  'Verdict',
  z.strictObject({
    ...verdictFields,
    dashboard_url: url.describe('the run in the web dashboard, with a signed, expiring, read-only token'),
  }),
);

// ---- metrics and samples ---------------------------------------------------------------------

const percentiles = { p50_ms: int, p95_ms: int, p99_ms: int };

export const RunMetrics = component(
  'RunMetrics',
  z.strictObject({
    run_id: uuid,
    bucket_seconds: int.min(1),
    targets: z.array(
      z.strictObject({
        target_id: uuid,
        endpoint_id: uuid,
        endpoint_name: z.string(),
        role,
        buckets: z.array(z.strictObject({ t: timestamp.describe('start of the bucket'), calls: count, failed: count, ...percentiles })),
      }),
    ),
    by_method: z.array(z.strictObject({ method: z.string(), target_id: uuid, role, calls: count, failed: count, ...percentiles })),
  }),
);

export const Sample = component(
  'Sample',
  z.strictObject({
    seq: count,
    target_id: uuid,
    role,
    method: z.string(),
    started_at: timestamp,
    latency_us: count,
    ok: z.boolean(),
    outcome: z.enum(SAMPLE_OUTCOMES),
    http_status: int.nullable(),
    rpc_error_code: int.nullable(),
    response_hash: z.string().nullable(),
    matches_reference: z.boolean().nullable(),
    reason: z
      .string()
      .nullable()
      .describe('invalid_response only: why the answer was unusable, a fixed text (e.g. "result nested deeper than 64 levels"), never bytes of the answer'),
  }),
);

// ---- identity --------------------------------------------------------------------------------

const scope = z.enum(SCOPES);

export const User = component(
  'User',
  z.strictObject({
    id: z.string().describe('the API key id, or the JWT subject'),
    kind: z.enum(['api_key', 'user']),
    tenant: z.strictObject({ id: uuid, name: z.string() }),
    scopes: z.array(scope),
    name: z.string(),
    email: z.string().nullable(),
  }),
);

const apiKeyFields = {
  id: uuid,
  name: z.string(),
  prefix: z.string().regex(/^rvs_[A-Za-z0-9]{12}$/).describe('the public start of the key'),
  scopes: z.array(scope),
  created_at: timestamp,
  last_used_at: timestamp.nullable(),
  revoked_at: timestamp.nullable(),
};

export const ApiKey = component('ApiKey', z.strictObject(apiKeyFields));

export const ApiKeyCreated = component(
  'ApiKeyCreated',
  z.strictObject({
    ...apiKeyFields,
    key: z
      .string()
      .optional()
      .describe('the whole key, rvs_<prefix>_<secret>; shown only in this response, never stored, so absent from an Idempotency-Key replay'),
  }),
);

// ---- catalog ---------------------------------------------------------------------------------

export const ChainPreset = component(
  'ChainPreset',
  z.strictObject({
    id: uuid,
    slug: z.string(),
    name: z.string(),
    family: z.enum(CHAIN_FAMILIES),
    chain_id: int.nullable(),
    explorer_url: url.nullable(),
    built_in: z.boolean().describe('built-in entries are read-only'),
    created_at: timestamp,
  }),
);

export const WorkloadPreset = component(
  'WorkloadPreset',
  z.strictObject({
    id: uuid,
    slug: z.string(),
    name: z.string(),
    family: z.enum(CHAIN_FAMILIES),
    description: z.string(),
    workload: z
      .strictObject({
        ...workloadFields,
        methods: z.array(workloadMethod.partial({ params: true, weight: true })),
      })
      .partial()
      .describe('a workload as a suite would give it (defaults not applied)'),
    built_in: z.boolean(),
    created_at: timestamp,
  }),
);

// ---- suite trend ---------------------------------------------------------------------------------

export const SuiteTrendPoint = component(
  'SuiteTrendPoint',
  z
    .strictObject({
      run_id: uuid,
      status: z.enum(['success', 'failed', 'cancelled']),
      requested_at: timestamp,
      finished_at: timestamp,
      verdict: z.enum(['pass', 'fail', 'error']),
      candidate: z.strictObject({
        p50_ms: z.number().nullable(),
        p95_ms: z.number().nullable(),
        p99_ms: z.number().nullable(),
        intervals_ms: percentileIntervalsMs
          .nullable()
          .describe('the latency_p95 check\'s intervals; null for runs judged before intervals existed'),
      }),
      match_rate_pct: z.number().nullable().describe('the correctness check\'s match rate; null when not judged or nothing compared'),
      baseline: z
        .strictObject({ model: baselineModelUsed.nullable(), limits: BaselineLimits.nullable() })
        .nullable()
        .describe('the baseline comparison\'s model and limits in force; null when the run had no baseline'),
    })
    .describe('One finished run of a suite: its verdict and what it was judged on.'),
);

export const SuiteTrendPage = pageOf('SuiteTrendPage', SuiteTrendPoint);

// ---- dashboard -------------------------------------------------------------------------------

export const DashboardData = component(
  'DashboardData',
  z.strictObject({
    run: Run,
    verdict: z.strictObject(verdictFields).nullable().describe('the Verdict without dashboard_url; null until the run is finished'),
    metrics: RunMetrics,
    histogram: z
      .strictObject({
        from_ms: z.number(),
        bucket_ms: z.number(),
        buckets: int.min(1),
        targets: z.array(
          z.strictObject({
            target_id: uuid,
            endpoint_name: z.string(),
            role,
            counts: z.array(count),
            overflow: count,
            total: count,
          }),
        ),
      })
      .nullable()
      .describe('latency distribution of successful calls; null before the first one'),
    temporal_ui_url: url.nullable(),
    generated_at: timestamp,
  }),
);

export const DashboardSuiteTrend = component(
  'DashboardSuiteTrend',
  z.strictObject({
    run_id: uuid.describe('the run whose link was used'),
    suite: z.strictObject({ id: uuid, name: z.string() }),
    trend: SuiteTrendPage,
    generated_at: timestamp,
  }),
);

// ---- pages -----------------------------------------------------------------------------------

export const ChainPage = pageOf('ChainPage', Chain);
export const EndpointPage = pageOf('EndpointPage', Endpoint);
export const SuitePage = pageOf('SuitePage', Suite);
export const RunPage = pageOf('RunPage', RunSummary);
export const SamplePage = pageOf('SamplePage', Sample);
export const ApiKeyPage = pageOf('ApiKeyPage', ApiKey);
export const ChainPresetPage = pageOf('ChainPresetPage', ChainPreset);
export const WorkloadPresetPage = pageOf('WorkloadPresetPage', WorkloadPreset);

/** GET /v1/openapi.json: only the top is described; the document is its own schema. */
export const OpenApiDocument = component(
  'OpenApiDocument',
  z.looseObject({ openapi: z.string().regex(/^3\.1\.\d+$/), info: freeObject, paths: freeObject }),
);
