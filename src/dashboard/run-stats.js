/*
 * The Statistics card: calls and latency of the candidates together, then of each target, with
 * the verdict's 95% intervals beside the percentiles of successful calls.
 */
/* global window */
(function () {
  'use strict';

  const { el, byId } = window.RvsDom;
  const { fmtRange, fmtPoint, fmtInt } = window.RvsFormat;
  const { TERMINAL, roleLabel } = window.RvsBlocks;
  const { verdictIntervals } = window.RvsLatencyIntervals;

  function statsCells(stats, terminal, intervals) {
    // Statistics are aggregated when a target (or the run) finishes; zeros before that would mislead.
    if (!stats || !stats.calls || (!terminal && stats.calls.total === 0)) {
      return [el('td', { colspan: 11, className: 'muted' }, 'aggregated when it finishes')];
    }
    const s = stats.latency ? stats.latency.successful : null;
    const a = stats.latency ? stats.latency.all : null;
    const lat = (summary, withIntervals) =>
      ['avg_ms', 'p50_ms', 'p95_ms', 'p99_ms'].map((k, i) => {
        const interval = withIntervals && intervals ? intervals[k.replace('_ms', '')] : null;
        return el(
          'td',
          { className: `num${i === 0 ? ' group-start' : ''}`, 'data-field': k },
          // With an interval, its own point (rounded with it): the whole-ms statistic can fall outside it.
          el('span', { 'data-field': 'point' }, summary ? fmtPoint(interval, summary[k]) : '—'),
          interval ? el('span', { className: 'interval', 'data-field': 'interval', title: '95% confidence interval (ms)' }, fmtRange(interval)) : null,
        );
      });
    return [
      el('td', { className: 'num', 'data-field': 'calls_total' }, fmtInt(stats.calls.total)),
      el('td', { className: 'num', 'data-field': 'calls_successful' }, fmtInt(stats.calls.successful)),
      el('td', { className: `num${stats.calls.failed > 0 ? ' bad' : ''}`, 'data-field': 'calls_failed' }, fmtInt(stats.calls.failed)),
      lat(s, true),
      lat(a, false),
    ];
  }

  function render(data) {
    const { run } = data;
    const intervals = verdictIntervals(data);
    const head = [
      el(
        'tr',
        null,
        el('th', { rowspan: 2 }, 'Scope'),
        el('th', { colspan: 3, className: 'center' }, 'Calls'),
        el('th', { colspan: 4, className: 'center group-start' }, 'Latency, successful calls'),
        el('th', { colspan: 4, className: 'center group-start' }, 'Latency, all calls'),
      ),
      el(
        'tr',
        null,
        ['total', 'successful', 'failed'].map((h) => el('th', { className: 'num' }, h)),
        ['avg', 'p50 [95%]', 'p95 [95%]', 'p99 [95%]'].map((h, i) => el('th', { className: `num${i === 0 ? ' group-start' : ''}` }, h)),
        ['avg', 'p50', 'p95', 'p99'].map((h, i) => el('th', { className: `num${i === 0 ? ' group-start' : ''}` }, h)),
      ),
    ];
    const rows = [
      el('tr', { className: 'total', 'data-testid': 'stats-row-run', 'data-scope': 'run' }, el('th', { scope: 'row' }, 'Candidates (run)'), statsCells(run.stats, TERMINAL.includes(run.status), intervals.run)),
    ];
    for (const target of run.targets || []) {
      rows.push(
        el(
          'tr',
          { 'data-testid': `stats-row-${target.role}`, 'data-scope': 'target', 'data-role': target.role },
          el('th', { scope: 'row' }, el('span', { className: 'target-name' }, target.endpoint_name), ' ', el('span', { className: 'muted small' }, `${roleLabel(target.role)} · ${target.status}`)),
          statsCells(target.metadata && target.metadata.stats, ['success', 'failed', 'cancelled'].includes(target.status), intervals.target(target)),
        ),
      );
    }
    const node = byId('stats-table');
    node.className = 'data stats';
    node.replaceChildren(el('thead', null, head), el('tbody', null, rows));
  }

  window.RvsRunStats = Object.freeze({ render });
})();
