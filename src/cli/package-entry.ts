import { runAction } from './action';
import { main } from './main';

/*
 * The one module packages/cli bundles (dist/cli.js): dist/rvs.js (the `rvs` bin) and dist/action.js
 * (the GitHub Action's entry point) are two-line shims that call these, so the code ships once.
 */

export function runCli(): void {
  void main({ argv: process.argv.slice(2), env: process.env, stdout: process.stdout, stderr: process.stderr }).then((code) => {
    process.exitCode = code;
  });
}

export function runActionCli(): void {
  void runAction({ env: process.env, stdout: process.stdout, stderr: process.stderr }).then((code) => {
    process.exitCode = code;
  });
}
