import { z } from 'zod';
import { batchLimitSchema as BatchLimit } from '../../../domain/batch-limit';
import { RUN_RETURNED_COLUMNS } from '../../../domain/run-columns';
import { RUN_STATUSES, RUN_TRIGGERS, TARGET_STATUSES } from '../../../domain/run-model';
import { SAMPLE_OUTCOMES } from '../../../domain/sample-outcome';
import { latencySummarySchema, runStatsSchema } from '../../../domain/run-stats';
import { component, count, freeObject, int, pageOf, timestamp, url, uuid, uuidParam } from '../shared/schemas';
import { SuiteConfig, Thresholds } from '../suites/schemas';
import {
  BaselineComparison,
  BaselineLimits,
  baselineModelUsed,
  CapacityComparison,
  capacityReason,
  checkStatus,
  FreshnessComparison,
  freshnessReason,
  intervalMs,
  intervalPct,
  Pairing,
  percentileIntervalsMs,
  percentileMs,
  ProberSection,
  ReferenceComparison,
  targetRole as role,
  VERDICT_VALUES,
} from '../../../domain/verdict/shapes';

// The verdict's sections (comparisons, limits, intervals) and the batch limit are the domain's
// schemas (src/domain/verdict/shapes.ts, src/domain/batch-limit.ts): declared once, the domain's
// types inferred from them.
export { role };

export const runParams = uuidParam('runId');

// ---- runs ----------------------------------------------------------------------------------------

// The stats' fields are the domain's (runStatsSchema: what is stored), so the two cannot drift; the
// components add the documentation and the $refs, and keep the nested objects non-strict (z.object)
// as the document has always described them.
export const LatencySummary = component('LatencySummary', z.object(latencySummarySchema.shape));

const stats = runStatsSchema.shape;

export const RunStats = component(
  'RunStats',
  z
    .strictObject({
      calls: z.object(stats.calls.shape),
      tests: z.object(stats.tests.shape).describe('primary targets that finished probing / did not'),
      latency: z.object({ successful: LatencySummary, all: LatencySummary }),
    })
    .describe(
      'Stats of the primary targets together. calls.total = calls.successful + calls.failed; ' +
        'calls.behind (absent when none) counts the failed calls whose node had not reached the asked state yet (sample outcome "behind"); ' +
        'latency.successful covers successful calls (sample_count = calls.successful), latency.all every call (sample_count = calls.total).',
    ),
);

export const RunTarget = component(
  'RunTarget',
  z.object({
    id: uuid,
    endpoint_id: uuid,
    endpoint_name: z.string(),
    role,
    order_index: count,
    status: z.enum(TARGET_STATUSES),
    metadata: z.object({
      stats: RunStats.optional().describe('this target\'s own stats, once it finished (tests: the target itself)'),
      batch_limit: BatchLimit.optional().describe('the endpoint\'s batch limit, when the run\'s batches were refused for their size; absent otherwise'),
    }),
    endpoint_url: z.string().describe('the endpoint\'s URL, redacted: scheme, host and port; userinfo, path segments and query values are ****'),
    ephemeral: z.boolean().describe('the endpoint was given in the trigger for this run only (owned by the run; not in GET /v1/endpoints)'),
  }),
);

