import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { bundleWorkflowCode, type WorkflowBundle } from '@temporalio/worker';

const WORKFLOWS_PATH = path.resolve(__dirname, '..', '..', 'workflows', 'index.ts');

const quiet = () => undefined;

/**
 * Bundles the workflow code in this process (tests: once per file), without webpack's chatter;
 * with `interceptorModules` (the tracing interceptors when traces are on: src/telemetry/tracing.ts).
 */
export function bundleWorkflows(interceptorModules: readonly string[] = []): Promise<WorkflowBundle> {
  return bundleWorkflowCode({
    workflowsPath: WORKFLOWS_PATH,
    workflowInterceptorModules: [...interceptorModules],
    logger: { log: quiet, info: quiet, warn: quiet, error: quiet, debug: quiet, trace: quiet },
  });
}

/**
 * Bundles the workflow code in a short-lived child process and returns the bundle's path.
 * Webpack's memory then never lives in the long-running worker (about 300 MB of its resident
 * set when bundled in-process: docs/performance.md).
 */
export async function bundleWorkflowsInChildProcess(interceptorModules: readonly string[] = []): Promise<string> {
  const out = path.join(os.tmpdir(), `rvs-workflow-bundle-${process.pid}.js`);
  // process.execArgv carries the TypeScript loader (tsx) this process was started with.
  await promisify(execFile)(process.execPath, [...process.execArgv, __filename, out, ...interceptorModules], { maxBuffer: 16 * 1024 * 1024 });
  return out;
}

if (require.main === module) {
  const [out, ...interceptorModules] = process.argv.slice(2);
  if (!out) throw new Error('usage: bundle-workflows <output file> [workflow interceptor module …]');
  bundleWorkflows(interceptorModules)
    .then(({ code }) => writeFile(out, code))
    .catch((error: unknown) => {
      process.stderr.write(`bundling workflows failed: ${String(error)}\n`);
      process.exit(1);
    });
}
