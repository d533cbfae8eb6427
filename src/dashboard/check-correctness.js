/*
 * The correctness check: how many compared answers matched, and the Correctness mismatches card,
 * one row per distinct pair of differing answers with what differs.
 */
/* global window */
(function () {
  'use strict';

  const { el, byId, isNum } = window.RvsDom;
  const { fmtPct, fmtInt, shorten } = window.RvsFormat;

  function measure(check) {
    const d = check.details || {};
    return [
      isNum(d.match_rate_pct) ? `${fmtPct(d.match_rate_pct)} match (${fmtInt(d.matched)} / ${fmtInt(d.compared)})` : 'nothing compared',
      `≥ ${fmtPct(d.min_pct)}`,
    ];
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
  function render(data) {
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

  window.RvsChecks.register({ name: 'correctness', measure, render });
})();
