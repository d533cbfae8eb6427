/*
 * The freshness_vs_reference check's section, Head arrivals: each candidate's arrival lag behind
 * the reference per block (drawn from the stored heads, fetched once), missed and late heads,
 * stalls, reorgs and reconnects per endpoint.
 */
/* global window */
(function () {
  'use strict';

  const { el, svg, byId, isNum } = window.RvsDom;
  const { fmtMs, fmtPct, fmtRange, fmtPoint, fmtInt } = window.RvsFormat;
  const { fill, badge, emptyNote, interval } = window.RvsBlocks;
  const { CHART, seriesColours, niceScale, chartFrame, legendItem } = window.RvsChart;
  const { fetchHeads, arrivalLags } = window.RvsHeadArrivals;

  /** The run's stored heads, fetched once (a finished run's heads never change); null until asked for. */
  let headsLoad = null;

  function renderFreshnessTable(data, f) {
    const check = (data.verdict.checks || []).find((c) => c.name === 'freshness_vs_reference');
    const lagCell = (c, p) => {
      const q = c.lag_ms && c.lag_ms[p];
      return el('td', { className: 'num', 'data-field': `lag_${p}` }, q ? el('span', { 'data-field': 'point' }, fmtPoint(q)) : '—', q ? interval(fmtRange(q)) : null);
    };
    const count = (field, value, bad) => el('td', { className: `num${bad ? ' bad' : ''}`, 'data-field': field }, fmtInt(value));
    const stall = (ms) => (isNum(ms) ? `${(ms / 1000).toFixed(1)} s` : '—');
    const limits = check && check.details;
    const rows = f.candidates.map((c) => {
      const stallBad = limits && isNum(limits.stall_max_s) && c.longest_stall_ms / 1000 > limits.stall_max_s;
      return el(
        'tr',
        { 'data-testid': 'freshness-row', 'data-endpoint': c.endpoint_name, 'data-role': 'candidate' },
        el('td', { className: 'endpoint' }, c.endpoint_name, el('div', { className: 'muted small' }, 'candidate')),
        el('td', { 'data-field': 'status' }, badge(c.status, c.status), el('div', { className: 'muted small' }, reasonOf(c.reason))),
        lagCell(c, 'p50'),
        lagCell(c, 'p95'),
        el(
          'td',
          { className: `num${c.missed > 0 ? ' bad' : ''}`, 'data-field': 'missed' },
          `${fmtInt(c.missed)} of ${fmtInt(c.judged)}`,
          isNum(c.missed_pct) ? el('span', { className: 'muted small' }, ` (${fmtPct(c.missed_pct)})`) : null,
          c.unjudged > 0 ? el('div', { className: 'muted small', 'data-field': 'unjudged' }, `${fmtInt(c.unjudged)} not judged`) : null,
        ),
        count('late', c.late, c.late > 0),
        el('td', { className: `num${stallBad ? ' bad' : ''}`, 'data-field': 'longest_stall' }, stall(c.longest_stall_ms)),
        count('duplicates', c.duplicates, false),
        count('reorgs', c.reorgs, false),
        count('reconnects', c.reconnects, c.reconnects > 0),
      );
    });
    const r = f.reference;
    rows.push(
      el(
        'tr',
        { 'data-testid': 'freshness-row', 'data-endpoint': r.endpoint_name, 'data-role': 'reference' },
        el('td', { className: 'endpoint' }, r.endpoint_name, el('div', { className: 'muted small' }, 'reference')),
        el('td', { className: 'muted' }, `${fmtInt(r.heads)} heads announced`),
        el('td', { className: 'num muted' }, '—'),
        el('td', { className: 'num muted' }, '—'),
        el('td', { className: 'num muted' }, '—'),
        el('td', { className: 'num muted' }, '—'),
        el('td', { className: 'num', 'data-field': 'longest_stall' }, stall(r.longest_stall_ms)),
        count('duplicates', r.duplicates, false),
        count('reorgs', r.reorgs, false),
        count('reconnects', r.reconnects, r.reconnects > 0),
      ),
    );
    const head = el(
      'tr',
      null,
      ['Endpoint', 'Check', 'Lag p50 [95% CI]', 'Lag p95 [95% CI]', 'Missed', 'Late', 'Longest stall', 'Duplicates', 'Reorgs', 'Reconnects'].map((h, i) =>
        el('th', { className: i >= 2 ? 'num' : null }, h),
      ),
    );
    const node = byId('freshness-table');
    node.className = 'data';
    node.replaceChildren(el('thead', null, head), el('tbody', null, rows));
  }

  const FRESHNESS_REASONS = {
    nothing_judged: 'no reference head could be judged',
    missed_above_limit: 'missed more heads than allowed',
    stall_above_limit: 'stalled longer than allowed',
    lag_above_limit: 'lag p95 above the limit',
    lag_straddles_limit: 'lag p95 interval straddles the limit',
    within_limits: 'within the limits',
  };
  function reasonOf(reason) {
    return FRESHNESS_REASONS[reason] || '';
  }

  /**
   * The crosses of a candidate, in the table's words and numbers: "missed" only for heads judged and
   * not announced within grace, "not judged" for those whose grace window the observer did not see whole.
   */
  function headsUnmatched(f, target, name) {
    const c = (f.candidates || []).find((x) => (target && x.endpoint_id === target.endpoint_id) || x.endpoint_name === name);
    if (!c) return [];
    return [c.missed > 0 ? `${fmtInt(c.missed)} missed` : null, c.unjudged > 0 ? `${fmtInt(c.unjudged)} not judged` : null].filter(Boolean);
  }

  function renderFreshnessChart(data, f, loaded) {
    if (loaded.error) {
      fill('chart-freshness', emptyNote(`Could not load the heads: ${loaded.error}`));
      fill('legend-freshness');
      return;
    }
    const targets = (data.metrics && data.metrics.targets) || [];
    const reference = targets.find((t) => t.role === 'reference');
    const candidates = targets.filter((t) => t.role !== 'reference');
    if (!reference || candidates.length === 0) {
      fill('chart-freshness', emptyNote('No reference head to compare with.'));
      fill('legend-freshness');
      return;
    }
    const series = arrivalLags(loaded.arrivals, reference.target_id, candidates.map((t) => t.target_id), f.via, f.grace_ms);
    const all = series.flatMap((s) => s.points);
    const numbers = series.flatMap((s) => [...s.points.map((p) => p.number), ...s.unmatched]);
    if (numbers.length === 0) {
      fill('chart-freshness', emptyNote('The watch stored no reference head.'));
      fill('legend-freshness');
      return;
    }
    const colours = seriesColours(targets);
    const check = (data.verdict.checks || []).find((c) => c.name === 'freshness_vs_reference');
    const limit = check && check.details ? check.details.head_lag_p95_max_ms : null;
    const maxLag = Math.max(0, ...all.map((p) => p.lag));
    const minLag = Math.min(0, ...all.map((p) => p.lag));
    const showLimit = isNum(limit) && limit <= Math.max(maxLag, 1) * 1.5;
    const scale = niceScale(Math.max(maxLag, showLimit ? limit : 0, 1) * 1.08, 5);
    const low = minLag < 0 ? -Math.ceil(-minLag / scale.step) * scale.step : 0;
    let n0 = Math.min(...numbers);
    let n1 = Math.max(...numbers);
    if (n1 - n0 < 2) {
      n0 -= 1;
      n1 += 1;
    }
    const plotW = CHART.width - CHART.left - CHART.right;
    const plotH = CHART.height - CHART.top - CHART.bottom;
    const x = (n) => CHART.left + ((n - n0) / (n1 - n0)) * plotW;
    const y = (v) => CHART.top + plotH - ((v - low) / (scale.max - low)) * plotH;

    const root = chartFrame('Arrival lag behind the reference, per block, per candidate');
    for (let v = low; v <= scale.max + 1e-9; v += scale.step) {
      const yy = y(v);
      root.append(
        svg('line', { x1: CHART.left, x2: CHART.width - CHART.right, y1: yy, y2: yy, className: Math.abs(v) < 1e-9 ? 'axis' : 'grid' }),
        svg('text', { x: CHART.left - 8, y: yy + 4, className: 'tick', 'text-anchor': 'end' }, `${Number(v.toFixed(2))}`),
      );
    }
    const midY = CHART.top + plotH / 2;
    root.append(svg('text', { x: 14, y: midY, className: 'axis-title', 'text-anchor': 'middle', transform: `rotate(-90 14 ${midY})` }, 'arrival lag (ms)'));
    // Whole blocks, evenly spaced: at most about six ticks.
    const xStep = Math.max(1, Math.ceil((n1 - n0) / 6));
    for (let n = n0; n <= n1; n += xStep) {
      root.append(svg('text', { x: x(n), y: CHART.height - CHART.bottom + 18, className: 'tick', 'text-anchor': n === n0 ? 'start' : 'middle' }, fmtInt(n)));
    }
    root.append(svg('text', { x: CHART.left + plotW / 2, y: CHART.height - 6, className: 'axis-title', 'text-anchor': 'middle' }, 'block height'));
    if (showLimit) {
      root.append(
        svg('line', { x1: CHART.left, x2: CHART.width - CHART.right, y1: y(limit), y2: y(limit), className: 'threshold' }),
        svg('text', { x: CHART.width - CHART.right - 4, y: y(limit) - 5, className: 'threshold-label', 'text-anchor': 'end' }, `lag p95 limit ${fmtMs(limit)}`),
      );
    }
    const legend = [];
    const names = new Map(targets.map((t) => [t.target_id, t.endpoint_name]));
    for (const s of series) {
      const colour = colours.get(s.targetId);
      const name = names.get(s.targetId) || 'candidate';
      const group = svg('g', { className: 'series', 'data-testid': 'freshness-series', 'data-target': s.targetId, 'data-endpoint': name, 'data-points': s.points.length, 'data-unmatched': s.unmatched.length });
      // A head without a lag breaks the line: a gap is a head missed (or not judged), never bridged.
      const matched = new Set(s.points.map((p) => p.number));
      let d = '';
      let previous = null;
      for (const p of s.points) {
        const gap = previous === null || s.unmatched.some((u) => u > previous && u < p.number) || !matched.has(p.number);
        d += `${gap ? 'M' : 'L'}${x(p.number).toFixed(1)},${y(p.lag).toFixed(1)} `;
        previous = p.number;
      }
      if (d) group.append(svg('path', { d: d.trim(), fill: 'none', stroke: colour, 'stroke-width': 2, 'stroke-linejoin': 'round' }));
      if (s.points.length <= 400) {
        for (const p of s.points) {
          group.append(
            svg('circle', { cx: x(p.number).toFixed(1), cy: y(p.lag).toFixed(1), r: 3, fill: colour, stroke: '#fff', 'stroke-width': 1 }, svg('title', null, `${name}: block ${p.number} arrived ${fmtMs(p.lag)} after the reference`)),
          );
        }
      }
      // Heads not announced within grace: a cross on the axis, in the candidate's colour.
      const axisY = y(low) - 6;
      for (const n of s.unmatched) {
        group.append(
          svg(
            'path',
            { d: `M${(x(n) - 4).toFixed(1)},${(axisY - 4).toFixed(1)} l8,8 m0,-8 l-8,8`, stroke: colour, 'stroke-width': 2, 'data-kind': 'unmatched' },
            svg('title', null, `${name}: block ${n} not announced within ${fmtMs(f.grace_ms)} (missed, or not judged: see the table)`),
          ),
        );
      }
      root.append(group);
      legend.push(legendItem(colour, `${name} (${[`${s.points.length} heads`, ...headsUnmatched(f, targets.find((t) => t.target_id === s.targetId), name)].join(', ')})`, 'solid'));
    }
    if (loaded.truncated) legend.push(el('span', { className: 'legend-item muted' }, `the first ${fmtInt(loaded.arrivals.length)} stored arrivals only`));
    fill('chart-freshness', root);
    fill('legend-freshness', legend);
  }

  function render(data) {
    const f = data.verdict && data.verdict.freshness_comparison;
    const section = byId('freshness-section');
    section.hidden = !f;
    if (!f) return;
    const resolution = isNum(f.resolution_ms) ? `; polled every ${f.resolution_ms} ms, so an arrival is known to within that` : '';
    byId('freshness-subtitle').textContent = `(${f.duration_s} s via ${f.via}${resolution})`;
    const notes = [
      'Arrival lag: when the candidate first announced a block minus when the reference did, on one clock (negative: the candidate was first). ' +
        `Missed: not announced within ${fmtMs(f.grace_ms)} (grace); late: announced more than ${fmtMs(f.late_ms)} after the reference. ` +
        'Longest stall: the longest time without a new head.',
      ...(f.observer_gaps || []).map((g) => `The observer was gone from ${(g.from_ms / 1000).toFixed(1)} s to ${(g.to_ms / 1000).toFixed(1)} s (a worker lost): heads then were not judged.`),
    ];
    fill('freshness-note', notes.map((n) => el('span', { className: 'block' }, n)));
    renderFreshnessTable(data, f);
    if (headsLoad === null) {
      fill('chart-freshness', emptyNote('Loading the heads…'));
      headsLoad = fetchHeads().then(
        (loaded) => loaded,
        (error) => ({ error: error && error.message ? error.message : String(error) }),
      );
    }
    void headsLoad.then((loaded) => {
      renderFreshnessChart(data, f, loaded);
      byId('freshness-section').dataset.state = 'loaded';
    });
  }

  window.RvsChecks.register({ name: 'freshness_vs_reference', render });
})();
