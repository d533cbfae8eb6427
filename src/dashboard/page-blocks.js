/*
 * The run page's building blocks: status badges, tables, notes, key/value lists, the role and
 * target names. Every value reaches the DOM as text (dom.js).
 */
/* global window */
(function () {
  'use strict';

  const { append, el, byId } = window.RvsDom;

  /** The run states in which the run no longer changes (the page stops refreshing). */
  const TERMINAL = ['success', 'failed', 'cancelled'];
  const KNOWN_STATUSES = ['queued', 'claimed', 'running', 'success', 'failed', 'cancelled', 'pending', 'pass', 'fail', 'inconclusive', 'error', 'vantage_unavailable'];

  function fill(id, ...children) {
    const node = byId(id);
    node.replaceChildren();
    return append(node, children);
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

  /** Shown where a chart or table needs the raw samples of a run past its sample retention. */
  const EXPIRED_NOTE = 'The raw samples of this run expired (sample retention); the verdict, statistics and intervals come from the stored verdict.';

  function emptyNote(text) {
    return el('p', { className: 'empty' }, text);
  }

  /** A 95% interval beside its point ("[112–131]"); nothing when there is none. */
  function interval(text) {
    return text ? el('span', { className: 'interval', 'data-field': 'interval', title: '95% confidence interval' }, text) : null;
  }

  function keyValues(pairs, attrs) {
    return el('dl', Object.assign({ className: 'kv' }, attrs), pairs.filter(Boolean).map(([k, v]) => [el('dt', null, k), el('dd', null, v)]));
  }

  function targetName(run, targetId) {
    const target = (run.targets || []).find((t) => t.id === targetId);
    return target ? `${target.endpoint_name} (${roleLabel(target.role)})` : targetId || '—';
  }

  window.RvsBlocks = Object.freeze({ TERMINAL, EXPIRED_NOTE, fill, roleLabel, badge, setBadge, table, emptyNote, interval, keyValues, targetName });
})();
