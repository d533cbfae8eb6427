/*
 * The verdict checks the run page knows how to present, one module per check (check-*.js), each
 * registering itself here when it loads. A module is
 *   { name, measure?(check, verdict) → [measured, threshold], render?(data) }
 * `name` is the check's name in verdict.checks (or the verdict section it draws); `measure` writes
 * its row of the checks table (checks-table.js; a check without one shows its plain details);
 * `render` fills the check's own section of the page. The page (dashboard.js) renders every
 * registered module in the order the scripts load, so adding a check is one new file and its
 * script tag in dashboard.html: no other check's file changes.
 */
/* global window */
(function () {
  'use strict';

  const modules = [];

  function register(module) {
    if (!module || typeof module.name !== 'string' || module.name === '') throw new Error('a check module needs a name');
    if (modules.some((m) => m.name === module.name)) throw new Error(`check module ${module.name} registered twice`);
    modules.push(Object.freeze(Object.assign({}, module)));
  }

  window.RvsChecks = Object.freeze({
    register,
    /** Every registered module, in load order. */
    list: () => modules.slice(),
    /** The module of a check by its name in verdict.checks, or undefined. */
    find: (name) => modules.find((m) => m.name === name),
  });
})();
