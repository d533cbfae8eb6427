/*
 * The dashboard's SVG charts: one frame and size, a 1-2-5 axis scale (the suite page's too), the y
 * axis, legend items, and the series colours (the reference always orange, candidates from one palette).
 */
/* global window */
(function () {
  'use strict';

  const { el, svg } = window.RvsDom;

  const CANDIDATE_COLOURS = ['#2563eb', '#059669', '#7c3aed', '#0891b2', '#be185d'];
  const REFERENCE_COLOUR = '#ea580c';

  function seriesColours(targets) {
    const colours = new Map();
    let next = 0;
    for (const t of targets) {
      colours.set(t.target_id, t.role === 'reference' ? REFERENCE_COLOUR : CANDIDATE_COLOURS[next++ % CANDIDATE_COLOURS.length]);
    }
    return colours;
  }

  /** A "nice" axis maximum and tick step (1-2-5 steps) covering [0, max]. */
  function niceScale(max, ticks) {
    if (!(max > 0)) return { max: 1, step: 0.25 };
    const raw = max / ticks;
    const magnitude = 10 ** Math.floor(Math.log10(raw));
    const step = [1, 2, 2.5, 5, 10].map((m) => m * magnitude).find((s) => s >= raw) || 10 * magnitude;
    return { max: Math.ceil(max / step - 1e-9) * step, step };
  }

  const CHART = { width: 640, height: 300, left: 58, right: 16, top: 16, bottom: 44 };

  function chartFrame(label) {
    return svg('svg', {
      viewBox: `0 0 ${CHART.width} ${CHART.height}`,
      role: 'img',
      'aria-label': label,
      className: 'chart-svg',
      preserveAspectRatio: 'xMidYMid meet',
    });
  }

  function yAxis(root, scale, y, format, title) {
    for (let v = 0; v <= scale.max + 1e-9; v += scale.step) {
      const yy = y(v);
      root.append(
        svg('line', { x1: CHART.left, x2: CHART.width - CHART.right, y1: yy, y2: yy, className: v === 0 ? 'axis' : 'grid' }),
        svg('text', { x: CHART.left - 8, y: yy + 4, className: 'tick', 'text-anchor': 'end' }, format(v)),
      );
    }
    root.append(
      svg('text', { x: 14, y: CHART.top + (CHART.height - CHART.top - CHART.bottom) / 2, className: 'axis-title', 'text-anchor': 'middle', transform: `rotate(-90 14 ${CHART.top + (CHART.height - CHART.top - CHART.bottom) / 2})` }, title),
    );
  }

  function legendItem(colour, label, kind) {
    const swatch = svg('svg', { width: 26, height: 12, viewBox: '0 0 26 12', 'aria-hidden': 'true' });
    if (kind === 'rect') swatch.append(svg('rect', { x: 4, y: 1, width: 18, height: 10, rx: 2, fill: colour }));
    else swatch.append(svg('line', { x1: 1, x2: 25, y1: 6, y2: 6, stroke: colour, 'stroke-width': kind === 'dashed' ? 2 : 3, 'stroke-dasharray': kind === 'dashed' ? '5 3' : null }));
    return el('span', { className: 'legend-item' }, swatch, label);
  }

  window.RvsChart = Object.freeze({ CHART, CANDIDATE_COLOURS, REFERENCE_COLOUR, seriesColours, niceScale, chartFrame, yAxis, legendItem });
})();
