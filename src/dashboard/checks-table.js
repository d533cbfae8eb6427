/*
 * The Checks card: one row per check of the verdict, its measure and threshold written by the
 * check's own module (checks-registry.js), then why any check was inconclusive.
 */
/* global window */
(function () {
  'use strict';

  const { el } = window.RvsDom;
  const { TERMINAL, fill, badge, table, emptyNote } = window.RvsBlocks;

  /** A check no module presents: its plain (non-object) details, no threshold. */
  function plainMeasure(check) {
    const d = check.details || {};
    return [
      Object.entries(d)
        .filter(([, v]) => typeof v !== 'object')
        .map(([k, v]) => `${k}: ${v}`)
        .join(', ') || '—',
      '—',
    ];
  }

  function checkMeasure(check, verdict) {
    const module = window.RvsChecks.find(check.name);
    return module && module.measure ? module.measure(check, verdict) : plainMeasure(check);
  }

  /** The one sentence of an inconclusive check: its message ends in " — inconclusive: <why>". */
  function inconclusiveReason(check) {
    const last = String(check.message || '').split(' — ').pop();
    return last.replace(/^inconclusive:\s*/, '');
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

  function render(data) {
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

  window.RvsCheckTable = Object.freeze({ render });
})();
