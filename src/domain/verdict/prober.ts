import type { ProberSection } from './shapes';

/** What one probe activity attempt measured of its own worker process (DESIGN §17). */
export interface ProberHealthSample {
  worker: string;
  loopDelayP99Us: number;
  loopDelayMaxUs: number;
  /** Null when no send lag was observed (closed loop, unpaired open loop). */
  sendLagP99Us: number | null;
  /** CPU time of the whole process over the activity's wall time, % of one core. */
  cpuPct: number;
  durationMs: number;
}

/**
 * The prober's own health over a run (DESIGN §17): the worst of what its probe activities
 * recorded — event-loop delay of the worker process while it probed, the send lag of paired
 * schedules, the process's CPU use. Measured by the worker, not by the endpoint. The verdict's
 * prober section without the judgement (its schema: shapes.ts).
 */
export type ProberHealth = Omit<ProberSection, 'overloaded' | 'reason'>;

/**
 * When the prober counts as overloaded: its event loop fell this far behind (p99) while it
 * probed. Its latencies then include its own lateness: the callback that stops an answer's clock
 * ran that much late. 50 ms is far above a healthy worker (a few ms p99 while probing) and below
 * what a saturated one shows (100–200 ms, issue 31's measurement). Send lag is shown, not judged
 * here: an open loop whose calls queue behind a slow endpoint's (concurrency reached) is late
 * because of the endpoint, and the sweep judges its own steps' send lag (prober_fell_behind).
 */
export const PROBER_OVERLOAD = { loopDelayP99Ms: 50 } as const;

/** The verdict's prober section: the health measured and, when overloaded, why (declared in shapes.ts). */
export type { ProberSection };

const round1 = (ms: number): number => Math.round(ms * 10) / 10;

/** Pure: whether the prober was overloaded, and a sentence that names it. */
export function judgeProber(health: ProberHealth): ProberSection {
  const overloaded = health.loop_delay_p99_ms > PROBER_OVERLOAD.loopDelayP99Ms;
  return {
    ...health,
    overloaded,
    reason: overloaded
      ? `the prober was overloaded: event-loop delay p99 ${round1(health.loop_delay_p99_ms)} ms during probing (limit ${PROBER_OVERLOAD.loopDelayP99Ms} ms)`
      : null,
  };
}

/** What this module reads of a judged check (the Check union, without importing it). */
interface JudgedCheck {
  name: string;
  status: 'pass' | 'fail' | 'inconclusive';
  message: string;
}

/**
 * The latency checks whose judgement the prober's lateness can spoil. A fail becomes
 * inconclusive: the prober's delay is in every measured latency. latency_vs_reference becomes
 * inconclusive even when it passed: the delay lands on both sides and shrinks a relative
 * difference, so a pass is no evidence either. An absolute or baseline pass stands: the prober
 * only ever adds latency, so the endpoint was at least that fast.
 */
const SPOILED_BY_OVERLOAD: Readonly<Record<string, readonly JudgedCheck['status'][]>> = {
  latency_p95: ['fail'],
  latency_vs_baseline: ['fail'],
  latency_vs_reference: ['fail', 'pass'],
};

/** Pure: the checks as judged, with those an overloaded prober spoiled made inconclusive, naming the prober. */
export function withProberVerdict<C extends JudgedCheck>(checks: readonly C[], prober: ProberSection | undefined): C[] {
  if (!prober?.overloaded) return [...checks];
  return checks.map((check) => {
    if (!Object.hasOwn(SPOILED_BY_OVERLOAD, check.name) || !SPOILED_BY_OVERLOAD[check.name]!.includes(check.status)) return check;
    // " — inconclusive: <why>" ends every three-valued message (the Markdown quotes the why).
    const measured = check.message.split(' — ')[0];
    return { ...check, status: 'inconclusive', message: `${measured} — inconclusive: ${prober.reason}, not the endpoint` };
  });
}

/** One Markdown line on the prober's health; shown for every run that recorded it. */
export function proberMarkdown(prober: ProberSection): string {
  const sendLag = prober.send_lag_p99_ms === null ? '' : `, send lag p99 ${round1(prober.send_lag_p99_ms)} ms`;
  const health = `event-loop delay p99 ${round1(prober.loop_delay_p99_ms)} ms (max ${round1(prober.loop_delay_max_ms)} ms)${sendLag}, CPU ${Math.round(prober.cpu_pct)} %`;
  return prober.overloaded
    ? `> **Prober overloaded**: ${health} over ${prober.activities} probe activities — latency judged on these samples is inconclusive, and this run joins no baseline history.`
    : `Prober: ${health} over ${prober.activities} probe activities.`;
}
