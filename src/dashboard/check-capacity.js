/*
 * The capacity check of a sweep: the hockey stick, p95 and success rate against the offered rate
 * per endpoint, each step's p95 with its 95% interval, the budgets, the knee and the steps the
 * prober fell behind on.
 */
/* global window */
(function () {
  'use strict';

  const { svg, byId, isNum } = window.RvsDom;
  const { fmtMs, fmtPct } = window.RvsFormat;
  const { fill, roleLabel } = window.RvsBlocks;
  const { CHART, CANDIDATE_COLOURS, REFERENCE_COLOUR, niceScale, chartFrame, yAxis, legendItem } = window.RvsChart;

  /** The capacity sweep's hockey stick: p95 and success rate against the offered rate, per endpoint. */
  function render(data) {
    const capacity = data.verdict && data.verdict.capacity;
    byId('capacity-section').hidden = !capacity;
    if (!capacity) return;
    const rates = capacity.rates.slice(0, Math.max(1, capacity.steps_probed));
    const plotW = CHART.width - CHART.left - CHART.right;
    const plotH = CHART.height - CHART.top - CHART.bottom;
    // Steps are evenly spaced (their rates usually rise geometrically): the x axis is by step.
    const x = (step) => CHART.left + (rates.length === 1 ? plotW / 2 : (step / (rates.length - 1)) * plotW);
    let next = 0;
    const colours = capacity.endpoints.map((e) => (e.role === 'reference' ? REFERENCE_COLOUR : CANDIDATE_COLOURS[next++ % CANDIDATE_COLOURS.length]));
    const knees = capacity.endpoints
      .filter((e) => e.role === 'primary')
      .map((e) => `${e.endpoint_name}: ${e.knee_rps === null ? 'no step held' : `knee ${e.knee_rps} rps`}`);
    byId('capacity-summary').textContent = `(${knees.join('; ')}; minimum ${capacity.min_rps} rps)`;

    function chart(id, label, value, whisker, max, format, title, threshold, thresholdLabel) {
      const scale = niceScale(max, 5);
      const y = (v) => CHART.top + plotH - (Math.min(v, scale.max) / scale.max) * plotH;
      const root = chartFrame(label);
      yAxis(root, scale, y, format, title);
      rates.forEach((rate, i) => root.append(svg('text', { x: x(i), y: CHART.height - CHART.bottom + 18, className: 'tick', 'text-anchor': 'middle' }, String(rate))));
      root.append(svg('text', { x: CHART.left + plotW / 2, y: CHART.height - 6, className: 'axis-title', 'text-anchor': 'middle' }, 'offered rate (calls/s)'));
      root.append(
        svg('line', { x1: CHART.left, x2: CHART.width - CHART.right, y1: y(threshold), y2: y(threshold), className: 'threshold' }),
        svg('text', { x: CHART.width - CHART.right - 4, y: y(threshold) - 5, className: 'threshold-label', 'text-anchor': 'end' }, thresholdLabel),
      );
      capacity.endpoints.forEach((e, ei) => {
        const colour = colours[ei];
        const points = e.steps.filter((s) => isNum(value(s)));
        const group = svg('g', { className: 'series', 'data-role': e.role, 'data-testid': `${id}-series-${e.role}` });
        if (points.length > 1) {
          group.append(svg('path', { d: points.map((s, i) => `${i === 0 ? 'M' : 'L'}${x(s.step).toFixed(1)},${y(value(s)).toFixed(1)}`).join(' '), fill: 'none', stroke: colour, 'stroke-width': 2 }));
        }
        for (const s of points) {
          const w = whisker ? whisker(s) : null;
          if (w) group.append(svg('line', { x1: x(s.step), x2: x(s.step), y1: y(w.lower).toFixed(1), y2: y(w.upper === null ? scale.max : w.upper).toFixed(1), className: `whisker${w.upper === null ? ' open' : ''}` }));
          const behind = s.status === 'prober_behind';
          group.append(
            svg(
              'circle',
              { cx: x(s.step).toFixed(1), cy: y(value(s)).toFixed(1), r: e.knee_step === s.step ? 5 : 3.5, fill: behind ? '#fff' : colour, stroke: colour, 'stroke-width': 1.5, 'data-step': s.step, 'data-status': s.status },
              svg('title', null, `${e.endpoint_name} (${roleLabel(e.role)}) at ${s.offered_rps} rps (achieved ${isNum(s.achieved_rps) ? s.achieved_rps : '—'}): ${format(value(s))}; ${s.status.replace('_', ' ')}${e.knee_step === s.step ? ' — the knee' : ''}${s.note ? `. ${s.note}` : ''}`),
            ),
          );
        }
        root.append(group);
      });
      fill(id, root);
    }

    const p95 = (s) => (s.latency_ms ? s.latency_ms.p95.point : null);
    const maxP95 = Math.max(capacity.latency_p95_max_ms * 1.2, ...capacity.endpoints.flatMap((e) => e.steps.map(p95).filter(isNum)));
    chart('chart-capacity-latency', 'p95 latency against offered rate, per endpoint', p95, (s) => (s.latency_ms ? s.latency_ms.p95 : null), maxP95, fmtMs, 'p95 (ms)', capacity.latency_p95_max_ms, `p95 budget ${fmtMs(capacity.latency_p95_max_ms)}`);
    chart('chart-capacity-success', 'Success rate against offered rate, per endpoint', (s) => s.success_rate_pct, null, 100, (v) => fmtPct(v), 'success rate (%)', capacity.success_rate_min_pct, `success budget ${fmtPct(capacity.success_rate_min_pct)}`);
    fill('legend-capacity', ...capacity.endpoints.map((e, i) => legendItem(colours[i], `${e.endpoint_name} (${roleLabel(e.role)})`, 'line')));
  }

  window.RvsChecks.register({ name: 'capacity', render });
})();
