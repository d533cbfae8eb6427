/*
 * The run page's head card: suite and chain, the run's state beside its verdict, progress, the
 * run's facts and the Temporal UI link.
 */
/* global document, window */
(function () {
  'use strict';

  const { el, byId, isNum } = window.RvsDom;
  const { fmtInt, fmtTime, fmtDuration } = window.RvsFormat;
  const { TERMINAL, fill, setBadge } = window.RvsBlocks;

  /**
   * The run's own state, in words that cannot be read as the outcome: `success` means the run
   * completed (every planned call was made); whether the endpoint passed is the verdict's to say.
   */
  const RUN_STATES = {
    queued: 'run queued',
    claimed: 'run starting',
    running: 'run in progress',
    success: 'run completed',
    failed: 'run failed',
    cancelled: 'run cancelled',
  };
  const RUN_STATE_HINTS = {
    success: 'The run completed: every planned call was made. The verdict says whether the endpoint passed.',
    failed: 'The run itself failed (our infrastructure or an endpoint that could not be probed), so no verdict was judged.',
    cancelled: 'The run was cancelled before it completed.',
  };

  function render(data) {
    const { run, verdict } = data;
    byId('run-title').textContent = run.suite && run.suite.name ? run.suite.name : 'Run';
    document.title = `${run.suite ? run.suite.name : 'Run'} · ${verdict ? `verdict ${verdict.verdict}` : RUN_STATES[run.status] || run.status} · Run dashboard`;
    const chain = run.chain ? `${run.chain.name} (${run.chain.slug})` : '—';
    byId('run-subtitle').textContent = `Run ${run.id} · chain ${chain} · triggered by ${run.triggered_by}`;
    setBadge('run-status', run.status, RUN_STATES[run.status] || `run ${run.status}`);
    byId('run-status').title = RUN_STATE_HINTS[run.status] || 'The run is still going; the verdict is judged when it has completed.';
    if (verdict) setBadge('verdict-badge', verdict.verdict, `verdict: ${verdict.verdict}`);
    else setBadge('verdict-badge', 'pending', TERMINAL.includes(run.status) ? 'verdict: —' : 'verdict pending');
    byId('verdict-summary').textContent = verdict ? verdict.summary : 'The verdict is computed when the run has finished.';

    const progress = byId('progress');
    const planned = run.progress ? run.progress.calls_planned : null;
    const done = run.progress ? run.progress.calls_done : 0;
    if (isNum(planned) && planned > 0 && run.status === 'success' && done < planned) {
      // A finished run is complete: a sweep that stopped once a step broke never sends the rest of its plan.
      progress.max = 1;
      progress.value = 1;
      byId('progress-text').textContent = `${fmtInt(done)} calls (100%; stopped early: ${fmtInt(planned)} planned)`;
    } else if (isNum(planned) && planned > 0) {
      progress.max = planned;
      progress.value = Math.min(done, planned);
      byId('progress-text').textContent = `${fmtInt(done)} / ${fmtInt(planned)} calls (${Math.floor((Math.min(done, planned) / planned) * 100)}%)`;
    } else {
      if (TERMINAL.includes(run.status)) {
        progress.max = 1;
        progress.value = 1;
      } else {
        progress.removeAttribute('value');
      }
      byId('progress-text').textContent = `${fmtInt(done)} calls`;
    }

    const facts = [
      ['Requested', fmtTime(run.requested_at)],
      ['Started', fmtTime(run.started_at)],
      ['Finished', fmtTime(run.finished_at)],
      ['Duration', fmtDuration(run.started_at, run.finished_at)],
      ['Retries', fmtInt(run.retry_count)],
    ];
    if (run.failure_reason) facts.push(['Failure', run.failure_reason]);
    if (run.baseline_run_id) facts.push(['Baseline run', run.baseline_run_id]);
    const metadata = run.metadata && Object.keys(run.metadata).length > 0 ? JSON.stringify(run.metadata) : null;
    if (metadata) facts.push(['Metadata', metadata.length > 200 ? `${metadata.slice(0, 200)}…` : metadata]);
    fill('run-facts', facts.map(([k, v]) => [el('dt', null, k), el('dd', { title: v }, v)]));

    const link = byId('temporal-link');
    const url = typeof data.temporal_ui_url === 'string' && /^https?:\/\//.test(data.temporal_ui_url) ? data.temporal_ui_url : null;
    link.hidden = !url;
    byId('temporal-missing').hidden = Boolean(url);
    if (url) link.setAttribute('href', url);
  }

  window.RvsRunHeader = Object.freeze({ render });
})();