export const RetryAttempt = component(
  'RetryAttempt',
  z.object({
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
  z.object({
    id: uuid,
    test_suite_id: uuid,
    triggered_by: z.enum(RUN_TRIGGERS),
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
    progress: z.object({
      calls_planned: count.nullable().describe('null for a duration-bound closed-loop campaign'),
      calls_done: count,
    }),
    workflow_id: z.string().describe('the Temporal workflow id, run-<id>'),
    targets: z.array(RunTarget),
    retry_history: z.array(RetryAttempt),
    branch: z.string().nullable().describe('the branch the trigger named; null: none, counted as the baseline branch'),
    commit: z.string().nullable().describe('the commit the trigger named, lower-case hex'),
    baseline_branch: z.string().describe('the suite\'s baseline branch when the run was requested: history and previous_success read only its runs'),
    suite: z.object({ id: uuid, name: z.string(), config: SuiteConfig }),
    chain: z.object({ id: uuid, name: z.string(), slug: z.string(), explorer_url: url.nullable() }),
    dashboard_url: url.describe(
      'a read-only link to the run\'s dashboard page, live while the run goes on; its token is signed afresh on every read and expires after 7 days',
    ),
    // Returned as stored: declared once with the row (src/domain/run-columns.ts).
    ...RUN_RETURNED_COLUMNS,
  }),
);

/** A run as GET /v1/runs lists it: the run without the suite config it ran with. */
export const RunSummary = component(
  'RunSummary',
  Run.omit({ config_snapshot: true, dashboard_url: true })
    .extend({ suite: z.object({ id: uuid, name: z.string() }) })
    .describe('A run without config_snapshot, suite.config and dashboard_url (GET /v1/runs/{runId} has them): a page stays small whatever the configs.'),
);


export const RunPage = pageOf('RunPage', RunSummary);

// ---- verdict -------------------------------------------------------------------------------------

const checkOf = <N extends string, D extends z.ZodType>(name: N, details: D, appears: string) =>
  z.object({ name: z.literal(name), status: checkStatus, message: z.string(), details }).describe(appears);

export const CorrectnessMismatch = component(
  'CorrectnessMismatch',
  z.object({
    method: z.string(),
    params: z.unknown(),
    candidate_hash: z.string(),
    reference_hash: z.string(),
    // Optional: absent from verdicts stored before examples were deduplicated and explained.
    occurrences: count.optional().describe('mismatches of the method with these same two answers; this one is the first by seq'),
    differences: z
      .array(
        z.object({
          path: z.string().describe('where the normalised answers part: `$` is the result, `.key`, `[index]`'),
          candidate: z.string().describe('the value as canonical JSON, at most 64 characters, URLs reduced to scheme and host; `(absent)` when missing'),
          reference: z.string(),
        }),
      )
      .max(3)
      .optional()
      .describe('at most 3 paths; empty unless differences_status is `shown`'),
    more_differences: z.boolean().optional().describe('more paths differ than are listed'),
    differences_status: z
      .enum(['shown', 'changed', 'unavailable'])
      .optional()
      .describe(
        'samples keep fingerprints, not answers, so finalize asks both sides the call once more: `shown` when both answered with the ' +
          'fingerprints on record, `changed` when an answer was no longer the recorded one, `unavailable` when a side failed or time ran out; ' +
          'scalar answers (a string, number, boolean or null result) keep their values with their samples and are always `shown` at `$`',
      ),
  }),
);

const latencyReason = z.enum(['no_samples', 'under_floor', 'within_limit', 'above_limit', 'straddles_limit']);

// Fields added by the verdict statistics are optional: verdicts stored before them lack them.

export const Check = component(
  'Check',
  z.discriminatedUnion('name', [
    checkOf(
      'latency_p95',
      z.object({
        p95: int,
        threshold: z.number(),
        p95_us: int.nullable().optional().describe('the candidate p95 in µs (what the history baseline reads)'),
        intervals_ms: percentileIntervalsMs.optional(),
        targets: z
          .array(z.object({ endpoint_id: uuid, endpoint_name: z.string(), successful: count, intervals_ms: percentileIntervalsMs }))
          .optional()
          .describe('each primary target on its own'),
      }),
      'always',
    ),
    checkOf(
      'latency_vs_reference',
      z.object({
        candidate_p95_ms: int,
        reference_p95_ms: int,
        vs_reference_pct: z.number(),
        max_pct: z.number(),
        method: z.enum(['unpaired', 'paired']).optional(),
        pairing: Pairing.optional(),
        candidate_p95_interval_ms: intervalMs.optional(),
        reference_p95_interval_ms: intervalMs.optional(),
        vs_reference_interval_pct: intervalPct.optional(),
        difference_ms: z.number().nullable().optional(),
        floor_ms: z.number().optional(),
        reason: latencyReason.optional(),
        calls_to_decide: int.nullable().optional().describe('inconclusive: calls a run would likely need to decide'),
        fail_bound: z
          .enum(['interval', 'one_sided'])
          .optional()
          .describe('the bound a fail reads: the two-sided interval, or below 72 calls a side the one-sided 95 % small-sample bound'),
        fail_lower_pct: z.number().optional().describe('that lower bound of the difference, percent (−100: none)'),
      }),
      'when the suite has a reference endpoint',
    ),
    checkOf(
      'correctness',
      z.object({
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
        not_comparable: count
          .optional()
          .describe(
            'pairs neither match nor mismatch, not in the rate: answered at different context slots (Solana) that a bounded re-ask never got to one slot, or one side beyond its ledger (history depth); by reason in not_comparable_reasons',
          ),
        not_comparable_reasons: z
          .object({
            context_slot: count.describe('answered at different context slots, never at one'),
            history_depth: count.describe('one side answered a value, the other an error saying the data is beyond its ledger (Solana: -32001, -32007, -32009, -32011; CometBFT: "height H is not available, lowest height is B")'),
          })
          .optional()
          .describe('not_comparable by reason (absent from verdicts judged before it)'),
        context_rechecked: count.optional().describe('pairs at different context slots re-asked at one slot'),
        context_resolved: count.optional().describe('re-asked at one slot and equal: counted in matched'),
        context_confirmed: count.optional().describe('re-asked at one slot and different: counted in mismatched'),
        match_rate_pct: z.number().nullable().describe('null when nothing could be compared'),
        min_pct: z.number(),
        mismatches: z.array(CorrectnessMismatch).max(10).describe('at most 10, spread round-robin over the mismatching methods'),
        mismatches_by_method: z
          .array(z.object({ method: z.string(), mismatched: count, compared: count }))
          .optional()
          .describe('every method with a mismatch, most first; compared = its matched + mismatched pairs (absent from verdicts judged before it)'),
      }),
      'when the suite has a reference and thresholds.correctness_enabled',
    ),
    checkOf(
      'latency_vs_baseline',
      z.object({
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
        reason: z.enum(['no_samples', 'under_floor', 'within_limit', 'above_limit', 'straddles_limit', 'within_band', 'under_pct', 'above_band', 'band_too_wide', 'persisting']).optional(),
        calls_to_decide: int.nullable().optional(),
        fail_bound: z
          .enum(['interval', 'one_sided'])
          .optional()
          .describe('the bound a fail reads: the two-sided interval, or below 72 calls a side the one-sided 95 % small-sample bound'),
        fail_lower_pct: z.number().optional().describe('that lower bound of the difference, percent (−100: none)'),
        history_runs: int.nullable().optional(),
      }),
      'when a baseline model applies (history, previous run or chosen run)',
    ),
    checkOf(
      'availability',
      z.object({
        calls: count,
        successful: count,
        behind: count.optional().describe('of the failed calls, those answered "not there yet" (Solana -32016): absent when none'),
        success_rate_pct: z.number().nullable(),
        success_rate_interval_pct: z.object({ lower: z.number(), upper: z.number() }).describe('95 % Wilson interval'),
        min_pct: z.number(),
        answered_bucket_share: z.number().nullable().describe('share of the run\'s 1 s buckets with a successful call'),
        reason: z.enum(['no_calls', 'at_or_above_minimum', 'below_minimum', 'straddles_minimum']),
        calls_to_decide: int.nullable(),
        reference: z
          .strictObject({
            calls: count,
            successful: count,
            success_rate_pct: z.number().nullable(),
            success_rate_interval_pct: z.object({ lower: z.number(), upper: z.number() }),
            answered_bucket_share: z.number().nullable(),
          })
          .nullable()
          .describe('the reference\'s own availability, reported (not judged)'),
      }),
      'always (verdicts judged before it existed lack it)',
    ),
    checkOf(
      'freshness_vs_reference',
      z.object({
        head_lag_p95_max_ms: z.number(),
        missed_heads_max_pct: z.number(),
        stall_max_s: z.number(),
        candidates: z.array(
          z.object({
            endpoint_id: uuid,
            endpoint_name: z.string(),
            status: checkStatus,
            reason: freshnessReason,
            lag_p95_ms: percentileMs.nullable().describe('null: no head matched'),
            missed_pct: z.number().nullable().describe('null: no reference head judged'),
            longest_stall_s: z.number(),
            flooding: z.boolean().optional().describe('announced more distinct heads than the chain\'s block rate allows over the watch (fails; absent from verdicts judged before it)'),
          }),
        ),
      }),
      'the suite watches heads (config.freshness)',
    ),
    checkOf(
      'capacity',
      z.object({
        min_rps: z.number(),
        knee_rps: z.number().nullable().describe('the lowest knee among the candidates; null when a candidate\'s first step did not hold'),
        candidates: z.array(
          z.object({ endpoint_id: uuid, endpoint_name: z.string(), status: checkStatus, reason: capacityReason, knee_rps: z.number().nullable() }),
        ),
      }),
      'the suite sweeps rates (workload.sweep); such a run judges latency and success per step here instead of in latency_p95 and availability',
    ),
    checkOf(
      'integrity',
      z.object({
        anchor: z
          .object({ source: z.enum(['trusted_block', 'reference', 'self_consistency']), number: z.string().nullable(), hash: z.string().nullable() })
          .describe('what the proofs were linked to: the suite\'s or run\'s trusted block, the reference\'s hash of the pinned block, or the candidates\' own headers (self_consistency; number and hash null)'),
        not_applicable: z.string().nullable().describe('set (and the check inconclusive) when the chain family has no proofs over RPC (Solana, CometBFT): why'),
        candidates: z.array(
          z.object({
            endpoint_id: uuid,
            endpoint_name: z.string(),
            status: checkStatus.describe('fail: an answer proven wrong; pass: at least one proven and none wrong; inconclusive: nothing provable'),
            proven: count,
            wrong: count,
            not_provable: count,
            extra_requests: count.describe('requests the integrity step sent this endpoint beyond the probes (never stored as samples)'),
            wrong_answers: z
              .array(z.object({ method: z.string(), params: z.string(), block: z.string().nullable(), path: z.string(), message: z.string().describe('what the proof showed') }))
              .max(10),
            not_provable_answers: z.array(z.object({ method: z.string(), params: z.string(), reason: z.string() })).max(10),
          }),
        ),
      }),
      'the suite enables it (config.integrity): each answer of a provable method proven against a header the run trusts (docs/integrity.md)',
    ),
  ]),
);

export const RegionVerdict = component(
  'RegionVerdict',
  z
    .object({
      region: z.string(),
      status: z.enum(['pass', 'fail', 'vantage_unavailable']).describe('vantage_unavailable: no worker of the region took its probes in time; not judged, never the endpoint\'s failure'),
      message: z.string(),
      calls: z.object(stats.calls.shape),
      latency: LatencySummary.describe('the candidates\' successful calls from this region'),
      reference_p95_ms: int.nullable(),
      checks: z.array(Check).describe('the run\'s checks on this region\'s samples (baseline, correctness and head watch judge the run as a whole); empty when unavailable'),
      unavailable_endpoints: z.array(z.string()).optional(),
    })
    .describe('One vantage point of the run (suite vantage_points): judged on its own samples.'),
);

export const verdictFields = {
  verdict: z.enum(VERDICT_VALUES).describe('`error`: the run failed or was cancelled, nothing to judge'),
  summary: z.string(),
  checks: z.array(Check),
  reference_comparison: ReferenceComparison.nullable().describe('null when the suite has no reference endpoint'),
  baseline_comparison: BaselineComparison.nullable().describe('null when no baseline run exists'),
  freshness_comparison: FreshnessComparison.optional().describe('each candidate\'s head arrivals against the reference; absent when the suite watches no heads'),
  batch_limits: z
    .array(BatchLimit.extend({ endpoint_id: uuid, endpoint_name: z.string(), role }))
    .optional()
    .describe('the batch limit of each endpoint whose batches (workload.batch_size) were refused as a whole for their size; absent when none was'),
  regions: z.array(RegionVerdict).optional().describe('per vantage point (suite vantage_points); the verdict fails if any region fails; absent for runs without vantage_points'),
  capacity: CapacityComparison.optional().describe('the capacity sweep per endpoint and step, with each knee; absent when the suite sweeps no rates'),
  prober: ProberSection.optional().describe('the prober\'s own health while it probed; absent for runs probed before it was recorded'),
  thresholds: Thresholds,
  markdown_summary: z.string(),
  exit_code: z.literal([0, 1, 2]).describe('0 pass, 1 fail, 2 error'),
};

export const Verdict = component(
  'Verdict',
  z.object({
    ...verdictFields,
    dashboard_url: url.describe('the run in the web dashboard, with a signed, expiring, read-only token'),
    branch: z.string().nullable().describe('the run\'s branch (null: none, counted as the baseline branch)'),
    commit: z.string().nullable().describe('the run\'s commit'),
    baseline_branch: z.string().describe('the branch whose runs the baseline comparison read'),
  }),
);

// ---- metrics and samples ---------------------------------------------------------------------

const percentiles = { p50_ms: int, p95_ms: int, p99_ms: int };

export const RunMetrics = component(
  'RunMetrics',
  z.object({
    run_id: uuid,
    bucket_seconds: int.min(1),
    targets: z.array(
      z.object({
        target_id: uuid,
        endpoint_id: uuid,
        endpoint_name: z.string(),
        role,
        buckets: z.array(z.object({ t: timestamp.describe('start of the bucket'), calls: count, failed: count, ...percentiles })),
      }),
    ),
    by_method: z.array(z.object({ method: z.string(), target_id: uuid, role, calls: count, failed: count, ...percentiles })),
  }),
);

export const Sample = component(
  'Sample',
  z.object({
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
    region: z.string().describe('the vantage point that sent the call (suite vantage_points); "local" for runs without'),
    sweep_step: count.optional().describe('a capacity sweep\'s samples only: the step (0 = the lowest rate)'),
    warmup: z.boolean().optional().describe('a capacity sweep\'s samples only: one of the step\'s warm-up calls, counted nowhere'),
  }),
);

export const SamplePage = pageOf('SamplePage', Sample);

export const HeadArrival = component(
  'HeadArrival',
  z.object({
    target_id: uuid,
    number: count.describe('the head\'s height'),
    hash: z.string().nullable().describe('null when the head read names no hash (EVM polls eth_blockNumber)'),
    arrival_ms: z.number().describe('when the observer received it, ms from the watch\'s start (one monotonic clock within a segment)'),
    via: z.enum(['subscribe', 'poll']),
    segment: count.describe('the observer segment that saw it: a worker lost mid-watch resumes as the next segment'),
  }),
);

export const HeadArrivalPage = pageOf('HeadArrivalPage', HeadArrival);

// ---- suite trend ---------------------------------------------------------------------------------

export const SuiteTrendPoint = component(
  'SuiteTrendPoint',
  z
    .strictObject({
      run_id: uuid,
      status: z.enum(['success', 'failed', 'cancelled']),
      requested_at: timestamp,
      finished_at: timestamp,
      verdict: z.enum(VERDICT_VALUES),
      candidate: z.object({
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
      branch: z.string().nullable().describe('the branch the trigger named; null: none (counted as the baseline branch)'),
      commit: z.string().nullable().describe('the commit the trigger named'),
      on_baseline_branch: z.boolean().describe('the run is on the suite\'s baseline branch (or named none): it may join the baseline; false for other branches, which only compare against it'),
    })
    .describe('One finished run of a suite: its verdict and what it was judged on.'),
);

export const SuiteTrendPage = pageOf('SuiteTrendPage', SuiteTrendPoint);
