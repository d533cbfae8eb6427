import { showMsInterval } from '../interval-display';
import type { CapacityComparison } from './types';

/**
 * The capacity sweep as a table: one row per endpoint and step, the knee marked. The Markdown and
 * the `rvs` text output both draw it from here, so the two say the same (only the step cell's
 * marks differ: emoji in Markdown, words in a terminal).
 */
export function capacityTable(c: CapacityComparison, style: 'markdown' | 'text') {
  const stopped = c.steps_probed < c.rates.length ? `; stopped early after ${c.steps_probed} of ${c.rates.length} steps` : '';
  const intro = `Capacity sweep: ${c.step_s} s per step after ${c.warmup_s} s of warm-up; budget p95 ≤ ${c.latency_p95_max_ms} ms and success ≥ ${c.success_rate_min_pct}%; minimum ${c.min_rps} rps${stopped}.`;
  const header = ['Endpoint', 'Offered rps', 'Achieved rps', 'p50', 'p95 [95% interval]', 'p99', 'Success', '429s', 'Other errors', 'Send lag p99', 'Step'];
  const stepCell =
    style === 'markdown'
      ? ({ within: '✅ within', broken: '❌ broken', prober_behind: '⚠️ prober behind', no_calls: '– no calls' } as const)
      : ({ within: 'within', broken: 'broken', prober_behind: 'prober behind', no_calls: 'no calls' } as const);
  const rows = c.endpoints.flatMap((e) =>
    e.steps.map((s) => {
      const l = s.latency_ms;
      const others = Object.entries(s.errors)
        .filter(([name]) => name !== 'http_429')
        .map(([name, n]) => `${name} ${n}`)
        .join(', ');
      return [
        `${e.endpoint_name}${e.role === 'reference' ? ' (reference)' : ''}`,
        String(s.offered_rps),
        String(s.achieved_rps ?? '–'),
        l ? showMsInterval(l.p50) : '–',
        l ? showMsInterval(l.p95) : '–',
        l ? showMsInterval(l.p99) : '–',
        s.success_rate_pct === null ? '–' : `${s.success_rate_pct}%`,
        String(s.rate_limited),
        others || '–',
        s.send_lag_p99_ms === null ? '–' : `${s.send_lag_p99_ms} ms`,
        `${stepCell[s.status]}${e.knee_step === s.step ? ' ← knee' : ''}`,
      ];
    }),
  );
  const notes = c.endpoints.flatMap((e) => {
    const behind = e.steps.filter((s) => s.status === 'prober_behind').map((s) => s.offered_rps);
    return behind.length > 0 ? [`${e.endpoint_name} at ${behind.join(', ')} rps: the prober, not the endpoint, fell behind (its send lag or send rate missed the schedule).`] : [];
  });
  return { intro, header, rows, notes };
}
