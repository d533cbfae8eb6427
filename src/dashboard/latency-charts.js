/*
 * The two latency charts of every run: p50 and p95 over time per target, and the distribution of
 * successful calls per target. Both need the raw samples (gone after sample retention).
 */
/* global window */
(function () {
  'use strict';

  const { svg, isNum } = window.RvsDom;
  const { fmtMs, fmtPct, fmtInt, fmtClock } = window.RvsFormat;
  const { EXPIRED_NOTE, fill, roleLabel, emptyNote } = window.RvsBlocks;
  const { CHART, seriesColours, niceScale, chartFrame, yAxis, legendItem } = window.RvsChart;

  function renderTimeChart(data) {
    const metrics = data.metrics;
    const targets = (metrics && metrics.targets) || [];
    const withData = targets.filter((t) => t.buckets && t.buckets.length > 0);
    if (withData.length === 0) {
      fill('chart-latency-time', emptyNote(data.samples_expired_at ? EXPIRED_NOTE : 'No samples yet.'));
      fill('legend-latency-time');
      return;
    }
    const colours = seriesColours(targets);
    const bucketMs = (metrics.bucket_seconds || 1) * 1000;
    const times = withData.flatMap((t) => t.buckets.map((b) => new Date(b.t).getTime()));
    let t0 = Math.min(...times);
    let t1 = Math.max(...times) + bucketMs;
    if (t1 - t0 < 2 * bucketMs) {
      t0 -= bucketMs / 2;
      t1 += bucketMs / 2;
    }
    const maxMs = Math.max(...withData.flatMap((t) => t.buckets.map((b) => b.p95_ms)), 0);
    const threshold = data.verdict && data.verdict.thresholds ? data.verdict.thresholds.latency_p95_max_ms : null;
    const showThreshold = isNum(threshold) && threshold <= Math.max(maxMs, 1) * 1.5;
    const scale = niceScale(Math.max(maxMs, showThreshold ? threshold : 0, 1) * 1.08, 5);
    const plotW = CHART.width - CHART.left - CHART.right;
    const plotH = CHART.height - CHART.top - CHART.bottom;
    const x = (ms) => CHART.left + ((ms - t0) / (t1 - t0)) * plotW;
    const y = (v) => CHART.top + plotH - (v / scale.max) * plotH;

    const root = chartFrame('Latency over time, p50 and p95 per target');
    yAxis(root, scale, y, (v) => `${Number(v.toFixed(2))}`, 'latency (ms)');
    const xTicks = Math.min(6, Math.max(2, Math.round((t1 - t0) / bucketMs)));
    for (let i = 0; i <= xTicks; i++) {
      const ms = t0 + ((t1 - t0) * i) / xTicks;
      root.append(svg('text', { x: x(ms), y: CHART.height - CHART.bottom + 18, className: 'tick', 'text-anchor': i === 0 ? 'start' : i === xTicks ? 'end' : 'middle' }, fmtClock(new Date(ms))));
    }
    root.append(svg('text', { x: CHART.left + plotW / 2, y: CHART.height - 6, className: 'axis-title', 'text-anchor': 'middle' }, `time (UTC), ${metrics.bucket_seconds} s buckets`));
    if (showThreshold) {
      root.append(
        svg('line', { x1: CHART.left, x2: CHART.width - CHART.right, y1: y(threshold), y2: y(threshold), className: 'threshold' }),
        svg('text', { x: CHART.width - CHART.right - 4, y: y(threshold) - 5, className: 'threshold-label', 'text-anchor': 'end' }, `p95 threshold ${fmtMs(threshold)}`),
      );
    }
    const legend = [];
    for (const target of withData) {
      const colour = colours.get(target.target_id);
      const group = svg('g', { className: 'series', 'data-role': target.role, 'data-target': target.target_id, 'data-testid': `time-series-${target.role}` });
      const points = target.buckets.map((b) => ({ x: x(new Date(b.t).getTime() + bucketMs / 2), b }));
      for (const [field, dashed] of [['p95_ms', false], ['p50_ms', true]]) {
        const d = points.map((p, i) => `${i === 0 ? 'M' : 'L'}${p.x.toFixed(1)},${y(p.b[field]).toFixed(1)}`).join(' ');
        group.append(svg('path', { d, fill: 'none', stroke: colour, 'stroke-width': dashed ? 1.8 : 2.5, 'stroke-dasharray': dashed ? '6 4' : null, 'stroke-linejoin': 'round', 'data-percentile': field }));
        for (const p of points) {
          group.append(
            svg(
              'circle',
              { cx: p.x.toFixed(1), cy: y(p.b[field]).toFixed(1), r: dashed ? 2.5 : 3.5, fill: dashed ? '#fff' : colour, stroke: colour, 'stroke-width': 1.5 },
              svg('title', null, `${target.endpoint_name} (${roleLabel(target.role)}) ${fmtClock(new Date(p.b.t))}: ${field.replace('_ms', '')} ${fmtMs(p.b[field])}, ${p.b.calls} calls, ${p.b.failed} failed`),
            ),
          );
        }
      }
      root.append(group);
      const name = `${target.endpoint_name} (${roleLabel(target.role)})`;
      legend.push(legendItem(colour, `${name} p95`, 'solid'), legendItem(colour, `${name} p50`, 'dashed'));
    }
    fill('chart-latency-time', root);
    fill('legend-latency-time', legend);
  }

  function renderHistogram(data) {
    const h = data.histogram;
    if (!h || !h.targets || h.targets.length === 0) {
      fill('chart-latency-histogram', emptyNote(data.samples_expired_at ? EXPIRED_NOTE : 'No successful calls yet.'));
      fill('legend-latency-histogram');
      return;
    }
    const colours = seriesColours(h.targets);
    const hasOverflow = h.targets.some((t) => t.overflow > 0);
    const groups = h.buckets + (hasOverflow ? 1 : 0);
    const share = (t, i) => (t.total > 0 ? ((i < h.buckets ? t.counts[i] : t.overflow) / t.total) * 100 : 0);
    let maxShare = 0;
    for (const t of h.targets) for (let i = 0; i < groups; i++) maxShare = Math.max(maxShare, share(t, i));
    const scale = niceScale(maxShare * 1.05, 5);
    const plotW = CHART.width - CHART.left - CHART.right;
    const plotH = CHART.height - CHART.top - CHART.bottom;
    const groupW = plotW / groups;
    const barW = Math.max(1, (groupW * 0.84) / h.targets.length);
    const y = (v) => CHART.top + plotH - (v / scale.max) * plotH;
    const edge = (i) => h.from_ms + i * h.bucket_ms;

    const root = chartFrame('Latency distribution of successful calls per target');
    yAxis(root, scale, y, (v) => `${Number(v.toFixed(1))}%`, 'share of calls');
    const labelEvery = Math.ceil(groups / 8);
    for (let i = 0; i <= h.buckets; i += labelEvery) {
      root.append(svg('text', { x: CHART.left + i * groupW, y: CHART.height - CHART.bottom + 18, className: 'tick', 'text-anchor': 'middle' }, fmtMs(edge(i)).replace(' ms', '')));
    }
    if (hasOverflow) {
      root.append(svg('text', { x: CHART.left + (h.buckets + 0.5) * groupW, y: CHART.height - CHART.bottom + 18, className: 'tick', 'text-anchor': 'middle' }, `≥${fmtMs(edge(h.buckets)).replace(' ms', '')}`));
    }
    root.append(svg('text', { x: CHART.left + plotW / 2, y: CHART.height - 6, className: 'axis-title', 'text-anchor': 'middle' }, `latency (ms), ${fmtMs(h.bucket_ms)} buckets`));
    const legend = [];
    h.targets.forEach((t, ti) => {
      const colour = colours.get(t.target_id);
      const group = svg('g', { className: 'series', 'data-role': t.role, 'data-target': t.target_id, 'data-testid': `histogram-series-${t.role}` });
      for (let i = 0; i < groups; i++) {
        const v = share(t, i);
        if (v <= 0) continue;
        const count = i < h.buckets ? t.counts[i] : t.overflow;
        const range = i < h.buckets ? `${fmtMs(edge(i))} – ${fmtMs(edge(i + 1))}` : `≥ ${fmtMs(edge(h.buckets))}`;
        group.append(
          svg(
            'rect',
            { x: (CHART.left + i * groupW + groupW * 0.08 + ti * barW).toFixed(1), y: y(v).toFixed(1), width: barW.toFixed(1), height: Math.max(0.5, y(0) - y(v)).toFixed(1), fill: colour, 'fill-opacity': 0.85, rx: 1 },
            svg('title', null, `${t.endpoint_name} (${roleLabel(t.role)}) ${range}: ${count} calls (${fmtPct(v)})`),
          ),
        );
      }
      root.append(group);
      legend.push(legendItem(colour, `${t.endpoint_name} (${roleLabel(t.role)}), ${fmtInt(t.total)} calls`, 'rect'));
    });
    fill('chart-latency-histogram', root);
    fill('legend-latency-histogram', legend);
  }

  window.RvsLatencyCharts = Object.freeze({
    render(data) {
      renderTimeChart(data);
      renderHistogram(data);
    },
  });
})();
