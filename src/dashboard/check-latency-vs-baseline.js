/*
 * The latency_vs_baseline check: the candidates' p95 against the previous passing run's, or
 * against the history band of the suite's passing runs, and the Baseline card of the Comparisons
 * section.
 */
/* global window */
(function () {
  'use strict';

  const { el } = window.RvsDom;
  const { fmtMs, fmtPct, fmtRange, fmtPoint, fmtPctRange } = window.RvsFormat;
  const { fill, badge, emptyNote, interval, keyValues } = window.RvsBlocks;
  const { candidateP95 } = window.RvsLatencyIntervals;

  function measure(check, verdict) {
    const d = check.details || {};
    if (d.model === 'history' && d.limits) {
      return [
        [
          `${fmtPoint(candidateP95(verdict, d.candidate_p95_interval_ms, d.candidate_p95_ms), d.candidate_p95_ms)} vs median ${fmtMs(d.limits.history_median_ms)} (${fmtPct(d.vs_history_median_pct, true)})`,
          interval(fmtRange(candidateP95(verdict, d.candidate_p95_interval_ms, d.candidate_p95_ms))),
        ],
        `≤ ${fmtMs(d.limits.history_upper_ms)} band, ${fmtPct(d.max_pct, true)}`,
      ];
    }
    return [
      [`${fmtPct(d.vs_baseline_pct, true)} (${fmtMs(d.candidate_p95_ms)} vs ${fmtMs(d.baseline_p95_ms)})`, interval(fmtPctRange(d.vs_baseline_interval_pct))],
      `≤ ${fmtPct(d.max_pct, true)}`,
    ];
  }

  function render(data) {
    const v = data.verdict;
    const base = v && v.baseline_comparison;
    if (!v) fill('baseline-comparison', emptyNote('Available when the run has finished.'));
    else if (!base) fill('baseline-comparison', emptyNote('No baseline run to compare with.'));
    else {
      const limits = base.limits || {};
      const history = base.model === 'history';
      const runs = Array.isArray(base.run_ids) ? base.run_ids.length : 1;
      fill(
        'baseline-comparison',
        keyValues([
          ['Model', base.model ? `${base.model}${history ? ` (${runs} passing runs)` : ''}` : 'previous run'],
          [history ? 'Newest baseline run' : 'Baseline run', el('span', { className: 'mono small' }, base.run_id)],
          ['Status', badge(base.status)],
          ['Candidate p95', `${fmtPoint(candidateP95(v, base.candidate_p95_interval_ms, base.candidate_p95_ms), base.candidate_p95_ms)} ${fmtRange(candidateP95(v, base.candidate_p95_interval_ms, base.candidate_p95_ms))}`],
          history
            ? ['History p95', `median ${fmtMs(limits.history_median_ms)}, band ${fmtMs(limits.history_lower_ms)} – ${fmtMs(limits.history_upper_ms)}`]
            : ['Baseline p95', fmtMs(base.baseline_p95_ms)],
          ['Candidate vs baseline', `${fmtPct(base.vs_baseline_pct, true)} ${fmtPctRange(limits.vs_baseline_interval_pct)}`],
          ['', base.message || ''],
        ]),
      );
    }
  }

  window.RvsChecks.register({ name: 'latency_vs_baseline', measure, render });
})();
