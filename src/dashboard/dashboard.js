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
  const KNOWN_STATUSES = ['queued', 'claimed', 'running', 'success', 'failed', 'cancelled', 'pending', 'pass', 'fail', 'inconclusive', 'error', 'vantage_unavailable'];
  const REFRESH_MS = 2000;
  const MAX_RETRY_MS = 10000;
  const CANDIDATE_COLOURS = ['#2563eb', '#059669', '#7c3aed', '#0891b2', '#be185d'];
  const REFERENCE_COLOUR = '#ea580c';

  // ---------------------------------------------------------------- DOM helpers (text only)

  const { append, el, svg, byId, isNum } = window.RvsDom;
  const RvsInterval = window.RvsInterval;

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

  /**
   * "[112–131]" (ms) for a 95% interval {point, lower, upper|null}, rounded together with its point
   * (interval.js) so the point shown beside it is never outside it; empty when there is none.
   */
  function fmtRange(interval) {
    if (!interval || !isNum(interval.lower) || !isNum(interval.point)) return '';
    return RvsInterval.range(interval);
  }

  /** A percentile's point as rounded with its interval ("120 ms"); `fallback` (ms) when there is no interval. */
  function fmtPoint(interval, fallback) {
    return interval && isNum(interval.point) && isNum(interval.lower) ? RvsInterval.point(interval) : fmtMs(fallback);
  }

  /** "[−4.1%…+10.5%]" for an interval of a relative difference. */
  function fmtPctRange(interval) {
    if (!interval || !isNum(interval.lower)) return '';
    // Outwards at one decimal (interval.js pctRange), as the verdict writes it, never to the nearest.
    return `[${RvsInterval.pctRange(interval, 1, true)}]`;
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

  /**
   * The run's own state, in words that cannot be read as the outcome: `success` means the run
   * completed (every planned call was made); whether the endpoint passed is the verdict's to say.
   */
  const RUN_STATES = {
    queued: 'run queued',
    claimed: 'run starting',
    running: 'run in progress',
    success: 'run completed',
    failed: 'run failed',
    cancelled: 'run cancelled',
  };
  const RUN_STATE_HINTS = {
    success: 'The run completed: every planned call was made. The verdict says whether the endpoint passed.',
    failed: 'The run itself failed (our infrastructure or an endpoint that could not be probed), so no verdict was judged.',
    cancelled: 'The run was cancelled before it completed.',
  };

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

  /** Shown where a chart or table needs the raw samples of a run past its sample retention. */
  const EXPIRED_NOTE = 'The raw samples of this run expired (sample retention); the verdict, statistics and intervals come from the stored verdict.';

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
    document.title = `${run.suite ? run.suite.name : 'Run'} · ${verdict ? `verdict ${verdict.verdict}` : RUN_STATES[run.status] || run.status} · Run dashboard`;
    const chain = run.chain ? `${run.chain.name} (${run.chain.slug})` : '—';
    byId('run-subtitle').textContent = `Run ${run.id} · chain ${chain} · triggered by ${run.triggered_by}`;
    setBadge('run-status', run.status, RUN_STATES[run.status] || `run ${run.status}`);
    byId('run-status').title = RUN_STATE_HINTS[run.status] || 'The run is still going; the verdict is judged when it has completed.';
    if (verdict) setBadge('verdict-badge', verdict.verdict, `verdict: ${verdict.verdict}`);
    else setBadge('verdict-badge', 'pending', TERMINAL.includes(run.status) ? 'verdict: —' : 'verdict pending');
    byId('verdict-summary').textContent = verdict ? verdict.summary : 'The verdict is computed when the run has finished.';

    const progress = byId('progress');
    const planned = run.progress ? run.progress.calls_planned : null;
    const done = run.progress ? run.progress.calls_done : 0;
    if (isNum(planned) && planned > 0 && run.status === 'success' && done < planned) {
      // A finished run is complete: a sweep that stopped once a step broke never sends the rest of its plan.
      progress.max = 1;
      progress.value = 1;
      byId('progress-text').textContent = `${fmtInt(done)} calls (100%; stopped early: ${fmtInt(planned)} planned)`;
    } else if (isNum(planned) && planned > 0) {
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

  function interval(text) {
    return text ? el('span', { className: 'interval', 'data-field': 'interval', title: '95% confidence interval' }, text) : null;
  }

  /** The one sentence of an inconclusive check: its message ends in " — inconclusive: <why>". */
  function inconclusiveReason(check) {
    const last = String(check.message || '').split(' — ').pop();
    return last.replace(/^inconclusive:\s*/, '');
  }

  /**
   * The candidates' p95 {point, lower, upper} as the latency_p95 check measured it; the baseline
   * checks bound the same p95 of the same calls but store no point of their own (only whole ms).
   */
  function candidateP95(verdict, interval, wholeMs) {
    const p95Check = verdict && (verdict.checks || []).find((c) => c.name === 'latency_p95');
    const measured = p95Check && p95Check.details && p95Check.details.intervals_ms && p95Check.details.intervals_ms.p95;
    if (!interval || !isNum(interval.lower)) return null;
    return { point: measured && isNum(measured.point) ? measured.point : wholeMs, lower: interval.lower, upper: interval.upper };
  }

  function checkMeasure(check, verdict) {
    const d = check.details || {};
    switch (check.name) {
      case 'latency_p95':
        return [
          [`p95 ${fmtPoint(d.intervals_ms && d.intervals_ms.p95, d.p95)}`, interval(fmtRange(d.intervals_ms && d.intervals_ms.p95))],
          `≤ ${fmtMs(d.threshold)}`,
        ];
      case 'latency_vs_reference':
        return [
          [`${fmtPct(d.vs_reference_pct, true)} (${fmtMs(d.candidate_p95_ms)} vs ${fmtMs(d.reference_p95_ms)})`, interval(fmtPctRange(d.vs_reference_interval_pct))],
          `≤ ${fmtPct(d.max_pct, true)}${isNum(d.floor_ms) ? ` or < ${fmtMs(d.floor_ms)}` : ''}`,
        ];
      case 'latency_vs_baseline':
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
      case 'availability':
        return [
          isNum(d.success_rate_pct)
            ? [
                `${fmtPct(d.success_rate_pct)} ok (${fmtInt(d.successful)} / ${fmtInt(d.calls)})`,
                interval(d.success_rate_interval_pct ? `[${RvsInterval.pctRange(d.success_rate_interval_pct, 2)}%]` : ''),
              ]
            : 'no calls',
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

  /** One line per inconclusive check: why the run could not tell, and whether that fails the verdict. */
  function inconclusiveNotes(verdict) {
    const unsure = (verdict.checks || []).filter((c) => c.status === 'inconclusive');
    if (unsure.length === 0) return null;
    const failsVerdict = Boolean(verdict.thresholds && verdict.thresholds.fail_on_inconclusive);
    return el(
      'ul',
      { className: 'inconclusive-notes', 'data-testid': 'inconclusive-notes' },
      unsure.map((check) =>
        el(
          'li',
          { 'data-testid': `inconclusive-${check.name}` },
          el('b', null, check.name),
          ' is inconclusive: ',
          inconclusiveReason(check),
          failsVerdict ? ' (thresholds.fail_on_inconclusive: this fails the verdict).' : ' (this does not fail the verdict).',
        ),
      ),
    );
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
      const [measured, threshold] = checkMeasure(check, verdict);
      return el(
        'tr',
        { 'data-testid': `check-${check.name}`, 'data-check': check.name, 'data-status': check.status, className: `row-${check.status}` },
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
      inconclusiveNotes(verdict),
    );
  }

  // ---------------------------------------------------------------- vantage points

  /** Region × check: each vantage point's own judgement (suite vantage_points); hidden for runs without. */
  function renderRegions(data) {
    const regions = (data.verdict && data.verdict.regions) || [];
    byId('regions-section').hidden = regions.length === 0;
    if (regions.length === 0) return;
    const names = [];
    for (const r of regions) for (const c of r.checks || []) if (!names.includes(c.name)) names.push(c.name);
    const rows = regions.map((r) =>
      el(
        'tr',
        { 'data-testid': `region-${r.region}`, 'data-region': r.region, 'data-status': r.status, className: `row-${r.status}` },
        el('td', { className: 'mono' }, r.region),
        el('td', null, badge(r.status, r.status === 'vantage_unavailable' ? 'vantage unavailable' : r.status)),
        el('td', { className: 'num' }, String(r.calls.total)),
        el('td', { className: 'num' }, String(r.calls.failed)),
        el('td', { className: 'num' }, r.calls.successful > 0 ? `${r.latency.p50_ms} ms` : '–'),
        el('td', { className: 'num' }, r.calls.successful > 0 ? `${r.latency.p95_ms} ms` : '–'),
        ...names.map((name) => {
          const check = (r.checks || []).find((c) => c.name === name);
          return el('td', { 'data-check': name }, check ? badge(check.status) : '–');
        }),
        el('td', { className: 'message' }, r.message),
      ),
    );
    fill(
      'regions',
      table(
        el(
          'tr',
          null,
          el('th', null, 'Region'),
          el('th', null, 'Status'),
          el('th', { className: 'num' }, 'Calls'),
          el('th', { className: 'num' }, 'Failed'),
          el('th', { className: 'num' }, 'p50'),
          el('th', { className: 'num' }, 'p95'),
          ...names.map((name) => el('th', { className: 'mono' }, name)),
          el('th', null, 'Message'),
        ),
        rows,
        { className: 'data', id: 'regions-table', 'data-testid': 'regions-table' },
      ),
    );
  }

  // ---------------------------------------------------------------- stats

  /**
   * The 95% intervals of p50/p95/p99 the verdict computed ({point, lower, upper|null} ms each):
   * the candidates together, each candidate target, the reference. Null before the verdict exists.
   */
  function verdictIntervals(data) {
    const v = data.verdict;
    const p95Check = v && (v.checks || []).find((c) => c.name === 'latency_p95');
    const d = (p95Check && p95Check.details) || {};
    const ref = v && v.reference_comparison ? v.reference_comparison.latency : null;
    const byEndpoint = new Map((Array.isArray(d.targets) ? d.targets : []).map((t) => [t.endpoint_id, t.intervals_ms]));
    const candidates = ((data.run && data.run.targets) || []).filter((t) => t.role !== 'reference');
    return {
      run: d.intervals_ms || null,
      target(target) {
        if (target.role === 'reference') return (ref && ref.reference_intervals_ms) || null;
        if (byEndpoint.has(target.endpoint_id)) return byEndpoint.get(target.endpoint_id) || null;
        return candidates.length === 1 ? d.intervals_ms || null : null;
      },
    };
  }

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

  function renderStats(data) {
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

  /**
   * Bars of p50 / p95 / p99 per target with their 95% intervals as whiskers (from the verdict).
   * A whisker with no upper bound (too few calls) runs dashed to the top of the plot.
   */
  function renderIntervals(data) {
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

  // ---------------------------------------------------------------- comparisons

  function keyValues(pairs, attrs) {
    return el('dl', Object.assign({ className: 'kv' }, attrs), pairs.filter(Boolean).map(([k, v]) => [el('dt', null, k), el('dd', null, v)]));
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

  function renderComparisons(data) {
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

  // ---------------------------------------------------------------- per method, mismatches, retries

  function renderMethods(data) {
    const rows = (data.metrics && data.metrics.by_method) || [];
    const node = byId('methods-table');
    node.className = 'data';
    if (rows.length === 0) {
      node.replaceChildren(el('tbody', null, el('tr', null, el('td', { className: 'empty' }, data.samples_expired_at ? EXPIRED_NOTE : 'No samples yet.'))));
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

  const DIFFERENCES_NOTES = {
    changed: 'answers changed when asked again; not shown',
    unavailable: 'values not available (a side did not answer again)',
  };

  /** A value short enough never to be split over lines (null, a number, a short hex quantity). */
  const shortValue = (v) => String(v).length <= 24;

  /** What differs in one listed mismatch: each path with both values, or why they are not known. */
  function differencesCell(m) {
    if (m.differences_status === 'shown' && Array.isArray(m.differences) && m.differences.length > 0) {
      return el(
        'td',
        { 'data-testid': 'mismatch-differences' },
        el(
          'table',
          { className: 'diff' },
          el('tbody', null, m.differences.map((d) =>
            el('tr', { 'data-testid': 'mismatch-difference' },
              el('td', { className: 'mono small', 'data-field': 'path' }, d.path),
              el('td', { className: `mono small diff-candidate${shortValue(d.candidate) ? ' short' : ''}`, 'data-field': 'candidate', title: 'candidate' }, d.candidate),
              el('td', { className: `mono small diff-reference${shortValue(d.reference) ? ' short' : ''}`, 'data-field': 'reference', title: 'reference' }, d.reference)))),
        ),
        m.more_differences ? el('span', { className: 'muted small' }, 'more paths differ') : null,
      );
    }
    const why = DIFFERENCES_NOTES[m.differences_status] || 'values not recorded';
    return el(
      'td',
      { 'data-testid': 'mismatch-differences', className: 'muted small' },
      `${why}; fingerprints `,
      el('span', { className: 'mono', title: m.candidate_hash }, shorten(String(m.candidate_hash), 12)),
      ' ≠ ',
      el('span', { className: 'mono', title: m.reference_hash }, shorten(String(m.reference_hash), 12)),
    );
  }

  /**
   * The listed mismatches, one row per distinct pair of answers (×n: how many mismatches of the
   * method had those same two answers), grouped by method, each with what differs.
   */
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
    // Verdicts stored before examples were deduplicated may repeat a row: fold identical ones here too.
    const rows = [];
    const byKey = new Map();
    for (const m of mismatches) {
      const key = JSON.stringify([m.method, m.params, m.candidate_hash, m.reference_hash]);
      const seen = byKey.get(key);
      if (seen) seen.occurrences += m.occurrences || 1;
      else {
        const row = Object.assign({}, m, { occurrences: m.occurrences || 1 });
        byKey.set(key, row);
        rows.push(row);
      }
    }
    rows.sort((a, b) => a.method.localeCompare(b.method));
    const totals = new Map(((check.details && check.details.mismatches_by_method) || []).map((c) => [c.method, c]));
    node.replaceChildren(
      el('thead', null, el('tr', null, ['Method', 'Params', 'Times', 'What differs (path · candidate · reference)'].map((hd, i) => el('th', { className: i === 2 ? 'num' : null }, hd)))),
      el(
        'tbody',
        null,
        rows.map((m, i) => {
          const params = JSON.stringify(m.params === undefined ? null : m.params);
          const first = i === 0 || rows[i - 1].method !== m.method;
          const total = totals.get(m.method);
          return el(
            'tr',
            { 'data-testid': 'mismatch-row', 'data-method': m.method, className: first ? 'group-first' : null },
            el('td', { className: 'mono' }, first ? m.method : '', first && total ? el('div', { className: 'muted small' }, `${fmtInt(total.mismatched)} of ${fmtInt(total.compared)} differ`) : null),
            el('td', { className: 'mono small', title: params }, shorten(params, 80)),
            el('td', { className: 'num', 'data-field': 'occurrences' }, `×${fmtInt(m.occurrences)}`),
            differencesCell(m),
          );
        }),
      ),
    );
    const listed = rows.reduce((sum, m) => sum + m.occurrences, 0);
    const mismatched = check.details.mismatched;
    node.append(
      el('caption', { className: 'muted small' },
        `${fmtInt(mismatched)} ${mismatched === 1 ? 'mismatch' : 'mismatches'}, one row per distinct pair of answers` +
          (isNum(mismatched) && listed < mismatched ? `; the rows shown cover ${fmtInt(listed)} of them.` : '.')),
    );
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

  // ---------------------------------------------------------------- head watch (freshness)

  const HEADS_PAGE = 200;
  /**
   * 10,000 arrivals: nearly an hour of one-second blocks on three endpoints. More are left out (the
   * chart says so): the pages share the link's rate limit (120 a minute) with the page itself.
   */
  const MAX_HEAD_PAGES = 50;
  const MAX_RATE_LIMITED_WAITS = 3;
  /** The run's stored heads, fetched once (a finished run's heads never change); null until asked for. */
  let headsLoad = null;

  async function fetchHeads() {
    const arrivals = [];
    let waits = 0;
    for (let page = 0; page < MAX_HEAD_PAGES; page++) {
      const url = `/dashboard/api/runs/${encodeURIComponent(runId)}/heads?token=${encodeURIComponent(token)}&limit=${HEADS_PAGE}&offset=${page * HEADS_PAGE}`;
      const response = await fetch(url, { cache: 'no-store', credentials: 'omit', referrerPolicy: 'no-referrer', headers: { accept: 'application/json' } });
      // Over the link's rate limit: wait as told (at most a minute) and ask for the same page again.
      if (response.status === 429 && waits < MAX_RATE_LIMITED_WAITS) {
        waits++;
        const seconds = Math.min(60, Math.max(1, Number(response.headers.get('retry-after')) || 5));
        await new Promise((resolve) => window.setTimeout(resolve, seconds * 1000));
        page--;
        continue;
      }
      if (!response.ok) throw new Error(`the service answered ${response.status}`);
      const body = await response.json();
      arrivals.push(...(body.data || []));
      if (!body.pagination || !body.pagination.has_more) return { arrivals, truncated: false, total: arrivals.length };
    }
    return { arrivals, truncated: true, total: null };
  }

  const headKey = (a) => `${a.number}:${a.hash || ''}`;

  /**
   * Each candidate's arrival lag per reference head, as the verdict measures it
   * (src/domain/freshness.ts): the reference's first announcement of each head is the yardstick;
   * a candidate announces it by the same height (and hash, when both name one) when subscribed, by
   * any height at or above it when polled; a lag is taken only within one observer segment (one
   * process, one clock) and within grace. Heads without such an announcement are listed apart.
   */
  function arrivalLags(arrivals, referenceId, candidateIds, via, graceMs) {
    const byTarget = new Map();
    for (const a of arrivals) {
      if (!byTarget.has(a.target_id)) byTarget.set(a.target_id, []);
      byTarget.get(a.target_id).push(a);
    }
    const ordered = (id) => (byTarget.get(id) || []).slice().sort((x, y) => x.segment - y.segment || x.arrival_ms - y.arrival_ms);
    const seen = new Set();
    const referenceHeads = ordered(referenceId).filter((a) => {
      const key = headKey(a);
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
    const announces = (c, head) =>
      via === 'poll' ? c.number >= head.number : c.number === head.number && (c.hash === null || head.hash === null || c.hash === head.hash);
    return candidateIds.map((targetId) => {
      const own = ordered(targetId);
      const points = [];
      const unmatched = [];
      for (const head of referenceHeads) {
        const match = own.find((c) => c.segment === head.segment && announces(c, head));
        const lag = match ? match.arrival_ms - head.arrival_ms : null;
        if (lag === null || lag > graceMs) unmatched.push(head.number);
        else points.push({ number: head.number, lag });
      }
      return { targetId, points, unmatched };
    });
  }

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

  function renderFreshness(data) {
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

  // ---------------------------------------------------------------- load / refresh loop

  let failures = 0;

  function showError(message) {
    const banner = byId('error-banner');
    banner.textContent = message;
    banner.hidden = !message;
  }

  /** The capacity sweep's hockey stick: p95 and success rate against the offered rate, per endpoint. */
  function renderCapacity(data) {
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

  function render(data) {
    renderHeader(data);
    renderChecks(data);
    renderRegions(data);
    renderStats(data);
    renderTimeChart(data);
    renderHistogram(data);
    renderIntervals(data);
    renderCapacity(data);
    renderComparisons(data);
    renderFreshness(data);
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
