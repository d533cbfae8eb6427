import { z } from 'zod';
import { CHECK_STATUSES, TARGET_ROLES } from '../run-model';
import { PERSISTING_REASONS } from '../statistics/history-baseline';
import { CAPACITY_REASONS, STEP_REASONS, STEP_STATUSES } from '../sweep';
import { component, count, int, uuid } from '../shape-blocks';

/*
 * The verdict's sections as the API returns them and as they are stored (runs.verdict): one
 * declaration each. The domain's types are inferred from these schemas (z.output), and the HTTP
 * layer uses the same schemas for the OpenAPI document and response serialization. Fields added
 * after verdicts were first stored are optional: a stored verdict may lack them.
 */

export const VERDICT_VALUES = ['pass', 'fail', 'error'] as const;
export type VerdictValue = (typeof VERDICT_VALUES)[number];

export const targetRole = z.enum(TARGET_ROLES).describe('`primary`: a candidate endpoint; `reference`: the trusted endpoint it is compared with');
export const checkStatus = z.enum(CHECK_STATUSES).describe('`inconclusive`: the run could not tell (an interval straddles the limit); fails the verdict only with thresholds.fail_on_inconclusive');

export const intervalMs = z.object({ lower: z.number(), upper: z.number().nullable().describe('null: too few samples to bound it') });
export const intervalPct = z.object({ lower: z.number(), upper: z.number().nullable().describe('null: unbounded') });
export const percentileMs = z.object({ point: z.number(), lower: z.number(), upper: z.number().nullable() });
export const percentileIntervalsMs = z
  .strictObject({ p50: percentileMs, p95: percentileMs, p99: percentileMs })
  .describe('95 % order-statistic confidence intervals, ms');

export const Pairing = component(
  'Pairing',
  z.object({
    method: z.enum(['unpaired', 'paired']),
    reason: z.enum(['closed_loop', 'several_candidates', 'not_anchored']).nullable().describe('unpaired: why'),
    pairs: int.nullable().describe('paired: seqs sent to both on the shared schedule anchor'),
    compared: int.nullable().describe('paired: of those, seqs that succeeded on both sides'),
    skew_p50_ms: z.number().nullable(),
    skew_p95_ms: z.number().nullable().describe('paired: |candidate send time − reference send time| of one seq'),
    skew_max_ms: z.number().nullable(),
    correlation: z.number().nullable().describe('paired: correlation of the two sample p95s'),
  }),
);

export const baselineModelUsed = z.enum(['history', 'previous_run', 'run']);
export const freshnessReason = z
  .enum(['nothing_judged', 'missed_above_limit', 'stall_above_limit', 'lag_above_limit', 'lag_straddles_limit', 'within_limits', 'flooding', 'head_out_of_range'])
  .describe('why the candidate\'s freshness is judged as it is');

export const BaselineLimits = component(
  'BaselineLimits',
  z.object({
    max_pct: z.number(),
    floor_ms: z.number(),
    history_median_ms: z.number().optional(),
    history_upper_ms: z.number().optional().describe('history: upper limit of the one-sided t prediction interval at `upper_boundary` (99.5 % by default)'),
    history_lower_ms: z.number().optional(),
    history_log_sd: z.number().optional(),
    history_spread_runs: int.optional().describe('history: passing runs the log-scale sd was estimated from (the window, or the longer lookback of up to 102 runs)'),
    upper_boundary: z.number().optional(),
    persisting: z
      .object({
        status: z.enum(['pass', 'fail']),
        reason: z.enum(PERSISTING_REASONS),
        run_ids: z.array(uuid).describe('this run and the passing runs in the window shown with it (1 to 3), newest first; the regression starts at the last'),
        reference_runs: int.describe('earlier passing runs they were compared with (8 to 100)'),
        t: z.number().nullable().describe('the window\'s Σz/√k (k runs, each z in standard deviations of the earlier runs\' ln p95)'),
        limit: z.number().nullable().describe('the window\'s limit: h for 2 or 3 runs, h − 0.3 for this run alone, in standard deviations (calibrated so that the band and this rule together fail an unchanged endpoint on at most 1 − `level` of runs)'),
        vs_median_pct: z.number().nullable().describe('the window\'s geometric mean p95 over the earlier runs\' median'),
        level: z.number().describe('1 − the per-run false-fail budget the band and this rule share (0.99)'),
      })
      .optional()
      .describe('history: the sequential rule that catches a regression persisting over several runs, or one run slower than the long lookback allows (absent from verdicts judged before it)'),
    history_band_span: z.number().optional().describe('history: the band\'s upper limit over its lower limit (×)'),
    history_runs_needed: int
      .nullable()
      .optional()
      .describe('history, reason `band_too_wide`: about how many passing runs the band needs (at today\'s run-to-run spread) before a regression of `max_pct` could land above it; null when no history of up to 102 runs would do'),
    vs_baseline_interval_pct: intervalPct.optional().describe('previous_run / run: 95 % interval of the difference'),
    run_drift_sd: z.number().optional().describe('previous_run / run: log-scale run-drift allowance added to each side'),
  }),
);

