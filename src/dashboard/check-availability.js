/* The availability check: the candidates' success rate with its 95% interval, against the minimum. */
/* global window */
(function () {
  'use strict';

  const { isNum } = window.RvsDom;
  const { fmtPct, fmtInt } = window.RvsFormat;
  const { interval } = window.RvsBlocks;

  window.RvsChecks.register({
    name: 'availability',
    measure(check) {
      const d = check.details || {};
      return [
        isNum(d.success_rate_pct)
          ? [
              `${fmtPct(d.success_rate_pct)} ok (${fmtInt(d.successful)} / ${fmtInt(d.calls)})`,
              interval(d.success_rate_interval_pct ? `[${window.RvsInterval.pctRange(d.success_rate_interval_pct, 2)}%]` : ''),
            ]
          : 'no calls',
        `≥ ${fmtPct(d.min_pct)}`,
      ];
    },
  });
})();
