/* The Retry history card: each failed activity attempt and when the next one was due. */
/* global window */
(function () {
  'use strict';

  const { el } = window.RvsDom;
  const { fmtInt, fmtTime } = window.RvsFormat;
  const { fill, table, emptyNote, targetName } = window.RvsBlocks;

  function render(data) {
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

  window.RvsRetryHistory = Object.freeze({ render });
})();
