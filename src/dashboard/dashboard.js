/*
 * Run dashboard. Vanilla JS, no dependencies, served by the API itself.
 *
 * Safety rule: every value that comes from the API reaches the DOM as text (textContent, text
 * nodes, setAttribute) — never as HTML. The Content-Security-Policy forbids inline scripts too.
 */
/* global document, window, fetch, location, URLSearchParams, atob */
(function () {
  'use strict';

  const TERMINAL = ['success', 'failed', 'cancelled'];
  const KNOWN_STATUSES = ['queued', 'claimed', 'running', 'success', 'failed', 'cancelled', 'pending', 'pass', 'fail', 'inconclusive', 'error'];
  const REFRESH_MS = 2000;
  const MAX_RETRY_MS = 10000;
  const CANDIDATE_COLOURS = ['#2563eb', '#059669', '#7c3aed', '#0891b2', '#be185d'];
  const REFERENCE_COLOUR = '#ea580c';

  // ---------------------------------------------------------------- DOM helpers (text only)

  const { append, el, svg, byId, isNum } = window.RvsDom;

  function fill(id, ...children) {
    const node = byId(id);
    node.replaceChildren();
    return append(node, children);
  }

  // ---------------------------------------------------------------- formatting

  function fmtMs(v) {
    if (!isNum(v)) return '—';
    if (Math.abs(v) >= 100 || Number.isInteger(v)) return `${Math.round(v)} ms`;
    return `${Number(v.toFixed(v < 1 ? 2 : 1))} ms`;
  }

  function fmtPct(v, signed) {
    if (!isNum(v)) return '—';
    const text = `${Number(v.toFixed(1))}%`;
    return signed && v > 0 ? `+${text}` : text;
  }

  function fmtInt(v) {
    return isNum(v) ? v.toLocaleString('en-US') : '—';
  }

  function fmtTime(iso) {
    if (!iso) return '—';
    const d = new Date(iso);
    if (Number.isNaN(d.getTime())) return '—';
    return `${d.toISOString().slice(0, 19).replace('T', ' ')} UTC`;
  }

  function fmtClock(date) {
    return date.toISOString().slice(11, 19);
  }

  function fmtDuration(fromIso, toIso) {
    if (!fromIso) return '—';
    const ms = (toIso ? new Date(toIso) : new Date()).getTime() - new Date(fromIso).getTime();
    if (!Number.isFinite(ms) || ms < 0) return '—';
    if (ms < 1000) return `${ms} ms`;
    const s = ms / 1000;
    if (s < 60) return `${s.toFixed(1)} s`;
    const m = Math.floor(s / 60);
    return m < 60 ? `${m} min ${Math.round(s % 60)} s` : `${Math.floor(m / 60)} h ${m % 60} min`;
  }

  function roleLabel(role) {
    return role === 'reference' ? 'reference' : 'candidate';
  }

  function badge(status, text) {
    const known = KNOWN_STATUSES.includes(status) ? status : 'unknown';
    return el('span', { className: `badge status-${known}`, 'data-status': known }, text === undefined ? String(status) : text);
  }

  function setBadge(id, status, text) {
    const node = byId(id);
    const known = KNOWN_STATUSES.includes(status) ? status : 'unknown';
    node.className = `badge status-${known}`;
    node.dataset.status = known;
    node.textContent = text;
  }

  function table(head, rows, attrs) {
    return el(
      'table',
      attrs,
      el('thead', null, head),
      el('tbody', null, rows),
    );
  }

  function emptyNote(text) {
    return el('p', { className: 'empty' }, text);
  }

  // ---------------------------------------------------------------- the link's own token

  const params = new URLSearchParams(location.search);
  const token = params.get('token') || '';
  const runId = decodeURIComponent(location.pathname.split('/').filter(Boolean).pop() || '');
  const apiUrl = `/dashboard/api/runs/${encodeURIComponent(runId)}?token=${encodeURIComponent(token)}`;

  /** The token's payload is base64url JSON {run, exp}; shown only to tell the reader when the link expires. */
  function linkExpiry() {
    try {
      const payload = token.split('.')[0].replace(/-/g, '+').replace(/_/g, '/');
      const claims = JSON.parse(atob(payload));
      return isNum(claims.exp) ? new Date(claims.exp * 1000) : null;
    } catch {
      return null;
    }
  }

  // ---------------------------------------------------------------- header and progress

  function targetName(run, targetId) {
    const target = (run.targets || []).find((t) => t.id === targetId);
    return target ? `${target.endpoint_name} (${roleLabel(target.role)})` : targetId || '—';
  }

  function renderHeader(data) {
    const { run, verdict } = data;
    byId('run-title').textContent = run.suite && run.suite.name ? run.suite.name : 'Run';
    document.title = `${run.suite ? run.suite.name : 'Run'} · ${run.status} · Run dashboard`;
    const chain = run.chain ? `${run.chain.name} (${run.chain.slug})` : '—';
    byId('run-subtitle').textContent = `Run ${run.id} · chain ${chain} · triggered by ${run.triggered_by}`;
    setBadge('run-status', run.status, run.status);
    if (verdict) setBadge('verdict-badge', verdict.verdict, `verdict: ${verdict.verdict}`);
    else setBadge('verdict-badge', 'pending', TERMINAL.includes(run.status) ? 'verdict: —' : 'verdict pending');
    byId('verdict-summary').textContent = verdict ? verdict.summary : 'The verdict is computed when the run has finished.';

    const progress = byId('progress');
    const planned = run.progress ? run.progress.calls_planned : null;
    const done = run.progress ? run.progress.calls_done : 0;
    if (isNum(planned) && planned > 0) {
      progress.max = planned;
      progress.value = Math.min(done, planned);
      byId('progress-text').textContent = `${fmtInt(done)} / ${fmtInt(planned)} calls (${Math.floor((Math.min(done, planned) / planned) * 100)}%)`;
    } else {
      if (TERMINAL.includes(run.status)) {
        progress.max = 1;
        progress.value = 1;
      } else {
        progress.removeAttribute('value');
      }
      byId('progress-text').textContent = `${fmtInt(done)} calls`;
    }

    const facts = [
      ['Requested', fmtTime(run.requested_at)],
      ['Started', fmtTime(run.started_at)],
      ['Finished', fmtTime(run.finished_at)],
      ['Duration', fmtDuration(run.started_at, run.finished_at)],
      ['Retries', fmtInt(run.retry_count)],
    ];
    if (run.failure_reason) facts.push(['Failure', run.failure_reason]);
    if (run.baseline_run_id) facts.push(['Baseline run', run.baseline_run_id]);
    const metadata = run.metadata && Object.keys(run.metadata).length > 0 ? JSON.stringify(run.metadata) : null;
    if (metadata) facts.push(['Metadata', metadata.length > 200 ? `${metadata.slice(0, 200)}…` : metadata]);
    fill('run-facts', facts.map(([k, v]) => [el('dt', null, k), el('dd', { title: v }, v)]));

    const link = byId('temporal-link');
    const url = typeof data.temporal_ui_url === 'string' && /^https?:\/\//.test(data.temporal_ui_url) ? data.temporal_ui_url : null;
    link.hidden = !url;
    byId('temporal-missing').hidden = Boolean(url);
    if (url) link.setAttribute('href', url);
  }

  // ---------------------------------------------------------------- checks

  function checkMeasure(check) {
    const d = check.details || {};
    switch (check.name) {
      case 'latency_p95':
        return [`p95 ${fmtMs(d.p95)}`, `≤ ${fmtMs(d.threshold)}`];
      case 'latency_vs_reference':
        return [`${fmtPct(d.vs_reference_pct, true)} (${fmtMs(d.candidate_p95_ms)} vs ${fmtMs(d.reference_p95_ms)})`, `≤ ${fmtPct(d.max_pct, true)}`];
      case 'latency_vs_baseline':
        return [`${fmtPct(d.vs_baseline_pct, true)} (${fmtMs(d.candidate_p95_ms)} vs ${fmtMs(d.baseline_p95_ms)})`, `≤ ${fmtPct(d.max_pct, true)}`];
      case 'availability':
        return [
          isNum(d.success_rate_pct) ? `${fmtPct(d.success_rate_pct)} ok (${fmtInt(d.successful)} / ${fmtInt(d.calls)})` : 'no calls',
          `≥ ${fmtPct(d.min_pct)}`,
        ];
      case 'correctness':
        return [
          isNum(d.match_rate_pct) ? `${fmtPct(d.match_rate_pct)} match (${fmtInt(d.matched)} / ${fmtInt(d.compared)})` : 'nothing compared',
          `≥ ${fmtPct(d.min_pct)}`,
        ];
      default:
        return [
          Object.entries(d)
            .filter(([, v]) => typeof v !== 'object')
            .map(([k, v]) => `${k}: ${v}`)
            .join(', ') || '—',
          '—',
        ];
    }
  }

  function renderChecks(data) {
    const { verdict, run } = data;
    if (!verdict) {
      fill('checks', emptyNote(TERMINAL.includes(run.status) ? 'No verdict recorded for this run.' : 'Checks are judged when the run has finished.'));
      return;
    }
    if (!verdict.checks || verdict.checks.length === 0) {
      fill('checks', emptyNote(verdict.summary || 'Nothing was judged.'));
      return;
    }
    const rows = verdict.checks.map((check) => {
      const [measured, threshold] = checkMeasure(check);
      return el(
        'tr',
        { 'data-testid': `check-${check.name}`, 'data-check': check.name, 'data-status': check.status },
        el('td', { className: 'mono' }, check.name),
        el('td', { 'data-testid': 'check-status' }, badge(check.status)),
        el('td', { className: 'num' }, measured),
        el('td', { className: 'num muted' }, threshold),
        el('td', { className: 'message' }, check.message),
      );
    });
    fill(
      'checks',
      table(
        el('tr', null, el('th', null, 'Check'), el('th', null, 'Status'), el('th', { className: 'num' }, 'Measured'), el('th', { className: 'num' }, 'Threshold'), el('th', null, 'Message')),
        rows,
        { className: 'data', id: 'checks-table', 'data-testid': 'checks-table' },
      ),
    );
  }

  // ---------------------------------------------------------------- stats

  function statsCells(stats, terminal) {
    // Statistics are aggregated when a target (or the run) finishes; zeros before that would mislead.
    if (!stats || !stats.calls || (!terminal && stats.calls.total === 0)) {
      return [el('td', { colspan: 11, className: 'muted' }, 'aggregated when it finishes')];
    }
    const s = stats.latency ? stats.latency.successful : null;
    const a = stats.latency ? stats.latency.all : null;
    const lat = (summary) =>
      ['avg_ms', 'p50_ms', 'p95_ms', 'p99_ms'].map((k, i) =>
        el('td', { className: `num${i === 0 ? ' group-start' : ''}`, 'data-field': k }, summary ? fmtMs(summary[k]) : '—'),
      );
    return [
      el('td', { className: 'num', 'data-field': 'calls_total' }, fmtInt(stats.calls.total)),
      el('td', { className: 'num', 'data-field': 'calls_successful' }, fmtInt(stats.calls.successful)),
      el('td', { className: `num${stats.calls.failed > 0 ? ' bad' : ''}`, 'data-field': 'calls_failed' }, fmtInt(stats.calls.failed)),
      lat(s),
      lat(a),
    ];
  }

  function renderStats(data) {
    const { run } = data;
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
        ['avg', 'p50', 'p95', 'p99'].map((h, i) => el('th', { className: `num${i === 0 ? ' group-start' : ''}` }, h)),
        ['avg', 'p50', 'p95', 'p99'].map((h, i) => el('th', { className: `num${i === 0 ? ' group-start' : ''}` }, h)),
      ),
    ];
    const rows = [
      el('tr', { className: 'total', 'data-testid': 'stats-row-run', 'data-scope': 'run' }, el('th', { scope: 'row' }, 'Candidates (run)'), statsCells(run.stats, TERMINAL.includes(run.status))),
    ];
    for (const target of run.targets || []) {
      rows.push(
        el(
          'tr',
          { 'data-testid': `stats-row-${target.role}`, 'data-scope': 'target', 'data-role': target.role },
          el('th', { scope: 'row' }, el('span', { className: 'target-name' }, target.endpoint_name), ' ', el('span', { className: 'muted small' }, `${roleLabel(target.role)} · ${target.status}`)),
          statsCells(target.metadata && target.metadata.stats, ['success', 'failed', 'cancelled'].includes(target.status)),
        ),
      );
    }
    const node = byId('stats-table');
    node.className = 'data stats';
    node.replaceChildren(el('thead', null, head), el('tbody', null, rows));
  }

  // ---------------------------------------------------------------- charts

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

  function renderTimeChart(data) {
    const metrics = data.metrics;
    const targets = (metrics && metrics.targets) || [];
    const withData = targets.filter((t) => t.buckets && t.buckets.length > 0);
    if (withData.length === 0) {
      fill('chart-latency-time', emptyNote('No samples yet.'));
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
      fill('chart-latency-histogram', emptyNote('No successful calls yet.'));
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

  // ---------------------------------------------------------------- comparisons

  function keyValues(pairs, attrs) {
    return el('dl', Object.assign({ className: 'kv' }, attrs), pairs.filter(Boolean).map(([k, v]) => [el('dt', null, k), el('dd', null, v)]));
  }

  function renderComparisons(data) {
    const v = data.verdict;
    const ref = v && v.reference_comparison;
    if (!v) fill('reference-comparison', emptyNote('Available when the run has finished.'));
    else if (!ref) fill('reference-comparison', emptyNote('This suite has no reference endpoint.'));
    else {
      const l = ref.latency || {};
      const parts = [
        keyValues([
          ['Endpoint', ref.endpoint_name],
          ['Status', badge(ref.status)],
          ['Candidate p50 / p95 / p99', `${fmtMs(l.candidate_p50_ms)} / ${fmtMs(l.candidate_p95_ms)} / ${fmtMs(l.candidate_p99_ms)}`],
          ['Reference p95', fmtMs(l.reference_p95_ms)],
          ['Candidate vs reference', fmtPct(l.vs_reference_pct, true)],
          isNum(ref.head_lag_blocks) ? ['Head lag', `${ref.head_lag_blocks} blocks`] : null,
          ['', l.message || ''],
        ]),
      ];
      if (Array.isArray(l.by_method) && l.by_method.length > 0) {
        parts.push(
          table(
            el('tr', null, ['Method', 'Calls', 'Failed', 'Candidate p95', 'Reference p95', 'vs reference'].map((hd, i) => el('th', { className: i ? 'num' : null }, hd))),
            l.by_method.map((m) =>
              el('tr', null, el('td', { className: 'mono' }, m.method), el('td', { className: 'num' }, fmtInt(m.calls)), el('td', { className: 'num' }, fmtInt(m.failed)), el('td', { className: 'num' }, fmtMs(m.candidate_p95_ms)), el('td', { className: 'num' }, fmtMs(m.reference_p95_ms)), el('td', { className: 'num' }, fmtPct(m.vs_reference_pct, true))),
            ),
            { className: 'data compact' },
          ),
        );
      }
      fill('reference-comparison', parts);
    }
    const base = v && v.baseline_comparison;
    if (!v) fill('baseline-comparison', emptyNote('Available when the run has finished.'));
    else if (!base) fill('baseline-comparison', emptyNote('No baseline run to compare with.'));
    else {
      fill(
        'baseline-comparison',
        keyValues([
          ['Baseline run', el('span', { className: 'mono small' }, base.run_id)],
          ['Status', badge(base.status)],
          ['Candidate p95', fmtMs(base.candidate_p95_ms)],
          ['Baseline p95', fmtMs(base.baseline_p95_ms)],
          ['Candidate vs baseline', fmtPct(base.vs_baseline_pct, true)],
          ['', base.message || ''],
        ]),
      );
    }
  }

  // ---------------------------------------------------------------- per method, mismatches, retries

  function renderMethods(data) {
    const rows = (data.metrics && data.metrics.by_method) || [];
    const node = byId('methods-table');
    node.className = 'data';
    if (rows.length === 0) {
      node.replaceChildren(el('tbody', null, el('tr', null, el('td', { className: 'empty' }, 'No samples yet.'))));
      return;
    }
    const sorted = rows.slice().sort((a, b) => a.method.localeCompare(b.method) || (a.role === 'reference') - (b.role === 'reference'));
    node.replaceChildren(
      el('thead', null, el('tr', null, ['Method', 'Target', 'Calls', 'Failed', 'Error rate', 'p50', 'p95', 'p99'].map((hd, i) => el('th', { className: i > 1 ? 'num' : null }, hd)))),
      el(
        'tbody',
        null,
        sorted.map((m) =>
          el(
            'tr',
            { 'data-method': m.method, 'data-role': m.role },
            el('td', { className: 'mono' }, m.method),
            el('td', null, targetName(data.run, m.target_id)),
            el('td', { className: 'num' }, fmtInt(m.calls)),
            el('td', { className: `num${m.failed > 0 ? ' bad' : ''}` }, fmtInt(m.failed)),
            el('td', { className: 'num' }, m.calls > 0 ? fmtPct((m.failed / m.calls) * 100) : '—'),
            el('td', { className: 'num' }, fmtMs(m.p50_ms)),
            el('td', { className: 'num' }, fmtMs(m.p95_ms)),
            el('td', { className: 'num' }, fmtMs(m.p99_ms)),
          ),
        ),
      ),
    );
  }

  function shorten(text, max) {
    return text.length > max ? `${text.slice(0, max)}…` : text;
  }

  function renderMismatches(data) {
    const check = data.verdict && (data.verdict.checks || []).find((c) => c.name === 'correctness');
    const section = byId('mismatches-section');
    const mismatches = check && check.details && Array.isArray(check.details.mismatches) ? check.details.mismatches : null;
    section.hidden = !check;
    const node = byId('mismatches');
    node.className = 'data';
    if (!check) return;
    if (!mismatches || mismatches.length === 0) {
      node.replaceChildren(el('tbody', null, el('tr', null, el('td', { className: 'empty' }, `No mismatches (${fmtInt(check.details && check.details.compared)} pairs compared).`))));
      return;
    }
    node.replaceChildren(
      el('thead', null, el('tr', null, ['Method', 'Params', 'Candidate hash', 'Reference hash'].map((hd) => el('th', null, hd)))),
      el(
        'tbody',
        null,
        mismatches.map((m) => {
          const params = JSON.stringify(m.params === undefined ? null : m.params);
          return el(
            'tr',
            { 'data-testid': 'mismatch-row' },
            el('td', { className: 'mono' }, m.method),
            el('td', { className: 'mono small', title: params }, shorten(params, 120)),
            el('td', { className: 'mono small', title: m.candidate_hash }, shorten(String(m.candidate_hash), 16)),
            el('td', { className: 'mono small', title: m.reference_hash }, shorten(String(m.reference_hash), 16)),
          );
        }),
      ),
    );
    if (check.details.mismatched > mismatches.length) {
      node.append(el('caption', { className: 'muted small' }, `The first ${mismatches.length} of ${fmtInt(check.details.mismatched)} mismatches.`));
    }
  }

  function renderRetries(data) {
    const history = data.run.retry_history || [];
    if (history.length === 0) {
      fill('retry-history', emptyNote('No retries: every activity succeeded on its first attempt.'));
      return;
    }
    fill(
      'retry-history',
      table(
        el('tr', null, ['Failed at', 'Target', 'Activity', 'Chunk from seq', 'Attempt', 'Error', 'Message', 'Next attempt'].map((hd) => el('th', null, hd))),
        history.map((r) =>
          el(
            'tr',
            { 'data-testid': 'retry-row' },
            el('td', { className: 'nowrap' }, fmtTime(r.failed_at)),
            el('td', null, targetName(data.run, r.target_id)),
            el('td', { className: 'mono' }, r.activity),
            // Attempts are counted per chunk: the chunk tells two attempt 1s of one target apart.
            el('td', { className: 'num' }, fmtInt(r.chunk)),
            el('td', { className: 'num' }, fmtInt(r.attempt)),
            el('td', { className: 'mono' }, r.error_type),
            el('td', { className: 'message' }, r.message),
            el('td', { className: 'nowrap' }, r.next_attempt_at ? fmtTime(r.next_attempt_at) : '—'),
          ),
        ),
        { className: 'data' },
      ),
    );
  }

  // ---------------------------------------------------------------- load / refresh loop

  let failures = 0;

  function showError(message) {
    const banner = byId('error-banner');
    banner.textContent = message;
    banner.hidden = !message;
  }

  function render(data) {
    renderHeader(data);
    renderChecks(data);
    renderStats(data);
    renderTimeChart(data);
    renderHistogram(data);
    renderComparisons(data);
    renderMethods(data);
    renderMismatches(data);
    renderRetries(data);
    const app = byId('app');
    app.dataset.state = 'loaded';
    app.dataset.runStatus = data.run.status;
    const terminal = TERMINAL.includes(data.run.status);
    byId('footer').textContent = terminal
      ? `Data as of ${fmtTime(data.generated_at)}. The run has finished; this page no longer refreshes.`
      : `Updated ${fmtTime(data.generated_at)}; refreshing every ${REFRESH_MS / 1000} s while the run is ${data.run.status}.`;
  }

  function schedule(ms) {
    window.setTimeout(load, ms);
  }

  async function load() {
    let response;
    try {
      response = await fetch(apiUrl, { cache: 'no-store', credentials: 'omit', referrerPolicy: 'no-referrer', headers: { accept: 'application/json' } });
    } catch {
      failures++;
      showError('Could not reach the service; retrying…');
      schedule(Math.min(REFRESH_MS * 2 ** failures, MAX_RETRY_MS));
      return;
    }
    if (response.status === 403) {
      byId('app').dataset.state = 'forbidden';
      showError('This dashboard link is invalid or has expired. Fetch the verdict again for a fresh link.');
      return;
    }
    if (response.status === 404) {
      byId('app').dataset.state = 'not-found';
      showError('This run no longer exists.');
      return;
    }
    if (!response.ok) {
      failures++;
      showError(`The service answered ${response.status}; retrying…`);
      schedule(Math.min(REFRESH_MS * 2 ** failures, MAX_RETRY_MS));
      return;
    }
    let data;
    try {
      data = await response.json();
      render(data);
    } catch (error) {
      byId('app').dataset.state = 'error';
      showError(`Could not show this run: ${error && error.message ? error.message : String(error)}`);
      return;
    }
    failures = 0;
    showError('');
    if (!TERMINAL.includes(data.run.status)) schedule(REFRESH_MS);
  }

  function start() {
    byId('suite-link').setAttribute('href', `/dashboard/runs/${encodeURIComponent(runId)}/suite?token=${encodeURIComponent(token)}`);
    const expiry = linkExpiry();
    byId('link-expiry').textContent = expiry ? `Read-only link, valid until ${fmtTime(expiry.toISOString())}` : 'Read-only link';
    void load();
  }

  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
  else start();
})();
