import { z } from 'zod';
import type { RunStats } from '../domain/run-stats';
import { RUN_RETURNED_COLUMNS } from '../domain/run-columns';
import { RUN_STATUSES } from '../domain/run-model';
import type { SuiteConfig } from '../domain/suite-config';
import type { ComputedVerdict } from '../domain/verdict';
import type { PinnedContext } from '../domain/workload';

/*
 * A row of `runs`, declared once. The row type is inferred from this schema; the insert, the
 * list's column list and the rows read back derive from it, and test/integration/run-row.test.ts
 * fails when the migrated table and this schema disagree (a column missing on either side, or a
 * column's nullability or type). A new column is one entry here plus its migration: the compiler
 * then asks insertRun for its value, unless the entry is added to SET_AFTER_INSERT on purpose.
 *
 * JSON columns are checked as objects only: their contents are their own shapes (the suite
 * config, the verdict), validated where they are written. Rows read back are parsed (about 4 µs a
 * row, under 1 ms for a page of 200).
 */

/** What a run executes: the suite config as it was when the run was requested, thresholds overridden. */
export interface RunConfigSnapshot {
  /**
   * `config.targets` are the targets the run probes; `suite_targets` the suite's own, kept only
   * when the trigger replaced them: per-run targets stand in for the suite's candidates, so the
   * baseline history matches runs on those (findPassingHistory).
   */
  suite: { id: string; name: string; config: SuiteConfig; suite_targets?: SuiteConfig['targets'] };
  /** `family` picks the chain adapter (src/chains/registry.ts); absent in snapshots taken before it was stored: EVM. */
  chain: { id: string; name: string; slug: string; explorer_url: string | null; family?: string };
}

const json = <T>() => z.custom<T>((value) => typeof value === 'object' && value !== null, 'must be a JSON object');
const timestamp = z.date();
/** bigint columns: postgres.js reads them as strings. */
const bigint = z.string().regex(/^-?\d+$/);

export const runRowSchema = z.object({
  id: z.string(),
  tenant_id: z.string(),
  test_suite_id: z.string(),
  triggered_by: z.string(),
  status: z.enum(RUN_STATUSES),
  requested_at: timestamp,
  claimed_at: timestamp.nullable(),
  started_at: timestamp.nullable(),
  finished_at: timestamp.nullable(),
  failure_reason: z.string().nullable(),
  baseline_run_id: z.string().nullable(),
  acknowledged_count: z.number().int(),
  metadata: json<Record<string, unknown>>(),
  config_snapshot: json<RunConfigSnapshot>(),
  stats: json<RunStats>().nullable(),
  verdict: json<ComputedVerdict>().nullable(),
  seed: bigint,
  workflow_id: z.string(),
  created_at: timestamp,
  pinned_block: bigint.nullable(),
  /** Set when the run's workflow was started (null: not yet; the reconciler starts it). */
  workflow_started_at: timestamp.nullable(),
  /** The schedule fire that started the run (its fire workflow's id); null for API triggers. */
  schedule_fire_id: z.string().nullable(),
  /** The branch and commit the trigger named (null: none, counted as the baseline branch). */
  branch: z.string().nullable(),
  commit_sha: z.string().nullable(),
  /** The suite's baseline branch when the run was requested (null for runs stored before branches). */
  baseline_branch: z.string().nullable(),
  /** Values read beside the pinned block at planning time, by name (null: none, or planned before they were read). */
  pinned_context: json<PinnedContext>().nullable(),
  /** Summaries finishRun stores for the trend and the baseline history (migration 032); null: not summarised yet. */
  verdict_value: z.string().nullable(),
  trend_point: json<Record<string, unknown>>().nullable(),
  candidate_endpoints: z.array(z.string()).nullable(),
  /** When the run's raw samples were deleted past their retention (null: kept). */
  samples_expired_at: timestamp.nullable(),
  /** The Monday (UTC) of the week whose samples partition holds the run's samples (migration 041); null: the legacy table. */
  samples_week: z.date().nullable(),
  ...RUN_RETURNED_COLUMNS,
});

export type RunRow = z.output<typeof runRowSchema>;

/**
 * Columns the insert leaves to their default or to a later step (claim, start, finalize, planning,
 * sample expiry). Every other column must be given a value by insertRun: a column added to the
 * schema lands in RunInsert, and the insert does not compile until it is written or listed here.
 */
const SET_AFTER_INSERT = {
  requested_at: true,
  created_at: true,
  claimed_at: true,
  started_at: true,
  finished_at: true,
  failure_reason: true,
  acknowledged_count: true,
  stats: true,
  verdict: true,
  pinned_block: true,
  pinned_context: true,
  workflow_started_at: true,
  verdict_value: true,
  trend_point: true,
  candidate_endpoints: true,
  samples_expired_at: true,
  samples_week: true,
} as const;

export const runInsertSchema = runRowSchema.omit(SET_AFTER_INSERT);
/** Every column a new run is inserted with: all required (a nullable one is written as null on purpose). */
export type RunInsert = z.output<typeof runInsertSchema>;

/**
 * Columns a run list leaves out: the verdict (its own route reads it), the config snapshot (up to
 * 64 KiB each, and a page holds 200: the list reads only its suite and chain) and bookkeeping no
 * list shows. Every other column is listed, so a new one reaches the list without a second edit.
 */
const NOT_LISTED = ['config_snapshot', 'verdict', 'workflow_started_at', 'schedule_fire_id', 'verdict_value', 'trend_point', 'candidate_endpoints', 'samples_expired_at', 'samples_week'] as const;
type NotListed = (typeof NOT_LISTED)[number];
export const RUN_LIST_COLUMNS = Object.keys(runRowSchema.shape).filter((c) => !(NOT_LISTED as readonly string[]).includes(c)) as Exclude<keyof RunRow, NotListed>[];

const runListRowSchema = runRowSchema
  .omit(Object.fromEntries(NOT_LISTED.map((c) => [c, true])) as { [C in NotListed]: true })
  .extend({ config_snapshot: json<{ suite: Omit<RunConfigSnapshot['suite'], 'config'>; chain: RunConfigSnapshot['chain'] }>() });

/** A run as a list shows it: no verdict, and the snapshot's suite without its config, and its chain. */
export type RunListRow = z.output<typeof runListRowSchema>;

/** A row read back from Postgres, checked against the schema (unknown columns dropped, so a newer migration does not break older code). */
export const parseRunRow = (row: unknown): RunRow => runRowSchema.parse(row);
export const parseRunListRow = (row: unknown): RunListRow => runListRowSchema.parse(row);
