/*
 * The latency_vs_reference check: the candidates' p95 against the reference endpoint's (relative,
 * with its 95% interval), and the Reference card of the Comparisons section: both sides'
 * percentiles, how the calls were paired, and the comparison per method.
 */
/* global window */
(function () {
  'use strict';

  const { el, isNum } = window.RvsDom;
  const { fmtMs, fmtPct, fmtRange, fmtPoint, fmtPctRange, fmtInt } = window.RvsFormat;
  const { fill, badge, table, emptyNote, interval, keyValues } = window.RvsBlocks;

  function measure(check) {
    const d = check.details || {};
    return [
      [`${fmtPct(d.vs_reference_pct, true)} (${fmtMs(d.candidate_p95_ms)} vs ${fmtMs(d.reference_p95_ms)})`, interval(fmtPctRange(d.vs_reference_interval_pct))],
      `≤ ${fmtPct(d.max_pct, true)}${isNum(d.floor_ms) ? ` or < ${fmtMs(d.floor_ms)}` : ''}`,
    ];
  }

  const UNPAIRED_WHY = { closed_loop: 'closed loop', several_candidates: 'several candidates', not_anchored: 'probed without a shared schedule' };

  /** How candidate and reference calls were compared, and how closely the pairs were sent together. */
  function pairingText(pairing, method) {
    if (!pairing) return method || '—';
    if (pairing.method !== 'paired') return `unpaired${pairing.reason ? `: ${UNPAIRED_WHY[pairing.reason] || pairing.reason}` : ''}`;
    const skew = [['p50', pairing.skew_p50_ms], ['p95', pairing.skew_p95_ms], ['max', pairing.skew_max_ms]]
      .filter(([, v]) => isNum(v))
      .map(([k, v]) => `${k} ${fmtMs(v)}`)
      .join(', ');
    return `paired over ${fmtInt(pairing.compared)} of ${fmtInt(pairing.pairs)} seqs; send skew ${skew || '—'}` +
      (isNum(pairing.correlation) ? `; p95 correlation ${pairing.correlation}` : '');
  }

  function render(data) {
    const v = data.verdict;
    const ref = v && v.reference_comparison;
    if (!v) fill('reference-comparison', emptyNote('Available when the run has finished.'));
    else if (!ref) fill('reference-comparison', emptyNote('This suite has no reference endpoint.'));
    else {
      const l = ref.latency || {};
      // Each point as rounded with its interval; the whole-ms statistic only where there is no interval.
      const percentiles = (intervals, points) =>
        ['p50', 'p95', 'p99']
          .map((p) => {
            const q = intervals && intervals[p];
            return `${p} ${fmtPoint(q, points[p])}${q ? ` ${fmtRange(q)}` : ''}`;
          })
          .join(' · ');
      const referencePoints = { p50: null, p95: l.reference_p95_ms, p99: null };
      const candidatePoints = { p50: l.candidate_p50_ms, p95: l.candidate_p95_ms, p99: l.candidate_p99_ms };
      const parts = [
        keyValues([
          ['Endpoint', ref.endpoint_name],
          ['Status', badge(ref.status)],
          ['Candidate', el('span', { 'data-testid': 'reference-candidate-percentiles' }, percentiles(l.candidate_intervals_ms, candidatePoints))],
          [
            'Reference',
            el(
              'span',
              { 'data-testid': 'reference-percentiles' },
              l.reference_intervals_ms ? percentiles(l.reference_intervals_ms, referencePoints) : `p95 ${fmtMs(l.reference_p95_ms)}`,
            ),
          ],
          ['Candidate vs reference', `${fmtPct(l.vs_reference_pct, true)} ${fmtPctRange(l.vs_reference_interval_pct)}`],
          ref.pairing || l.method ? ['Pairing', el('span', { 'data-testid': 'reference-pairing' }, pairingText(ref.pairing, l.method))] : null,
          isNum(ref.head_lag_blocks) ? ['Head lag', `${ref.head_lag_blocks} blocks`] : null,
          ['', l.message || ''],
        ]),
      ];
      if (Array.isArray(l.by_method) && l.by_method.length > 0) {
        parts.push(
          el(
            'div',
            { className: 'table-wrap' },
            table(
              el('tr', null, ['Method', 'Calls', 'Failed', 'Cand. p95', 'Ref. p95', 'vs ref.'].map((hd, i) => el('th', { className: i ? 'num' : null }, hd))),
              l.by_method.map((m) =>
                el('tr', null, el('td', { className: 'mono' }, m.method), el('td', { className: 'num' }, fmtInt(m.calls)), el('td', { className: 'num' }, fmtInt(m.failed)), el('td', { className: 'num' }, fmtMs(m.candidate_p95_ms)), el('td', { className: 'num' }, fmtMs(m.reference_p95_ms)), el('td', { className: 'num' }, fmtPct(m.vs_reference_pct, true))),
              ),
              { className: 'data compact' },
            ),
          ),
        );
      }
      fill('reference-comparison', parts);
    }
  }

  window.RvsChecks.register({ name: 'latency_vs_reference', measure, render });
})();
