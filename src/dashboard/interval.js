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

  /** {point, lower, upper|null} ms → {point, lower, upper} strings ('∞' for an open upper end). */
  function display(p) {
    const decimals = Math.abs(p.point) >= 10 ? 0 : 1;
    const scale = 10 ** decimals;
    const text = (v) => String(v / scale || 0);
    const point = Math.round(p.point * scale);
    const lower = Math.min(Math.floor(p.lower * scale + EPSILON), point);
    const upper = p.upper === null ? null : Math.max(Math.ceil(p.upper * scale - EPSILON), point);
    return { point: text(point), lower: text(lower), upper: upper === null ? '∞' : text(upper) };
  }

  window.RvsInterval = Object.freeze({
    display,
    /** "[112–131]" */
    range: (p) => {
      const d = display(p);
      return `[${d.lower}–${d.upper}]`;
    },
    /** "120 ms" for the point of an interval, rounded with it. */
    point: (p) => `${display(p).point} ms`,
  });
})();
