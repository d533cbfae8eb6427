/*
 * How the run page writes numbers, percentages, times and durations ("—" for a missing value).
 * Intervals keep interval.js's rule (src/domain/interval-display.ts): a point is never shown
 * outside its interval.
 */
/* global window */
(function () {
  'use strict';

  const { isNum } = window.RvsDom;
  const RvsInterval = window.RvsInterval;

  function fmtMs(v) {
    if (!isNum(v)) return '—';
    if (Math.abs(v) >= 100 || Number.isInteger(v)) return `${Math.round(v)} ms`;
    return `${Number(v.toFixed(v < 1 ? 2 : 1))} ms`;
  }

  function fmtPct(v, signed) {
    if (!isNum(v)) return '—';
    const text = `${Number(v.toFixed(1))}%`;
    return signed && v > 0 ? `+${text}` : text;
  }

  /**
   * "[112–131]" (ms) for a 95% interval {point, lower, upper|null}, rounded together with its point
   * (interval.js) so the point shown beside it is never outside it; empty when there is none.
   */
  function fmtRange(interval) {
    if (!interval || !isNum(interval.lower) || !isNum(interval.point)) return '';
    return RvsInterval.range(interval);
  }

  /** A percentile's point as rounded with its interval ("120 ms"); `fallback` (ms) when there is no interval. */
  function fmtPoint(interval, fallback) {
    return interval && isNum(interval.point) && isNum(interval.lower) ? RvsInterval.point(interval) : fmtMs(fallback);
  }

  /** "[−4.1%…+10.5%]" for an interval of a relative difference. */
  function fmtPctRange(interval) {
    if (!interval || !isNum(interval.lower)) return '';
    // Outwards at one decimal (interval.js pctRange), as the verdict writes it, never to the nearest.
    return `[${RvsInterval.pctRange(interval, 1, true)}]`;
  }

  function fmtInt(v) {
    return isNum(v) ? v.toLocaleString('en-US') : '—';
  }

  function fmtTime(iso) {
    if (!iso) return '—';
    const d = new Date(iso);
    if (Number.isNaN(d.getTime())) return '—';
    return `${d.toISOString().slice(0, 19).replace('T', ' ')} UTC`;
  }

  function fmtClock(date) {
    return date.toISOString().slice(11, 19);
  }

  function fmtDuration(fromIso, toIso) {
    if (!fromIso) return '—';
    const ms = (toIso ? new Date(toIso) : new Date()).getTime() - new Date(fromIso).getTime();
    if (!Number.isFinite(ms) || ms < 0) return '—';
    if (ms < 1000) return `${ms} ms`;
    const s = ms / 1000;
    if (s < 60) return `${s.toFixed(1)} s`;
    const m = Math.floor(s / 60);
    return m < 60 ? `${m} min ${Math.round(s % 60)} s` : `${Math.floor(m / 60)} h ${m % 60} min`;
  }

  function shorten(text, max) {
    return text.length > max ? `${text.slice(0, max)}…` : text;
  }

  window.RvsFormat = Object.freeze({ fmtMs, fmtPct, fmtRange, fmtPoint, fmtPctRange, fmtInt, fmtTime, fmtClock, fmtDuration, shorten });
})();