export const capacityReason = z
  .enum(CAPACITY_REASONS)
  .describe('pass: knee ≥ min; fail: a step at or below min broke the budget; otherwise inconclusive, and why');

export const CapacityComparison = component(
  'CapacityComparison',
  z.object({
    status: checkStatus,
    min_rps: z.number().describe('thresholds.capacity_min_rps, or the sweep\'s lowest rate'),
    latency_p95_max_ms: z.number().describe('every step\'s latency budget'),
    success_rate_min_pct: z.number().describe('every step\'s success budget'),
    step_s: int,
    warmup_s: int,
    rates: z.array(z.number()).describe('every planned rate, rising'),
    steps_probed: count.describe('fewer than rates when the sweep stopped early (every candidate broke the budget by a clear margin, or its prober fell behind)'),
    endpoints: z.array(
      z.object({
        endpoint_id: uuid,
        endpoint_name: z.string(),
        role: targetRole,
        status: checkStatus.describe('judged for candidates; the reference\'s is reported the same way, not judged'),
        reason: capacityReason,
        knee_rps: z.number().nullable().describe('the highest offered rate of the unbroken run of within-budget steps from the lowest; null when the first step did not hold'),
        knee_step: int.nullable(),
        steps: z.array(
          z.object({
            step: count,
            offered_rps: z.number(),
            achieved_rps: z.number().nullable().describe('calls per second the prober actually sent (first to last send)'),
            throughput_rps: z.number().nullable().describe('successful calls per second'),
            interruptions: count.describe('pauses of over 1 s between sends: the step was resumed after a lost worker (left out of achieved_rps)'),
            calls: count.describe('measured calls (warm-up excluded)'),
            successful: count,
            success_rate_pct: z.number().nullable(),
            success_rate_interval_pct: z.object({ lower: z.number(), upper: z.number() }).describe('95 % Wilson interval'),
            rate_limited: count.describe('HTTP 429 answers'),
            errors: z.record(z.string(), count).describe('failed calls by class: sample outcomes, with http_429 apart from http_error'),
            latency_ms: percentileIntervalsMs.nullable().describe('successful calls\' p50/p95/p99 with 95 % intervals, from the intended send time (coordinated-omission correct)'),
            send_lag_p50_ms: z.number().nullable(),
            send_lag_p99_ms: z.number().nullable().describe('the prober\'s own lateness behind its schedule'),
            send_lag_max_ms: z.number().nullable(),
            status: z.enum(STEP_STATUSES),
            reason: z.enum(STEP_REASONS),
            clearly_broken: z.boolean().describe('the whole 95 % interval is past the budget'),
            prober_behind: z
              .boolean()
              .describe('the prober\'s send-lag p99 was above 20 ms, or it sent under 90 % of the offered rate; the step\'s status is prober_behind only where that could change its outcome (short of the rate, or over the latency budget)'),
            note: z.string().nullable(),
          }),
        ),
      }),
    ),
  }),
);

