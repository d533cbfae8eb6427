/*
 * The 95% intervals of the latency percentiles as the verdict computed them (the latency_p95
 * check's details, the reference comparison's), read by the statistics table, the intervals chart
 * and the baseline comparison.
 */
/* global window */
(function () {
  'use strict';

  const { isNum } = window.RvsDom;

  /**
   * The candidates' p95 {point, lower, upper} as the latency_p95 check measured it; the baseline
   * checks bound the same p95 of the same calls but store no point of their own (only whole ms).
   */
  function candidateP95(verdict, interval, wholeMs) {
    const p95Check = verdict && (verdict.checks || []).find((c) => c.name === 'latency_p95');
    const measured = p95Check && p95Check.details && p95Check.details.intervals_ms && p95Check.details.intervals_ms.p95;
    if (!interval || !isNum(interval.lower)) return null;
    return { point: measured && isNum(measured.point) ? measured.point : wholeMs, lower: interval.lower, upper: interval.upper };
  }

  /**
   * The 95% intervals of p50/p95/p99 the verdict computed ({point, lower, upper|null} ms each):
   * the candidates together, each candidate target, the reference. Null before the verdict exists.
   */
  function verdictIntervals(data) {
    const v = data.verdict;
    const p95Check = v && (v.checks || []).find((c) => c.name === 'latency_p95');
    const d = (p95Check && p95Check.details) || {};
    const ref = v && v.reference_comparison ? v.reference_comparison.latency : null;
    const byEndpoint = new Map((Array.isArray(d.targets) ? d.targets : []).map((t) => [t.endpoint_id, t.intervals_ms]));
    const candidates = ((data.run && data.run.targets) || []).filter((t) => t.role !== 'reference');
    return {
      run: d.intervals_ms || null,
      target(target) {
        if (target.role === 'reference') return (ref && ref.reference_intervals_ms) || null;
        if (byEndpoint.has(target.endpoint_id)) return byEndpoint.get(target.endpoint_id) || null;
        return candidates.length === 1 ? d.intervals_ms || null : null;
      },
    };
  }

  window.RvsLatencyIntervals = Object.freeze({ verdictIntervals, candidateP95 });
})();
