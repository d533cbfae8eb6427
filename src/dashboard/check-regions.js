/*
 * The Vantage points card: each region's own judgement of the suite's checks (suite
 * vantage_points, verdict.regions); hidden for runs probed from one place.
 */
/* global window */
(function () {
  'use strict';

  const { el, byId } = window.RvsDom;
  const { fill, badge, table } = window.RvsBlocks;

  /** Region × check: each vantage point's own judgement (suite vantage_points); hidden for runs without. */
  function render(data) {
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

  window.RvsChecks.register({ name: 'regions', render });
})();