export const MethodComparison = component(
  'MethodComparison',
  z.object({
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
  z.object({
    endpoint_id: uuid,
    endpoint_name: z.string(),
    status: checkStatus,
    head_lag_blocks: z.number().nullable().describe('median candidate head − reference head, in blocks (slots on Solana); null when not observed'),
    head_lag_ms: z
      .number()
      .nullable()
      .optional()
      .describe("head_lag_blocks × the reference's measured block/slot interval over the run, ms; null when its head did not move"),
    last_heads: z
      .array(z.object({ endpoint_name: z.string(), role: z.enum(['primary', 'reference']), head: z.number(), block_height: z.number().nullable() }))
      .optional()
      .describe('each target\'s last head read with the block height beside it, when the head is not a height (Solana: the slot); absent otherwise'),
    latency: z.object({
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
    pairing: Pairing.optional().describe('paired or unpaired, and the pairing skew'),
  }),
);

export const BaselineComparison = component(
  'BaselineComparison',
  z.object({
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

export const FreshnessComparison = component(
  'FreshnessComparison',
  z.object({
    status: checkStatus,
    via: z.enum(['subscribe', 'poll']),
    duration_s: int,
    grace_ms: int,
    late_ms: int,
    resolution_ms: int.nullable().describe('poll: the interval, to within which arrival times are known; null for subscribe'),
    reference: z.object({
      endpoint_id: uuid,
      endpoint_name: z.string(),
      heads: count.describe('distinct heads the reference announced: the yardstick'),
      reorgs: count,
      duplicates: count,
      reconnects: count,
      disconnects: count,
      longest_stall_ms: int,
      flooding: z.boolean().optional(),
      not_stored: count.optional(),
      out_of_range: count.optional(),
    }),
    candidates: z.array(
      z.object({
        endpoint_id: uuid,
        endpoint_name: z.string(),
        status: checkStatus,
        reason: freshnessReason,
        judged: count.describe('reference heads whose grace window the observer saw whole'),
        announced: count.describe('distinct heads the candidate announced'),
        missed: count.describe('judged reference heads the candidate did not announce within grace_ms'),
        missed_pct: z.number().nullable(),
        late: count.describe('announced more than late_ms after the reference'),
        duplicates: count,
        reorgs: count.describe('heights announced with more than one hash'),
        reconnects: count,
        disconnects: count,
        dropped: count.describe('heads the observer was too slow to take (the observer\'s, not the endpoint\'s)'),
        flooding: z
          .boolean()
          .optional()
          .describe('announced more distinct heads than the chain\'s fastest block rate × the watch × 2 (+ 1,000) allows: fails, the excess is not stored (absent from verdicts judged before it)'),
        not_stored: count.optional().describe('distinct heads beyond that bound, not stored'),
        out_of_range: count.optional().describe('heads announced with a number above 2^63 − 1: not stored, fails the endpoint'),
        longest_stall_ms: int.describe('longest time without a new head while the observer watched'),
        unjudged: count.describe('reference heads whose grace window fell into an observer gap or past the end'),
        lag_ms: percentileIntervalsMs.nullable().describe('arrival lag behind the reference (negative: ahead); null when no head matched'),
        lags: count.describe('matched heads the lag is over'),
      }),
    ),
    observer_gaps: z
      .array(z.object({ from_ms: int, to_ms: int }))
      .describe('when the observer itself was gone (a worker lost), ms from the watch\'s start: the observer\'s, never missed heads'),
  }),
);
export const ProberSection = component(
  'ProberSection',
  z
    .object({
      activities: count.describe('probe activity attempts that recorded the prober\'s health'),
      loop_delay_p99_ms: z.number().describe('the highest per-activity event-loop delay p99 of the worker process while it probed'),
      loop_delay_max_ms: z.number().describe('the highest event-loop delay seen while probing'),
      send_lag_p99_ms: z.number().nullable().describe('the highest per-activity send-lag p99 of open-loop calls; null in closed loop'),
      cpu_pct: z.number().describe('the highest per-activity CPU use of the worker process, % of one core'),
      overloaded: z
        .boolean()
        .describe('event-loop delay p99 above 50 ms: latency checks that would fail (and latency_vs_reference either way) are inconclusive, and the run joins no baseline history'),
      reason: z.string().nullable().describe('names the prober and its figure when overloaded; null otherwise'),
    })
    .describe('The prober\'s own health while it probed (DESIGN §17): its lateness is in the latencies it measured.'),
);

export type IntervalMs = z.output<typeof intervalMs>;
export type IntervalPct = z.output<typeof intervalPct>;
export type PercentileMs = z.output<typeof percentileMs>;
export type PercentileIntervalsMs = z.output<typeof percentileIntervalsMs>;
export type Pairing = z.output<typeof Pairing>;
export type UnpairedReason = NonNullable<Pairing['reason']>;
export type BaselineModelUsed = z.output<typeof baselineModelUsed>;
export type FreshnessReason = z.output<typeof freshnessReason>;
export type BaselineLimits = z.output<typeof BaselineLimits>;
export type PersistingLimits = NonNullable<BaselineLimits['persisting']>;
export type CapacityComparison = z.output<typeof CapacityComparison>;
export type CapacityEndpoint = CapacityComparison['endpoints'][number];
export type CapacityStep = CapacityEndpoint['steps'][number];
export type MethodComparison = z.output<typeof MethodComparison>;
export type ReferenceComparison = z.output<typeof ReferenceComparison>;
export type LastHeadView = NonNullable<ReferenceComparison['last_heads']>[number];
export type BaselineComparison = z.output<typeof BaselineComparison>;
export type FreshnessComparison = z.output<typeof FreshnessComparison>;
export type EndpointFreshness = FreshnessComparison['candidates'][number];
export type ProberSection = z.output<typeof ProberSection>;
