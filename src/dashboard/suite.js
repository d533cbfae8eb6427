/*
 * Suite trend page, reached from a run page: the p95 of the suite's finished runs, the baseline
 * history band in force at each, and each run's verdict. Vanilla JS, no dependencies.
 *
 * Safety rule (as dashboard.js): every value from the API reaches the DOM as text, never as HTML.
 */
/* global document, window, fetch, location, URLSearchParams */
(function () {
  'use strict';

  const RUN_STATES = { success: 'completed', failed: 'failed', cancelled: 'cancelled' };
  const VERDICT_COLOURS = { pass: '#059669', fail: '#dc2626', error: '#6b7280' };
  const CHART = { width: 900, height: 320, left: 62, right: 16, top: 16, bottom: 44 };

  const { el, svg, byId, isNum } = window.RvsDom;
  const { niceScale } = window.RvsChart;
  const fmtMs = (v) => (isNum(v) ? `${v.toLocaleString('en-US', { maximumFractionDigits: 1 })} ms` : '—');
  const fmtTime = (iso) => (iso ? new Date(iso).toISOString().replace('T', ' ').replace(/\.\d+Z$/, ' UTC') : '—');
  // An interval is rounded together with its point (interval.js): the point is never shown outside it.
  const fmtRange = (i) => (i && isNum(i.lower) && isNum(i.point) ? window.RvsInterval.range(i) : '');
  const fmtPoint = (i, fallback) => (i && isNum(i.lower) && isNum(i.point) ? window.RvsInterval.point(i) : fmtMs(fallback));

  const params = new URLSearchParams(location.search);
  const token = params.get('token') || '';
  // /dashboard/runs/<runId>/suite
  const parts = location.pathname.split('/').filter(Boolean);
  const runId = decodeURIComponent(parts[parts.length - 2] || '');
  const apiUrl = `/dashboard/api/runs/${encodeURIComponent(runId)}/suite?token=${encodeURIComponent(token)}`;
  // Each listed run's page with the link the API made for it (read-only, expiring with this one).
  let runLinks = new Map();
  const runPage = (id) =>
    id === runId ? `/dashboard/runs/${encodeURIComponent(id)}?token=${encodeURIComponent(token)}` : runLinks.get(id) || `/dashboard/runs/${encodeURIComponent(id)}`;

  function showError(text) {
    const banner = byId('error-banner');
    banner.textContent = text;
    banner.hidden = !text;
  }

  function renderChart(points) {
    const holder = byId('chart-trend');
    holder.replaceChildren();
    const series = [...points].reverse(); // oldest left
    if (series.length === 0) {
      holder.append(el('p', { className: 'muted' }, 'No finished runs yet.'));
      return;
    }
    const values = series.flatMap((p) => {
      const i = p.candidate.intervals_ms && p.candidate.intervals_ms.p95;
      const l = p.baseline && p.baseline.limits;
      return [p.candidate.p95_ms, i && i.upper, l && l.history_upper_ms].filter(isNum);
    });
    const scale = niceScale(Math.max(1, ...values), 5);
    const plotW = CHART.width - CHART.left - CHART.right;
    const plotH = CHART.height - CHART.top - CHART.bottom;
    // Inset so the first and last run's band stays inside the plot.
    const inset = series.length === 1 ? 0 : Math.min(24, plotW / series.length / 2);
    const x = (i) => CHART.left + (series.length === 1 ? plotW / 2 : inset + (i / (series.length - 1)) * (plotW - 2 * inset));
    const y = (v) => CHART.top + plotH - (Math.min(v, scale.max) / scale.max) * plotH;
    const root = svg('svg', { viewBox: `0 0 ${CHART.width} ${CHART.height}`, role: 'img', 'aria-label': 'candidate p95 per run', className: 'chart-svg', preserveAspectRatio: 'xMidYMid meet' });
    for (let v = 0; v <= scale.max + 1e-9; v += scale.step) {
      root.append(
        svg('line', { x1: CHART.left, x2: CHART.width - CHART.right, y1: y(v), y2: y(v), className: v === 0 ? 'axis' : 'grid' }),
        svg('text', { x: CHART.left - 8, y: y(v) + 4, className: 'tick', 'text-anchor': 'end' }, fmtMs(v).replace(' ms', '')),
      );
    }
    root.append(svg('text', { x: 14, y: CHART.top + plotH / 2, className: 'axis-title', 'text-anchor': 'middle', transform: `rotate(-90 14 ${CHART.top + plotH / 2})` }, 'p95 (ms)'));
    root.append(svg('text', { x: CHART.left + plotW / 2, y: CHART.height - 6, className: 'axis-title', 'text-anchor': 'middle' }, `${series.length} finished runs, oldest → newest`));

    // The history band: for each run judged against a history, the limits in force (lower … upper, median).
    const half = series.length === 1 ? 20 : Math.min(20, inset, (plotW - 2 * inset) / (series.length - 1) / 2);
    const band = svg('g', { 'data-testid': 'history-band' });
    series.forEach((p, i) => {
      const l = p.baseline && p.baseline.limits;
      if (!l || !isNum(l.history_upper_ms)) return;
      const lower = isNum(l.history_lower_ms) ? l.history_lower_ms : 0;
      band.append(
        svg('rect', { x: x(i) - half, width: 2 * half, y: y(l.history_upper_ms), height: Math.max(1, y(lower) - y(l.history_upper_ms)), fill: '#2563eb', 'fill-opacity': 0.12, 'data-run': p.run_id },
          svg('title', null, `history limits in force: ${fmtMs(lower)} … ${fmtMs(l.history_upper_ms)} (median ${fmtMs(l.history_median_ms)})`)),
      );
      if (isNum(l.history_median_ms)) {
        band.append(svg('line', { x1: x(i) - half, x2: x(i) + half, y1: y(l.history_median_ms), y2: y(l.history_median_ms), stroke: '#2563eb', 'stroke-width': 1.5, 'stroke-dasharray': '4 3' }));
      }
    });
    root.append(band);

    const line = series.map((p, i) => (isNum(p.candidate.p95_ms) ? [x(i), y(p.candidate.p95_ms)] : null)).filter(Boolean);
    if (line.length > 1) root.append(svg('path', { d: line.map(([a, b], i) => `${i ? 'L' : 'M'}${a.toFixed(1)},${b.toFixed(1)}`).join(''), fill: 'none', stroke: '#334155', 'stroke-width': 2 }));

    const marks = svg('g', { 'data-testid': 'trend-points' });
    series.forEach((p, i) => {
      if (!isNum(p.candidate.p95_ms)) return;
      const interval = p.candidate.intervals_ms && p.candidate.intervals_ms.p95;
      if (interval) {
        const top = interval.upper === null ? scale.max : interval.upper;
        // An interval unbounded above (too few samples) runs dashed to the top of the plot.
        marks.append(svg('line', { x1: x(i), x2: x(i), y1: y(interval.lower), y2: y(top), stroke: '#334155', 'stroke-width': 1.5, 'stroke-dasharray': interval.upper === null ? '3 3' : null }));
      }
      const link = svg('a', { href: runPage(p.run_id) });
      const colour = VERDICT_COLOURS[p.verdict] || '#6b7280';
      // A run of another branch than the baseline's is hollow: it compared against the baseline, never joined it.
      const onBaseline = p.on_baseline_branch !== false;
      link.append(
        svg('circle', { cx: x(i), cy: y(p.candidate.p95_ms), r: 6, fill: onBaseline ? colour : '#fff', stroke: onBaseline ? '#fff' : colour, 'stroke-width': onBaseline ? 1.5 : 2.5, 'data-verdict': p.verdict, 'data-run': p.run_id, 'data-baseline-branch': String(onBaseline) },
          svg('title', null, `${fmtTime(p.finished_at)}: p95 ${fmtPoint(interval, p.candidate.p95_ms)} ${fmtRange(interval)}, verdict ${p.verdict}${branchText(p) ? `, ${branchText(p)}` : ''}`)),
      );
      marks.append(link);
    });
    root.append(marks);
    holder.append(root);

    const legend = byId('legend-trend');
    legend.replaceChildren(
      ...Object.entries(VERDICT_COLOURS).map(([verdict, colour]) =>
        el('span', { className: 'legend-item' }, svg('svg', { width: 14, height: 14, viewBox: '0 0 14 14', 'aria-hidden': 'true' }, svg('circle', { cx: 7, cy: 7, r: 6, fill: colour })), ` ${verdict}`)),
      el('span', { className: 'legend-item' }, svg('svg', { width: 14, height: 14, viewBox: '0 0 14 14', 'aria-hidden': 'true' }, svg('circle', { cx: 7, cy: 7, r: 5, fill: '#fff', stroke: '#334155', 'stroke-width': 2 })), ' other branch (compared, never joins the baseline)'),
      el('span', { className: 'legend-item' }, svg('svg', { width: 26, height: 12, viewBox: '0 0 26 12', 'aria-hidden': 'true' }, svg('rect', { x: 2, y: 1, width: 22, height: 10, fill: '#2563eb', 'fill-opacity': 0.2 })), ' history limits (dashed: median)'),
    );
  }

  /** "feature/x @ 1a2b3c4", the branch alone, the commit alone, or '' when the trigger named neither. */
  function branchText(p) {
    const commit = p.commit ? p.commit.slice(0, 7) : '';
    if (p.branch && commit) return `${p.branch} @ ${commit}`;
    return p.branch || commit;
  }

  function baselineText(b) {
    if (!b) return '—';
    const l = b.limits;
    if (!l) return b.model || '—';
    if (isNum(l.history_upper_ms)) return `${b.model}: ≤ ${fmtMs(l.history_upper_ms)} (median ${fmtMs(l.history_median_ms)})`;
    return `${b.model}: ≤ +${l.max_pct}% (floor ${fmtMs(l.floor_ms)})`;
  }

  function renderTable(points) {
    const head = ['Run', 'Finished', 'Branch', 'Verdict', 'Run state', 'p50 [95%]', 'p95 [95%]', 'p99 [95%]', 'Match rate', 'Baseline limits'];
    // The point, and under it the 95% interval of that percentile.
    const percentileCell = (p, key) => {
      const q = p.candidate.intervals_ms && p.candidate.intervals_ms[key];
      return el('td', { className: 'num', 'data-field': key },
        el('span', { 'data-field': 'point' }, fmtPoint(q, p.candidate[`${key}_ms`])),
        q ? el('span', { className: 'interval', 'data-field': 'interval', title: '95% confidence interval (ms)' }, fmtRange(q)) : null);
    };
    const rows = points.map((p) =>
      el('tr', { 'data-run': p.run_id },
        el('td', null, el('a', { href: runPage(p.run_id), 'data-testid': 'run-link' }, `${p.run_id.slice(0, 8)}${p.run_id === runId ? ' (this run)' : ''}`)),
        el('td', null, fmtTime(p.finished_at)),
        el('td', { 'data-field': 'branch', title: p.commit || '' },
          branchText(p) || '—',
          p.on_baseline_branch === false ? null : el('span', { className: 'badge', 'data-testid': 'baseline-branch', title: 'on the baseline branch: may join the baseline' }, 'baseline')),
        el('td', null, el('span', { className: `badge status-${p.verdict}`, 'data-testid': 'trend-verdict' }, p.verdict)),
        // The run's own state, not its outcome: `success` means it completed.
        el('td', null, el('span', { className: `badge run-state status-${p.status}`, 'data-testid': 'trend-run-state' }, RUN_STATES[p.status] || p.status)),
        percentileCell(p, 'p50'),
        percentileCell(p, 'p95'),
        percentileCell(p, 'p99'),
        el('td', { className: 'num' }, isNum(p.match_rate_pct) ? `${p.match_rate_pct}%` : '—'),
        el('td', null, baselineText(p.baseline)),
      ),
    );
    byId('trend-table').replaceChildren(el('thead', null, el('tr', null, head.map((h) => el('th', null, h)))), el('tbody', null, rows));
  }

  async function start() {
    byId('back-link').setAttribute('href', runPage(runId));
    let response;
    try {
      response = await fetch(apiUrl, { cache: 'no-store', credentials: 'omit', referrerPolicy: 'no-referrer', headers: { accept: 'application/json' } });
    } catch {
      showError('Could not reach the service.');
      return;
    }
    if (!response.ok) {
      byId('app').dataset.state = response.status === 403 ? 'forbidden' : 'error';
      showError(response.status === 403 ? 'This dashboard link is invalid or has expired.' : `The service answered ${response.status}.`);
      return;
    }
    const data = await response.json();
    // Only paths of this page's own origin are followed.
    runLinks = new Map((data.run_links || []).filter((l) => typeof l.path === 'string' && l.path.startsWith('/dashboard/runs/')).map((l) => [l.run_id, l.path]));
    byId('suite-title').textContent = data.suite.name;
    document.title = `${data.suite.name} · Suite trend`;
    byId('suite-subtitle').textContent = `Suite ${data.suite.id} · ${data.trend.pagination.total} finished runs (the newest ${data.trend.data.length} shown)`;
    renderChart(data.trend.data);
    renderTable(data.trend.data);
    if (data.link_expires_at) byId('links-note').textContent = `Each run opens read-only with a link of its own; every link on this page expires when this one does, ${fmtTime(data.link_expires_at)}.`;
    byId('footer').textContent = `Data as of ${fmtTime(data.generated_at)}.`;
    byId('app').dataset.state = 'ready';
  }

  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
  else void start();
})();
