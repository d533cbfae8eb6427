import type { CapacityComparison, CheckOf, FreshnessComparison, VerdictCheck, VerdictInput } from './types';

/*
 * A check is a module (STYLE rule 18): its name, its judgement and its presentation in one
 * declaration, listed once in checks.ts. The verdict's judge, its Markdown (markdown.ts), `rvs`
 * text and JUnit (src/cli/format.ts) iterate that list; none of them names a check. What the check
 * judges is read from the database by its input loader, registered beside it on the service side
 * (src/services/check-inputs/), because a loader does I/O and this folder is pure.
 */

/** What a check's Markdown section is drawn from: the verdict's input and what the checks compared. */
export interface MarkdownContext {
  input: VerdictInput;
  freshness?: FreshnessComparison;
  capacity?: CapacityComparison;
  /** Escapes a name for a table cell or a line (a `|` would end the cell). */
  escape: (text: string) => string;
}

/**
 * A verdict as JSON, as `rvs` reads it from the API: any version of the service may have sent it,
 * so every field may be missing or of another shape, and a section shows only what it can read.
 */
export type VerdictJson = Readonly<Record<string, unknown>>;

/** A check as the verdict's JSON lists it (a JUnit testcase has the same fields). */
export interface CheckJson {
  name: string;
  status: unknown;
  message: string;
  details?: unknown;
}

/**
 * Lines of a rendering below the table of checks. Each rendering orders the sections of every
 * check and its own (the endpoints, batch limits, the prober) by `rank`, lowest first; a section
 * with nothing to show returns no lines, and one that shows begins with its own blank line where
 * the rendering separates sections with one (Markdown).
 */
export interface Section<Context, Own> {
  rank: number;
  lines: (context: Context, own: Own | undefined) => string[];
}

export interface CheckModule<C extends CheckOf<string, unknown>> {
  name: C['name'];
  /** Pure: judges the run from the verdict's input; null when the check does not apply to it. */
  judge: VerdictCheck<C>;
  /** Its Markdown below the check table (`own`: this check as judged, when it was). */
  markdown?: Section<MarkdownContext, C>;
  /** Its lines of the `rvs` text output below the checks (`own`: this check as the verdict lists it). */
  text?: Section<VerdictJson, CheckJson>;
  /** Its JUnit testcases when it is more than one (one per candidate); null: the check is one testcase. */
  junitCases?: (own: CheckJson, verdict: VerdictJson) => CheckJson[] | null;
}
