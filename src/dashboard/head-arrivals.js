/*
 * The heads a run's head watch stored (config.freshness), read page by page with the link's token,
 * and each candidate's arrival lag per reference head as the verdict measures it.
 */
/* global window, fetch */
(function () {
  'use strict';

  const { runId, token } = window.RvsRunLink;

  const HEADS_PAGE = 200;
  /**
   * 10,000 arrivals: nearly an hour of one-second blocks on three endpoints. More are left out (the
   * chart says so): the pages share the link's rate limit (120 a minute) with the page itself.
   */
  const MAX_HEAD_PAGES = 50;
  const MAX_RATE_LIMITED_WAITS = 3;

  async function fetchHeads() {
    const arrivals = [];
    let waits = 0;
    for (let page = 0; page < MAX_HEAD_PAGES; page++) {
      const url = `/dashboard/api/runs/${encodeURIComponent(runId)}/heads?token=${encodeURIComponent(token)}&limit=${HEADS_PAGE}&offset=${page * HEADS_PAGE}`;
      const response = await fetch(url, { cache: 'no-store', credentials: 'omit', referrerPolicy: 'no-referrer', headers: { accept: 'application/json' } });
      // Over the link's rate limit: wait as told (at most a minute) and ask for the same page again.
      if (response.status === 429 && waits < MAX_RATE_LIMITED_WAITS) {
        waits++;
        const seconds = Math.min(60, Math.max(1, Number(response.headers.get('retry-after')) || 5));
        await new Promise((resolve) => window.setTimeout(resolve, seconds * 1000));
        page--;
        continue;
      }
      if (!response.ok) throw new Error(`the service answered ${response.status}`);
      const body = await response.json();
      arrivals.push(...(body.data || []));
      if (!body.pagination || !body.pagination.has_more) return { arrivals, truncated: false, total: arrivals.length };
    }
    return { arrivals, truncated: true, total: null };
  }

  const headKey = (a) => `${a.number}:${a.hash || ''}`;

  /**
   * Each candidate's arrival lag per reference head, as the verdict measures it
   * (src/domain/freshness.ts): the reference's first announcement of each head is the yardstick;
   * a candidate announces it by the same height (and hash, when both name one) when subscribed, by
   * any height at or above it when polled; a lag is taken only within one observer segment (one
   * process, one clock) and within grace. Heads without such an announcement are listed apart.
   */
  function arrivalLags(arrivals, referenceId, candidateIds, via, graceMs) {
    const byTarget = new Map();
    for (const a of arrivals) {
      if (!byTarget.has(a.target_id)) byTarget.set(a.target_id, []);
      byTarget.get(a.target_id).push(a);
    }
    const ordered = (id) => (byTarget.get(id) || []).slice().sort((x, y) => x.segment - y.segment || x.arrival_ms - y.arrival_ms);
    const seen = new Set();
    const referenceHeads = ordered(referenceId).filter((a) => {
      const key = headKey(a);
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
    const announces = (c, head) =>
      via === 'poll' ? c.number >= head.number : c.number === head.number && (c.hash === null || head.hash === null || c.hash === head.hash);
    return candidateIds.map((targetId) => {
      const own = ordered(targetId);
      const points = [];
      const unmatched = [];
      for (const head of referenceHeads) {
        const match = own.find((c) => c.segment === head.segment && announces(c, head));
        const lag = match ? match.arrival_ms - head.arrival_ms : null;
        if (lag === null || lag > graceMs) unmatched.push(head.number);
        else points.push({ number: head.number, lag });
      }
      return { targetId, points, unmatched };
    });
  }

  window.RvsHeadArrivals = Object.freeze({ fetchHeads, arrivalLags });
})();
