import { appendFile } from 'node:fs/promises';
import { main, type CliIo } from './main';

/**
 * The GitHub Action's entry point (action.yml runs it with node): its inputs come as INPUT_*
 * variables, it runs `rvs run`, writes the outputs to $GITHUB_OUTPUT, lets rvs append the step
 * summary to $GITHUB_STEP_SUMMARY, and exits with the verdict's exit code so the job fails on it.
 */

export interface ActionInputs {
  apiUrl: string;
  apiKey: string;
  suite: string;
  wait: boolean;
  timeout: string;
  targetUrl: string;
  branch: string;
  thresholds: string[];
  junit: string;
}

export class ActionInputError extends Error {
  override readonly name = 'ActionInputError';
}

/**
 * GitHub names an input's variable INPUT_ + its name upper-cased with spaces as underscores and
 * hyphens kept (INPUT_API-URL); a composite action sets them itself, where INPUT_API_URL is the
 * portable spelling. Both are read.
 */
export function input(env: Record<string, string | undefined>, name: string): string {
  const upper = name.toUpperCase().replace(/ /g, '_');
  return (env[`INPUT_${upper}`] ?? env[`INPUT_${upper.replace(/-/g, '_')}`] ?? '').trim();
}

export function readInputs(env: Record<string, string | undefined>): ActionInputs {
  const required = (name: string) => {
    const value = input(env, name);
    if (!value) throw new ActionInputError(`input ${name} is required`);
    return value;
  };
  const wait = input(env, 'wait') || 'true';
  if (wait !== 'true' && wait !== 'false') throw new ActionInputError(`input wait must be true or false, got "${wait}"`);
  return {
    apiUrl: required('api-url'),
    apiKey: required('api-key'),
    suite: required('suite'),
    wait: wait === 'true',
    timeout: input(env, 'timeout'),
    targetUrl: input(env, 'target-url'),
    branch: input(env, 'branch'),
    // One key=value per line or comma-separated: a YAML block scalar or a one-liner both work.
    thresholds: input(env, 'thresholds')
      .split(/[\n,]/)
      .map((t) => t.trim())
      .filter(Boolean),
    junit: input(env, 'junit'),
  };
}

/** The rvs command line for the inputs; the URL and key travel as RVS_URL / RVS_API_KEY, never as flags. */
export function actionArgs(inputs: ActionInputs): string[] {
  const args = ['run', inputs.suite];
  if (inputs.wait) {
    args.push('--wait');
    if (inputs.timeout) args.push('--timeout', inputs.timeout);
  } else if (inputs.junit) {
    throw new ActionInputError('input junit needs wait: true (a JUnit report is of a verdict)');
  }
  for (const threshold of inputs.thresholds) args.push('--threshold', threshold);
  if (inputs.targetUrl) args.push('--target-url', inputs.targetUrl);
  if (inputs.branch) args.push('--branch', inputs.branch);
  if (inputs.junit) args.push('--format', 'junit', '--output', inputs.junit);
  return args;
}

/** `name=value` lines for $GITHUB_OUTPUT; a value with a line break would forge another output. */
export function outputLines(outputs: Record<string, string>): string {
  return Object.entries(outputs)
    .map(([name, value]) => `${name}=${value.replace(/[\r\n]+/g, ' ')}\n`)
    .join('');
}

export async function runAction(io: Pick<CliIo, 'env' | 'stdout' | 'stderr' | 'fetch'>): Promise<number> {
  let inputs: ActionInputs;
  try {
    inputs = readInputs(io.env);
  } catch (error) {
    io.stdout.write(`::error::${(error as Error).message}\n`);
    return 3;
  }
  // The runner hides the key in every later log line of the job.
  io.stdout.write(`::add-mask::${inputs.apiKey}\n`);
  let args: string[];
  try {
    args = actionArgs(inputs);
  } catch (error) {
    io.stdout.write(`::error::${(error as Error).message}\n`);
    return 3;
  }

  const outputs: Record<string, string> = { 'run-id': '', verdict: '', 'exit-code': '', 'dashboard-url': '' };
  let summary = '';
  const env = { ...io.env, RVS_URL: inputs.apiUrl, RVS_API_KEY: inputs.apiKey };
  const code = await main({
    argv: args,
    env,
    stdout: io.stdout,
    stderr: io.stderr,
    fetch: io.fetch,
    onRunCreated: (runId) => {
      outputs['run-id'] = runId;
    },
    onVerdict: (report) => {
      outputs['run-id'] = report.runId;
      outputs.verdict = report.verdict.verdict;
      outputs['dashboard-url'] = report.verdict.dashboard_url;
      summary = report.verdict.summary;
    },
  });
  outputs['exit-code'] = String(code);

  const outputFile = io.env.GITHUB_OUTPUT;
  if (outputFile) {
    try {
      await appendFile(outputFile, outputLines(outputs));
    } catch (error) {
      io.stderr.write(`rvs: warning: cannot write GITHUB_OUTPUT: ${(error as Error).message}\n`);
    }
  }
  if (code === 1) io.stdout.write(`::error title=rvs verdict fail::${summary.replace(/[\r\n]+/g, ' ')}\n`);
  else if (code !== 0) io.stdout.write(`::error title=rvs::no pass verdict (exit code ${code}); see the log above\n`);
  return code;
}

