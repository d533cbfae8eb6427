/*
 * The run page's own link: the run id in its path and the token in its query, the only credential
 * (signed for one run, read-only, expiring). Every data request of the page carries that token.
 */
/* global window, location, URLSearchParams, atob */
(function () {
  'use strict';

  const { isNum } = window.RvsDom;

  const params = new URLSearchParams(location.search);
  const token = params.get('token') || '';
  const runId = decodeURIComponent(location.pathname.split('/').filter(Boolean).pop() || '');
  const apiUrl = `/dashboard/api/runs/${encodeURIComponent(runId)}?token=${encodeURIComponent(token)}`;

  /** The token's payload is base64url JSON {run, exp}; shown only to tell the reader when the link expires. */
  function linkExpiry() {
    try {
      const payload = token.split('.')[0].replace(/-/g, '+').replace(/_/g, '/');
      const claims = JSON.parse(atob(payload));
      return isNum(claims.exp) ? new Date(claims.exp * 1000) : null;
    } catch {
      return null;
    }
  }

  window.RvsRunLink = Object.freeze({ token, runId, apiUrl, linkExpiry });
})();
