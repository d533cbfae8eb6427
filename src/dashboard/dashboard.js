/*
 * Run dashboard. Vanilla JS, no dependencies, served by the API itself; loaded last of the run
 * page's scripts (dashboard.html lists them in order). It fetches the run's data with the link's
 * token, draws the page's own parts and then every registered check's (checks-registry.js), and
 * refreshes until the run has finished.
 *
 * Safety rule: every value that comes from the API reaches the DOM as text (textContent, text
 * nodes, setAttribute) — never as HTML. The Content-Security-Policy forbids inline scripts too.
 */
/* global document, window, fetch */
(function () {
  'use strict';

  const REFRESH_MS = 2000;
  const MAX_RETRY_MS = 10000;

  const { byId } = window.RvsDom;
  const { fmtTime } = window.RvsFormat;
  const { TERMINAL } = window.RvsBlocks;
  const { token, runId, apiUrl, linkExpiry } = window.RvsRunLink;

  /** The parts every run page has, top to bottom; each check's own section comes from its module. */
  const PARTS = [window.RvsRunHeader, window.RvsCheckTable, window.RvsRunStats, window.RvsLatencyCharts, window.RvsMethodsTable, window.RvsRetryHistory];

  let failures = 0;

  function showError(message) {
    const banner = byId('error-banner');
    banner.textContent = message;
    banner.hidden = !message;
  }

  function render(data) {
    for (const part of PARTS) part.render(data);
    for (const check of window.RvsChecks.list()) if (check.render) check.render(data);
    const app = byId('app');
    app.dataset.state = 'loaded';
    app.dataset.runStatus = data.run.status;
    const terminal = TERMINAL.includes(data.run.status);
    byId('footer').textContent = terminal
      ? `Data as of ${fmtTime(data.generated_at)}. The run has finished; this page no longer refreshes.`
      : `Updated ${fmtTime(data.generated_at)}; refreshing every ${REFRESH_MS / 1000} s while the run is ${data.run.status}.`;
  }

  function schedule(ms) {
    window.setTimeout(load, ms);
  }

  async function load() {
    let response;
    try {
      response = await fetch(apiUrl, { cache: 'no-store', credentials: 'omit', referrerPolicy: 'no-referrer', headers: { accept: 'application/json' } });
    } catch {
      failures++;
      showError('Could not reach the service; retrying…');
      schedule(Math.min(REFRESH_MS * 2 ** failures, MAX_RETRY_MS));
      return;
    }
    if (response.status === 403) {
      byId('app').dataset.state = 'forbidden';
      showError('This dashboard link is invalid or has expired. Fetch the verdict again for a fresh link.');
      return;
    }
    if (response.status === 404) {
      byId('app').dataset.state = 'not-found';
      showError('This run no longer exists.');
      return;
    }
    if (!response.ok) {
      failures++;
      showError(`The service answered ${response.status}; retrying…`);
      schedule(Math.min(REFRESH_MS * 2 ** failures, MAX_RETRY_MS));
      return;
    }
    let data;
    try {
      data = await response.json();
      render(data);
    } catch (error) {
      byId('app').dataset.state = 'error';
      showError(`Could not show this run: ${error && error.message ? error.message : String(error)}`);
      return;
    }
    failures = 0;
    showError('');
    if (!TERMINAL.includes(data.run.status)) schedule(REFRESH_MS);
  }

  function start() {
    byId('suite-link').setAttribute('href', `/dashboard/runs/${encodeURIComponent(runId)}/suite?token=${encodeURIComponent(token)}`);
    const expiry = linkExpiry();
    byId('link-expiry').textContent = expiry ? `Read-only link, valid until ${fmtTime(expiry.toISOString())}` : 'Read-only link';
    void load();
  }

  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
  else start();
})();
