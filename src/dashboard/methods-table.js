/* The Per method card: calls, failures and percentiles of each method on each target. */
/* global window */
(function () {
  'use strict';

  const { el, byId } = window.RvsDom;
  const { fmtMs, fmtPct, fmtInt } = window.RvsFormat;
  const { EXPIRED_NOTE, targetName } = window.RvsBlocks;

  function render(data) {
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

  window.RvsMethodsTable = Object.freeze({ render });
})();
