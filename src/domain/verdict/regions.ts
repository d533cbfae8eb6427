import type { RunStats } from '../run-stats';
import type { CheckStatus } from '../run-model';
import type { Check } from './checks';
import type { VerdictInput, VerdictValue } from './types';

/*
 * Vantage points (DESIGN.md §14): a run with vantage_points is judged once per region as well,
 * on that region's samples alone. The verdict fails if any region fails and names it; a region
 * whose worker never took its probe tasks is `vantage_unavailable` — its own outcome, never a
 * failure of the endpoint (nothing was measured from there).
 */

export type RegionStatus = 'pass' | 'fail' | 'vantage_unavailable';

/** One region of the verdict's `regions` section. */
export interface RegionVerdict {
  region: string;
  status: RegionStatus;
  message: string;
  /** The candidates' calls and successful-call latency from this region (whatever was measured, even when unavailable). */
  calls: RunStats['calls'];
  latency: RunStats['latency']['successful'];
  /** The reference's successful p95 from this region; null without a reference. */
  reference_p95_ms: number | null;
  /** The region's checks, judged like the run's on its samples alone (no baseline, correctness or head watch: those are the run's). Empty when unavailable. */
  checks: Check[];
  /** vantage_unavailable: the endpoints no worker of the region probed. */
  unavailable_endpoints?: string[];
}

/** What finalize measured for one region. */
export interface RegionInput {
  region: string;
  /** Endpoint names of the targets the region could not probe; empty when it probed them all. */
  unavailableEndpoints: readonly string[];
  /** The run's verdict input restricted to the region's samples. */
  input: VerdictInput;
}

/**
 * The region's own judgement: the run's checks over its samples, with the checks that judge the
 * run as a whole (baseline, correctness, head watch) left out. `judge` is computeVerdict (passed
 * in so this module and index.ts do not import each other).
 */
export function judgeRegion(region: RegionInput, judge: (input: VerdictInput) => { verdict: VerdictValue; checks: Check[] }): RegionVerdict {
  const { candidate, reference } = region.input;
  const measured = {
    region: region.region,
    calls: candidate.calls,
    latency: candidate.latency.successful,
    reference_p95_ms: reference ? reference.stats.latency.successful.p95_ms : null,
  };
  if (region.unavailableEndpoints.length > 0) {
    return {
      ...measured,
      status: 'vantage_unavailable',
      message: `no worker of region ${region.region} took its probes in time (${region.unavailableEndpoints.join(', ')}): not judged, not the endpoint's failure`,
      checks: [],
      unavailable_endpoints: [...region.unavailableEndpoints],
    };
  }
  const judged = judge({
    ...region.input,
    thresholds: { ...region.input.thresholds, correctness_enabled: false },
    baseline: null,
    correctness: undefined,
    freshness: undefined,
  });
  const failing = judged.checks.filter((c) => judged.verdict === 'fail' && isFailing(c.status, region.input.thresholds.fail_on_inconclusive === true));
  return {
    ...measured,
    status: judged.verdict === 'fail' ? 'fail' : 'pass',
    message:
      judged.verdict === 'fail'
        ? `failed from ${region.region}: ${failing.map((c) => c.name).join(', ')}`
        : `passed from ${region.region} (p95 ${candidate.latency.successful.p95_ms} ms over ${candidate.calls.total} calls)`,
    checks: judged.checks,
  };
}

function isFailing(status: CheckStatus, failOnInconclusive: boolean): boolean {
  return status === 'fail' || (failOnInconclusive && status === 'inconclusive');
}

/**
 * Folds the regions into the run's verdict: any failed region fails it (exit 1) and the summary
 * says which; unavailable regions are named but change nothing. An error verdict (the run did not
 * succeed) stays as it is.
 */
export function combineRegions(
  run: { verdict: VerdictValue; summary: string; exit_code: 0 | 1 | 2 },
  regions: readonly RegionVerdict[],
): { verdict: VerdictValue; summary: string; exit_code: 0 | 1 | 2 } {
  if (run.verdict === 'error' || regions.length === 0) return run;
  const failed = regions.filter((r) => r.status === 'fail');
  const unavailable = regions.filter((r) => r.status === 'vantage_unavailable');
  const notes = [
    ...(failed.length > 0 ? [`Failed from ${failed.length} of ${regions.length} regions: ${failed.map((r) => `${r.region} (${r.message.split(': ').pop()})`).join('; ')}.`] : []),
    ...(unavailable.length > 0 ? [`Vantage unavailable (not judged): ${unavailable.map((r) => r.region).join(', ')}.`] : []),
  ];
  const verdict: VerdictValue = run.verdict === 'fail' || failed.length > 0 ? 'fail' : 'pass';
  return {
    verdict,
    summary: [run.summary, ...notes].join(' '),
    exit_code: verdict === 'pass' ? 0 : 1,
  };
}

const STATUS_CELL: Record<CheckStatus | RegionStatus, string> = {
  pass: '✅ pass',
  fail: '❌ fail',
  inconclusive: '❔ inconclusive',
  vantage_unavailable: '📡 vantage unavailable',
};

/** The region × check table of the Markdown summary, with each region's calls and p95. */
export function regionsMarkdown(regions: readonly RegionVerdict[]): string[] {
  if (regions.length === 0) return [];
  const names = [...new Set(regions.flatMap((r) => r.checks.map((c) => c.name)))];
  const row = (cells: readonly string[]) => `| ${cells.join(' | ')} |`;
  const header = ['Region', 'Status', 'Calls', 'Failed', 'p95', ...names];
  const lines = [row(header), row(header.map(() => '---'))];
  for (const r of regions) {
    const checks = names.map((name) => {
      const check = r.checks.find((c) => c.name === name);
      return check ? STATUS_CELL[check.status] : '–';
    });
    const p95 = r.calls.successful > 0 ? `${r.latency.p95_ms} ms` : '–';
    lines.push(row([r.region, STATUS_CELL[r.status], String(r.calls.total), String(r.calls.failed), p95, ...checks]));
  }
  return lines;
}
