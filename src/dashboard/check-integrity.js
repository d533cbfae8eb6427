/*
 * The integrity check: answers proven against the run's anchor, per candidate, and what the
 * anchor was. Its row says how many answers were proven, wrong and not provable; the check's
 * message (shown with it) names the first wrong answer and what its proof showed.
 */
/* global window */
(function () {
  'use strict';

  const { fmtInt } = window.RvsFormat;

  const ANCHORS = {
    trusted_block: 'trusted block',
    reference: 'reference hash of the pinned block',
    self_consistency: 'self-consistency only',
  };

  window.RvsChecks.register({
    name: 'integrity',
    measure(check) {
      const d = check.details || {};
      if (d.not_applicable) return ['not applicable', '—'];
      const candidates = Array.isArray(d.candidates) ? d.candidates : [];
      const sum = (key) => candidates.reduce((total, c) => total + (Number(c[key]) || 0), 0);
      const anchor = d.anchor && ANCHORS[d.anchor.source] ? ANCHORS[d.anchor.source] : 'unknown anchor';
      return [`${fmtInt(sum('proven'))} proven, ${fmtInt(sum('wrong'))} wrong, ${fmtInt(sum('not_provable'))} not provable`, `0 wrong (${anchor})`];
    },
  });
})();
