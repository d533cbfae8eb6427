import { readFileSync } from 'node:fs';
import { appendFile } from 'node:fs/promises';
import { formatMarkdown, type VerdictReport } from './format';
import { main, type CliIo } from './main';
import { urlSecrets, workflowCommand } from './workflow-commands';

/**
 * The GitHub Action's entry point (action.yml runs it with node): its inputs come as INPUT_*
 * variables, it runs `rvs run`, and on every way out (pass, fail, error, a bad input) writes the
 * outputs to $GITHUB_OUTPUT and a one-line step summary to $GITHUB_STEP_SUMMARY (followed by the
 * verdict's Markdown when there is one), then exits with the verdict's exit code so the job fails on it.
 */

export interface ActionInputs {
  apiUrl: string;
  apiKey: string;
  suite: string;
  wait: boolean;
  timeout: string;
  targetUrl: string;
  /** Secrets: masked before anything else is printed, never printed. */
  targetHeaders: Record<string, string>;
  branch: string;
  commit: string;
  metadata: Record<string, unknown> | null;
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

/**
 * `name: value` or `name=value`, one per line (a header value may hold commas and `=`; a header
 * name holds neither `:` nor `=`). A mistake names the line, never the value.
 */
export function parseTargetHeaders(text: string): Record<string, string> {
  const headers: Record<string, string> = {};
  text.split(/\r?\n/).forEach((raw, index) => {
    const line = raw.trim();
    if (line === '') return;
    const at = line.search(/[:=]/);
    if (at <= 0) throw new ActionInputError(`input target-headers: line ${index + 1} is not "name: value"`);
    const name = line.slice(0, at).trim();
    if (Object.keys(headers).some((seen) => seen.toLowerCase() === name.toLowerCase())) {
      throw new ActionInputError(`input target-headers: ${name} given more than once`);
    }
    headers[name] = line.slice(at + 1).trim();
  });
  return headers;
}

/** The head commit of the pull request the workflow runs for ($GITHUB_EVENT_PATH's payload), if any. */
export function pullRequestHeadSha(env: Record<string, string | undefined>): string | null {
  const path = env.GITHUB_EVENT_PATH;
  if (!path) return null;
  try {
    const event = JSON.parse(readFileSync(path, 'utf8')) as { pull_request?: { head?: { sha?: unknown } } };
    const sha = event.pull_request?.head?.sha;
    return typeof sha === 'string' && sha.trim() !== '' ? sha.trim() : null;
  } catch {
    return null;
  }
}

function metadataInput(text: string): Record<string, unknown> | null {
  if (text === '') return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new ActionInputError('input metadata must be a JSON object (it is not valid JSON)');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new ActionInputError('input metadata must be a JSON object');
  return parsed as Record<string, unknown>;
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
    targetHeaders: parseTargetHeaders(input(env, 'target-headers')),
    branch: input(env, 'branch'),
    // A pull_request run's GITHUB_SHA is the merge commit GitHub made, not the commit pushed.
    commit: input(env, 'commit') || pullRequestHeadSha(env) || (env.GITHUB_SHA ?? '').trim(),
    metadata: metadataInput(input(env, 'metadata')),
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
  const args = ['run', '--suite', inputs.suite];
  if (inputs.wait) {
    args.push('--wait');
    if (inputs.timeout) args.push('--timeout', inputs.timeout);
  } else if (inputs.junit) {
    throw new ActionInputError('input junit needs wait: true (a JUnit report is of a verdict)');
  }
  if (Object.keys(inputs.targetHeaders).length > 0 && !inputs.targetUrl) throw new ActionInputError('input target-headers needs target-url');
  for (const threshold of inputs.thresholds) args.push('--threshold', threshold);
  if (inputs.targetUrl) args.push('--target-url', inputs.targetUrl);
  // In-process arguments (main() is called, no process is started): no ps shows them.
  for (const [name, value] of Object.entries(inputs.targetHeaders)) args.push('--target-header', `${name}=${value}`);
  if (inputs.branch) args.push('--branch', inputs.branch);
  if (inputs.commit) args.push('--commit', inputs.commit);
  if (inputs.metadata) args.push('--metadata-json', JSON.stringify(inputs.metadata));
  if (inputs.junit) args.push('--format', 'junit', '--output', inputs.junit);
  return args;
}

/** `name=value` lines for $GITHUB_OUTPUT; a value with a line break would forge another output. */
export function outputLines(outputs: Record<string, string>): string {
  return Object.entries(outputs)
    .map(([name, value]) => `${name}=${value.replace(/[\r\n]+/g, ' ')}\n`)
    .join('');
}

const oneLine = (text: string) => text.replace(/\s*[\r\n]+\s*/g, ' ').trim();

/** The step summary's first line: what happened, on every way out. */
export function summaryLine(outcome: {
  exitCode: number;
  verdict: string;
  runId: string;
  dashboardUrl: string;
  suite: string;
  waited: boolean;
  problem: string;
}): string {
  const link = outcome.dashboardUrl ? ` · [dashboard](${outcome.dashboardUrl})` : '';
  const run = outcome.runId ? ` · run ${outcome.runId}` : '';
  if (outcome.verdict) {
    return `**rvs: ${outcome.verdict.toUpperCase()}** · suite ${outcome.suite}${run} · exit code ${outcome.exitCode}${link}`;
  }
  if (outcome.exitCode === 0 && !outcome.waited) return `**rvs: triggered** · suite ${outcome.suite}${run} (not waited for)${link}`;
  return `**rvs: no verdict** · suite ${outcome.suite}${run} · exit code ${outcome.exitCode}${outcome.problem ? ` · ${oneLine(outcome.problem)}` : ''}${link}`;
}

export async function runAction(io: Pick<CliIo, 'env' | 'stdout' | 'stderr' | 'fetch'>): Promise<number> {
  const outputs: Record<string, string> = { 'run-id': '', verdict: '', 'exit-code': '', 'dashboard-url': '' };
  // Set from main's callback: a holder, so the compiler does not narrow it to null.
  const seen: { report: VerdictReport | null } = { report: null };
  let inputError = false;
  let problem = '';
  let code: number;
  let inputs: ActionInputs | null = null;
  const secrets: string[] = [];

  try {
    inputs = readInputs(io.env);
    // The runner hides these in every later log line of the job; first, before anything can print them.
    secrets.push(inputs.apiKey, ...Object.values(inputs.targetHeaders), ...urlSecrets(inputs.targetUrl));
    for (const secret of secrets) if (secret) io.stdout.write(workflowCommand('add-mask', secret));
    const args = actionArgs(inputs);
    // The last "rvs: …" line rvs wrote is why there is no verdict (rvs has taken the secrets out of it).
    const stderr = {
      write(chunk: string) {
        const lines = String(chunk).split('\n').filter((line) => line.startsWith('rvs: ') && !line.startsWith('rvs: warning:'));
        if (lines.length > 0) problem = lines[lines.length - 1]!.slice('rvs: '.length);
        return io.stderr.write(chunk);
      },
      isTTY: (io.stderr as { isTTY?: boolean }).isTTY,
    };
    // The Action writes the step summary itself (its line first, then the verdict's Markdown).
    const env = Object.fromEntries(Object.entries(io.env).filter(([name]) => name !== 'GITHUB_STEP_SUMMARY'));
    code = await main({
      argv: args,
      env: { ...env, RVS_URL: inputs.apiUrl, RVS_API_KEY: inputs.apiKey },
      stdout: io.stdout,
      stderr,
      fetch: io.fetch,
      onRunCreated: (runId, run) => {
        outputs['run-id'] = runId;
        if (typeof run.dashboard_url === 'string') outputs['dashboard-url'] = run.dashboard_url;
      },
      onVerdict: (verdictReport) => {
        seen.report = verdictReport;
        outputs['run-id'] = verdictReport.runId;
        outputs.verdict = verdictReport.verdict.verdict;
        outputs['dashboard-url'] = verdictReport.verdict.dashboard_url || outputs['dashboard-url']!;
      },
    });
  } catch (error) {
    if (!(error instanceof ActionInputError)) throw error;
    problem = error.message;
    inputError = true;
    io.stdout.write(workflowCommand('error', error.message));
    code = 3;
  }
  outputs['exit-code'] = String(code);

  const redact = (text: string) => secrets.filter((value) => value.length >= 4).reduce((out, secret) => out.split(secret).join('****'), oneLine(text));
  const outputFile = io.env.GITHUB_OUTPUT;
  if (outputFile) {
    try {
      await appendFile(outputFile, outputLines(outputs));
    } catch (error) {
      io.stderr.write(`rvs: warning: cannot write GITHUB_OUTPUT: ${(error as Error).message}\n`);
    }
  }
  const summaryFile = io.env.GITHUB_STEP_SUMMARY;
  if (summaryFile) {
    const line = redact(summaryLine({
      exitCode: code,
      verdict: outputs.verdict!,
      runId: outputs['run-id']!,
      dashboardUrl: outputs['dashboard-url']!,
      suite: inputs?.suite ?? (input(io.env, 'suite') || '(none)'),
      waited: inputs?.wait ?? true,
      problem,
    }));
    const details = seen.report === null ? '' : `\n${formatMarkdown(seen.report)}`;
    try {
      await appendFile(summaryFile, `${line}\n${details}`);
    } catch (error) {
      io.stderr.write(`rvs: warning: cannot append to GITHUB_STEP_SUMMARY: ${(error as Error).message}\n`);
    }
  }
  if (code === 1) io.stdout.write(workflowCommand('error', redact(seen.report?.verdict.summary ?? ''), { title: 'rvs verdict fail' }));
  else if (code !== 0 && !inputError) {
    io.stdout.write(workflowCommand('error', `no pass verdict (exit code ${code})${problem ? `: ${redact(problem)}` : '; see the log above'}`, { title: 'rvs' }));
  }
  return code;
}
