/*
 * The latency_p95 check: the candidates' p95 with its 95% interval against the threshold, and the
 * card of p50/p95/p99 bars per target with their intervals as whiskers.
 */
/* global window */
(function () {
  'use strict';

  const { svg, byId, isNum } = window.RvsDom;
  const { fmtMs, fmtRange, fmtPoint } = window.RvsFormat;
  const { fill, roleLabel, emptyNote, interval } = window.RvsBlocks;
  const { CHART, seriesColours, niceScale, chartFrame, yAxis, legendItem } = window.RvsChart;
  const { verdictIntervals } = window.RvsLatencyIntervals;
  const RvsInterval = window.RvsInterval;

  function measure(check) {
    const d = check.details || {};
    return [
      [`p95 ${fmtPoint(d.intervals_ms && d.intervals_ms.p95, d.p95)}`, interval(fmtRange(d.intervals_ms && d.intervals_ms.p95))],
      `≤ ${fmtMs(d.threshold)}`,
    ];
  }

  /**
   * Bars of p50 / p95 / p99 per target with their 95% intervals as whiskers (from the verdict).
   * A whisker with no upper bound (too few calls) runs dashed to the top of the plot.
   */
  function render(data) {
    // A sweep's overall percentiles would mix every offered rate: the capacity section's steps carry
    // each step's intervals instead, so this card gives way to it (never "no successful calls").
    const sweep = Boolean(data.verdict && data.verdict.capacity);
    byId('intervals-section').hidden = sweep;
    if (sweep) return;
    const intervals = verdictIntervals(data);
    const series = ((data.run && data.run.targets) || [])
      .map((t) => ({ target_id: t.id, role: t.role, name: `${t.endpoint_name} (${roleLabel(t.role)})`, intervals: intervals.target(t) }))
      .filter((t) => t.intervals && t.intervals.p95 && isNum(t.intervals.p95.point));
    if (series.length === 0) {
      fill('chart-intervals', emptyNote(data.verdict ? 'No successful calls to bound.' : 'Shown when the run has finished: the verdict computes the intervals.'));
      fill('legend-intervals');
      return;
    }
    const groups = ['p50', 'p95', 'p99'];
    const colours = seriesColours(series);
    let top = 0;
    for (const t of series) for (const g of groups) top = Math.max(top, t.intervals[g].point, isNum(t.intervals[g].upper) ? t.intervals[g].upper : 0);
    const threshold = data.verdict && data.verdict.thresholds ? data.verdict.thresholds.latency_p95_max_ms : null;
    const showThreshold = isNum(threshold) && threshold <= Math.max(top, 1) * 1.5;
    const scale = niceScale(Math.max(top, showThreshold ? threshold : 0, 1) * 1.12, 5);
    const plotW = CHART.width - CHART.left - CHART.right;
    const plotH = CHART.height - CHART.top - CHART.bottom;
    const groupW = plotW / groups.length;
    const barW = Math.min(64, (groupW * 0.7) / series.length);
    const y = (v) => CHART.top + plotH - (Math.min(Math.max(v, 0), scale.max) / scale.max) * plotH;

    const root = chartFrame('p50, p95 and p99 per target with 95% confidence intervals');
    yAxis(root, scale, y, (v) => `${Number(v.toFixed(2))}`, 'latency (ms)');
    groups.forEach((g, gi) => {
      root.append(svg('text', { x: CHART.left + (gi + 0.5) * groupW, y: CHART.height - CHART.bottom + 20, className: 'group-label', 'text-anchor': 'middle' }, g));
    });
    if (showThreshold) {
      root.append(
        svg('line', { x1: CHART.left + groupW, x2: CHART.left + 2 * groupW, y1: y(threshold), y2: y(threshold), className: 'threshold' }),
        svg('text', { x: CHART.left + 2 * groupW - 4, y: y(threshold) - 5, className: 'threshold-label', 'text-anchor': 'end' }, `threshold ${fmtMs(threshold)}`),
      );
    }
    const legend = [];
    series.forEach((t, ti) => {
      const colour = colours.get(t.target_id);
      const group = svg('g', { className: 'series', 'data-role': t.role, 'data-target': t.target_id, 'data-testid': `interval-series-${t.role}` });
      groups.forEach((g, gi) => {
        const q = t.intervals[g];
        const cx = CHART.left + gi * groupW + (groupW - barW * series.length) / 2 + (ti + 0.5) * barW;
        const open = q.upper === null;
        const upper = open ? scale.max : q.upper;
        const label = `${t.name} ${g} ${fmtPoint(q)}, 95% interval ${fmtRange(q)} ms`;
        group.append(
          svg('rect', { x: (cx - barW * 0.42).toFixed(1), y: y(q.point).toFixed(1), width: (barW * 0.84).toFixed(1), height: Math.max(0.5, y(0) - y(q.point)).toFixed(1), fill: colour, 'fill-opacity': 0.55, rx: 1, 'data-percentile': g }, svg('title', null, label)),
          svg('line', { x1: cx, x2: cx, y1: y(q.lower).toFixed(1), y2: y(upper).toFixed(1), className: `whisker${open ? ' open' : ''}`, 'data-percentile': g, 'data-lower': q.lower, 'data-upper': open ? 'unbounded' : q.upper }, svg('title', null, label)),
          svg('line', { x1: cx - barW * 0.22, x2: cx + barW * 0.22, y1: y(q.lower).toFixed(1), y2: y(q.lower).toFixed(1), className: 'whisker' }),
          open ? null : svg('line', { x1: cx - barW * 0.22, x2: cx + barW * 0.22, y1: y(upper).toFixed(1), y2: y(upper).toFixed(1), className: 'whisker' }),
          svg('circle', { cx, cy: y(q.point).toFixed(1), r: 3, fill: colour, stroke: '#fff', 'stroke-width': 1 }),
        );
        // The point above the whisker; its range too where that fits ("112 [108–116]" needs about 72 px).
        group.append(
          svg('text', { x: cx, y: Math.max(CHART.top + 9, y(upper) - 6).toFixed(1), className: 'value-label', 'text-anchor': 'middle' }, barW >= 72 ? `${RvsInterval.display(q).point} ${fmtRange(q)}` : RvsInterval.display(q).point),
        );
      });
      root.append(group);
      legend.push(legendItem(colour, t.name, 'rect'));
    });
    legend.push(legendItem('#111827', '95% confidence interval', 'solid'));
    fill('chart-intervals', root);
    fill('legend-intervals', legend);
  }

  window.RvsChecks.register({ name: 'latency_p95', measure, render });
})();
