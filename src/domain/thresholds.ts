import { z } from 'zod';

/*
 * Every threshold of a suite, declared once: its bounds, its default, whether every stored suite
 * has it, and its documentation. The suite config's input schema, a run's overrides, the stored
 * and returned shape (Thresholds, whose type the verdict's checks read) and the defaults the checks
 * apply are all built from this table, so a new threshold is one entry here.
 *
 * - `default`: filled in when a suite is created or updated without it (so stored once it existed).
 * - `judgedDefault`: no default is stored; the check applies this one when the field is absent
 *   (the head-watch limits: configs without a watch stay as they were).
 * - `always`: every stored suite has it (it existed from the start); the others are optional in
 *   the stored shape, absent from suites stored before them.
 */
interface ThresholdDef {
  schema: z.ZodNumber | z.ZodBoolean;
  default?: number | boolean;
  judgedDefault?: number;
  always?: true;
  doc?: string;
}

const defs = <const D extends Record<string, ThresholdDef>>(d: D) => d;

export const THRESHOLDS = defs({
  latency_p95_max_ms: { schema: z.number().min(0).max(600_000), default: 500, always: true },
  latency_regression_max_pct: { schema: z.number().min(0).max(10_000), default: 20, always: true },
  latency_regression_min_ms: {
    schema: z.number().min(0).max(10_000),
    default: 5,
    doc: 'the latency checks\' floor: a slower p95 fails only when more than this many ms slower (default 5, 0–10,000)',
  },
  latency_vs_reference_max_pct: { schema: z.number().min(-100).max(10_000), default: 25, always: true },
  correctness_min_pct: { schema: z.number().min(0).max(100), default: 99.9, always: true },
  correctness_enabled: { schema: z.boolean(), default: false, always: true },
  fail_on_inconclusive: { schema: z.boolean(), default: false, doc: 'an inconclusive check fails the verdict too (default false)' },
  success_rate_min_pct: { schema: z.number().min(0).max(100), default: 99, doc: 'the availability check\'s minimum success rate (default 99)' },
  head_lag_p95_max_ms: {
    schema: z.number().min(0).max(600_000),
    judgedDefault: 500,
    doc: 'freshness_vs_reference: most a candidate\'s head arrival lag p95 may be, ms (default 500)',
  },
  missed_heads_max_pct: {
    schema: z.number().min(0).max(100),
    judgedDefault: 1,
    doc: 'freshness_vs_reference: most a candidate may miss of the reference\'s heads, percent (default 1)',
  },
  stall_max_s: {
    schema: z.number().min(0).max(86_400),
    judgedDefault: 30,
    doc: 'freshness_vs_reference: longest a candidate may announce no new head, seconds (default 30)',
  },
  // Judged only by a capacity sweep (workload.sweep): absent, the sweep's lowest rate is the minimum.
  capacity_min_rps: {
    schema: z.number().min(0).max(10_000),
    doc: 'capacity (a sweep): the knee must be at least this many calls/s (0–10,000; default: the sweep\'s lowest rate)',
  },
  // Absent: PROBER_LAG_SHARE_MAX (a tenth of the step's p95), src/domain/sweep.ts.
  sweep_send_lag_max_pct: {
    schema: z.number().min(0).max(10_000),
    doc: 'capacity (a sweep): most a step\'s send-lag p99 may be, percent of its p95 latency, before the step is prober_behind (prober_send_lag); default 10 (0–10,000)',
  },
});

type Defs = typeof THRESHOLDS;
type Name = keyof Defs;
const NAMES = Object.keys(THRESHOLDS) as Name[];
const build = <S>(of: (def: ThresholdDef) => z.ZodType): S => z.strictObject(Object.fromEntries(NAMES.map((n) => [n, of(THRESHOLDS[n])]))) as S;

/** A suite's thresholds as given (defaults filled in). */
export const thresholdsSchema = build<
  z.ZodObject<{ [K in Name]: Defs[K] extends { default: number | boolean } ? z.ZodDefault<Defs[K]['schema']> : z.ZodOptional<Defs[K]['schema']> }, z.core.$strict>
>((d) => (d.default === undefined ? d.schema.optional() : (d.schema as z.ZodNumber).default(d.default as number)));

/**
 * A per-run override: only the fields given replace the suite's. (A `.partial()` of the schema
 * above would fill the missing fields with defaults and silently reset the suite's thresholds.)
 */
export const thresholdOverridesSchema = build<z.ZodObject<{ [K in Name]: Defs[K]['schema'] }, z.core.$strict>>((d) => d.schema).partial();

type Stored<S> = S extends z.ZodBoolean ? z.ZodBoolean : z.ZodNumber;

/**
 * The thresholds as stored (suite config, a run's config snapshot) and returned: the bounds were
 * checked on the way in, and fields added later are optional (absent from suites stored before them).
 */
export const storedThresholdsSchema = z.object(
  Object.fromEntries(
    NAMES.map((n) => {
      const d: ThresholdDef = THRESHOLDS[n];
      const base = d.schema instanceof z.ZodBoolean ? z.boolean() : z.number();
      const field = d.always ? base : base.optional();
      return [n, d.doc ? field.describe(d.doc) : field];
    }),
  ) as { [K in Name]: Defs[K] extends { always: true } ? Stored<Defs[K]['schema']> : z.ZodOptional<Stored<Defs[K]['schema']>> },
);

export type Thresholds = z.output<typeof storedThresholdsSchema>;

/** The value a check applies for a threshold absent from a stored suite: its default, or its judged default. */
export const thresholdDefault = <K extends { [N in Name]: Defs[N] extends { default: number } | { judgedDefault: number } ? N : never }[Name]>(
  name: K,
): number => {
  const d: ThresholdDef = THRESHOLDS[name];
  return (d.default ?? d.judgedDefault) as number;
};
