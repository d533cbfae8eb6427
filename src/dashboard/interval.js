/*
 * A percentile and its 95 % interval as the dashboard pages write them: the rule of
 * src/domain/interval-display.ts (the verdict's messages, the CLI), for the browser. The point is
 * never shown outside its interval: one precision for the triple (whole ms from 10 ms up, one
 * decimal below), bounds rounded outwards, the point to the nearest, and a point outside its
 * bounds widens the shown interval. test/unit/interval-display.test.ts runs one table against both.
 */
/* global window */
(function () {
  'use strict';

  const EPSILON = 1e-9;

  /** The one rounding rule of every interval (roundOutwards): at `decimals` places, lower down, upper up (null: unbounded). */
  function outwards(lower, upper, decimals) {
    const scale = 10 ** decimals;
    return {
      lower: Math.floor(lower * scale + EPSILON) / scale || 0,
      upper: upper === null ? null : Math.ceil(upper * scale - EPSILON) / scale || 0,
    };
  }

  /** {point, lower, upper|null} ms → {point, lower, upper} strings ('∞' for an open upper end). */
  function display(p) {
    const decimals = Math.abs(p.point) >= 10 ? 0 : 1;
    const scale = 10 ** decimals;
    const text = (v) => String(v / scale || 0);
    const point = Math.round(p.point * scale);
    const bounds = outwards(p.lower, p.upper, decimals);
    const lower = Math.min(Math.round(bounds.lower * scale), point);
    const upper = bounds.upper === null ? null : Math.max(Math.round(bounds.upper * scale), point);
    return { point: text(point), lower: text(lower), upper: upper === null ? '∞' : text(upper) };
  }

  /** showPctRange: "98.9–100" (no unit), or signed "+3.1%…+12.5%" for a relative difference. */
  function pctRange(i, decimals, signed) {
    const r = outwards(i.lower, i.upper, decimals);
    if (!signed) return `${r.lower}–${r.upper === null ? '∞' : r.upper}`;
    const text = (v) => (v === null ? '∞' : `${v > 0 ? '+' : ''}${v}%`);
    return `${text(r.lower)}…${text(r.upper)}`;
  }

  window.RvsInterval = Object.freeze({
    display,
    pctRange,
    /** "[112–131]" */
    range: (p) => {
      const d = display(p);
      return `[${d.lower}–${d.upper}]`;
    },
    /** "120 ms" for the point of an interval, rounded with it. */
    point: (p) => `${display(p).point} ms`,
  });
})();
