import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { appendFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { rvsFileJsonSchema } from '../domain/rvs-file';
import { parseCliArgs, USAGE, UsageError, type RunCommand, type SuiteRef, type VerdictCommand } from './args';
import { ApiError, ConnectionError, RvsClient, TERMINAL_STATUSES, type FetchLike, type RunView, type VerdictView } from './client';
import { ConfigOutputError, runApply, runExport } from './config-commands';
import { formatMarkdown, formatRun, formatText, formatVerdict, type VerdictReport } from './format';
import { ProgressReporter, type ProgressStream } from './progress';
import { RvsFileError } from './rvs-file';
import { workflowCommand } from './workflow-commands';

/** Set by the CLI package's build (packages/cli/build.mjs); absent when run from the checkout through tsx. */
declare const RVS_CLI_VERSION: string | undefined;

/** Exit code for everything that is not a verdict: usage, auth, connection, API errors, timeouts. */
export const EXIT_NO_VERDICT = 3;

/** How long the server may hold GET /verdict (it caps `wait` at 60 s). */
const VERDICT_LONG_POLL_S = 30;
/** After the run is terminal the verdict is written with it; a 409 then is a brief race at most. */
const VERDICT_GRACE_MS = 30_000;
/** Consecutive transient failures (connection, 429, 502-504) tolerated while waiting. */
const MAX_TRANSIENT_FAILURES = 10;

export interface CliIo {
  argv: readonly string[];
  env: Record<string, string | undefined>;
  stdout: { write(chunk: string): unknown };
  stderr: ProgressStream;
  fetch?: FetchLike;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
  pollIntervalMs?: number;
  version?: string;
  /** Told the id of the run rvs run triggered, as soon as it exists (the GitHub Action's run-id output). */
  onRunCreated?: (runId: string, run: RunView) => void;
  /** Told the verdict rvs printed and the exit code it decided (the GitHub Action's outputs). */
  onVerdict?: (report: VerdictReport, exitCode: number) => void;
  readStdin?: () => Promise<string>;
}

/** A suite name that names no suite, or more than one, in the caller's tenant. */
export class SuiteNameError extends Error {
  override readonly name = 'SuiteNameError';
}

/** The id of the suite rvs run was given: an id as it is, a name looked up (exactly one must match). */
export async function resolveSuite(client: RvsClient, suite: SuiteRef): Promise<string> {
  if ('id' in suite) return suite.id;
  const matches = await client.suitesNamed(suite.name);
  if (matches.length === 1) return matches[0]!.id;
  if (matches.length === 0) {
    throw new SuiteNameError(`no suite named "${suite.name}" in this tenant (names are exact and case-sensitive; rvs apply prints each suite's id and name)`);
  }
  const candidates = matches.map((m) => `${m.id} (${m.name})`).join(', ');
  throw new SuiteNameError(`${matches.length} suites are named "${suite.name}": ${candidates}; run one by its id, or rename all but one`);
}

class WaitTimeout extends Error {
  override readonly name = 'WaitTimeout';
}

class OutputError extends Error {
  override readonly name = 'OutputError';
}

export function packageVersion(): string {
  if (typeof RVS_CLI_VERSION === 'string') return RVS_CLI_VERSION;
  try {
    const pkg = JSON.parse(readFileSync(join(__dirname, '..', '..', 'package.json'), 'utf8')) as { version?: string };
    return pkg.version ?? 'unknown';
  } catch {
    return 'unknown';
  }
}

/** The verdict's own exit code when it is one of 0/1/2; otherwise derived from the verdict word. */
export function exitCodeOf(verdict: Pick<VerdictView, 'verdict' | 'exit_code'>): number {
  if (verdict.exit_code === 0 || verdict.exit_code === 1 || verdict.exit_code === 2) return verdict.exit_code;
  if (verdict.verdict === 'pass') return 0;
  if (verdict.verdict === 'fail') return 1;
  return 2;
}

/** One line for stderr; never contains the API key (the client never puts it into a message). */
export function describeError(error: unknown): string {
  if (error instanceof ApiError) return error.describe();
  if (
    error instanceof UsageError ||
    error instanceof ConnectionError ||
    error instanceof WaitTimeout ||
    error instanceof OutputError ||
    error instanceof SuiteNameError ||
    error instanceof ConfigOutputError
  ) {
    return error.message;
  }
  return `unexpected error: ${(error as Error)?.message ?? String(error)}`;
}

/**
 * The read token of a dashboard link, as written in the link (and decoded, when that differs):
 * what `::add-mask::` must hide.
 */
export function dashboardTokens(url: string): string[] {
  const raw = /[?&]token=([^&#]+)/.exec(url)?.[1];
  if (raw === undefined) return [];
  let decoded = raw;
  try {
    decoded = decodeURIComponent(raw);
  } catch {
    // a malformed escape: the raw text is what the log would show
  }
  return decoded === raw ? [raw] : [raw, decoded];
}

function oneLine(text: string): string {
  return text.replace(/\s*[\r\n]+\s*/g, ' ').trim();
}

export async function main(io: CliIo): Promise<number> {
  const now = io.now ?? Date.now;
  const sleep = io.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const pollIntervalMs = io.pollIntervalMs ?? 1_000;
  let command: ReturnType<typeof parseCliArgs> | undefined;
  const fail = (error: unknown) => {
    const secrets = command && 'apiKey' in command ? [command.apiKey] : [];
    // The API never echoes a target's URL or header values; this keeps anything else from doing so.
    if (command && command.command === 'run') {
      for (const target of command.targets) secrets.push(target.url, ...Object.values(target.headers));
    }
    // A bad file: every problem on its own line, with its line number; nothing was sent.
    const lines = error instanceof RvsFileError ? [...error.lines(), 'nothing was changed'] : [oneLine(describeError(error))];
    for (let line of lines) {
      for (const secret of secrets.filter((value) => value.length >= 4).sort((a, b) => b.length - a.length)) {
        line = line.split(secret).join('****');
      }
      io.stderr.write(`rvs: ${line}\n`);
    }
    return EXIT_NO_VERDICT;
  };

  try {
    command = parseCliArgs(io.argv, io.env);
  } catch (error) {
    return fail(error);
  }
  if (command.command === 'help') {
    io.stdout.write(`${USAGE}\n`);
    return 0;
  }
  if (command.command === 'version') {
    io.stdout.write(`rvs ${io.version ?? packageVersion()}\n`);
    return 0;
  }

  if (command.command === 'schema') {
    io.stdout.write(`${JSON.stringify(rvsFileJsonSchema(), null, 2)}\n`);
    return 0;
  }
  if (command.command === 'apply' || command.command === 'export') {
    const configClient = new RvsClient({
      baseUrl: command.baseUrl,
      apiKey: command.apiKey,
      userAgent: `rvs/${io.version ?? packageVersion()} node/${process.versions.node}`,
      fetch: io.fetch,
    });
    const configIo = { stdout: io.stdout, stderr: io.stderr, env: io.env, readStdin: io.readStdin };
    try {
      return command.command === 'apply' ? await runApply(command, configClient, configIo) : await runExport(command, configClient, configIo);
    } catch (error) {
      return fail(error);
    }
  }

  const cmd: RunCommand | VerdictCommand = command;
  /*
   * A dashboard link carries a read token valid for days, and a public repository's job log is
   * public: under GitHub Actions the runner is told to mask the token (`::add-mask::`, which it
   * reads on stdout and stderr), on the stream that shows the link, before it, so the log shows
   * the link as `?token=***`. Outside Actions the link is printed as it is (a terminal's user
   * asked for it).
   */
  const masked = new Set<string>();
  const maskDashboardToken = (url: string | undefined, stream: { write(chunk: string): unknown }) => {
    if (io.env.GITHUB_ACTIONS !== 'true' || !url) return;
    for (const token of dashboardTokens(url)) {
      if (masked.has(token)) continue;
      masked.add(token);
      stream.write(workflowCommand('add-mask', token));
    }
  };
  const client = new RvsClient({
    baseUrl: cmd.baseUrl,
    apiKey: cmd.apiKey,
    userAgent: `rvs/${io.version ?? packageVersion()} node/${process.versions.node}`,
    fetch: io.fetch,
  });

  /** GET that rides out short outages while waiting; the first answer was already a success. */
  const patiently = async <T>(call: () => Promise<T>, deadline: number): Promise<T> => {
    for (let failures = 0; ; failures += 1) {
      try {
        return await call();
      } catch (error) {
        const transient = error instanceof ConnectionError || (error instanceof ApiError && error.transient);
        if (!transient || failures >= MAX_TRANSIENT_FAILURES || now() >= deadline) throw error;
        const backoff = error instanceof ApiError && error.retryAfterMs !== null ? error.retryAfterMs : Math.min(5_000, 500 * 2 ** failures);
        await sleep(Math.max(0, Math.min(backoff, deadline - now())));
      }
    }
  };

  const waitForRun = async (runId: string, deadline: number, first?: RunView): Promise<RunView> => {
    const progress = new ProgressReporter(io.stderr, now);
    let run = first ?? (await client.getRun(runId));
    try {
      for (;;) {
        progress.update(run);
        if (TERMINAL_STATUSES.includes(run.status)) return run;
        if (now() >= deadline) throw new WaitTimeout(`timed out waiting for run ${runId}; it is still ${run.status}`);
        await sleep(Math.max(0, Math.min(pollIntervalMs, deadline - now())));
        run = await patiently(() => client.getRun(runId), deadline);
      }
    } finally {
      progress.finish();
    }
  };

  const fetchVerdict = async (runId: string): Promise<VerdictView> => {
    const until = now() + VERDICT_GRACE_MS;
    let longPoll = true;
    for (;;) {
      try {
        return await patiently(() => client.getVerdict(runId, longPoll ? VERDICT_LONG_POLL_S : 0), until);
      } catch (error) {
        if (error instanceof ApiError && error.status === 400 && longPoll) {
          longPoll = false; // a server that does not know ?wait= and says so: plain polling then
          continue;
        }
        if (!(error instanceof ApiError && error.code === 'run_not_finished') || now() >= until) throw error;
        await sleep(Math.min(pollIntervalMs, Math.max(0, until - now())));
      }
    }
  };

  /**
   * --cancel-on-timeout: a CI job that gives up on a run stops it too, instead of leaving it
   * probing for nobody. The error still says it timed out (exit code 3), and whether the cancel took.
   */
  const cancelAfterTimeout = async (runId: string, timeout: WaitTimeout): Promise<Error> => {
    try {
      const cancelled = await client.cancelRun(runId);
      return new WaitTimeout(`${timeout.message}; cancelled it (now ${cancelled.status})`);
    } catch (error) {
      if (error instanceof ApiError && error.status === 409) return new WaitTimeout(`${timeout.message}; it finished before it could be cancelled`);
      return new WaitTimeout(`${timeout.message}; cancelling it failed: ${describeError(error)}`);
    }
  };

  /** With --output the formatted result goes to the file and the text summary to stdout. */
  const output = async (formatted: string, text: () => string) => {
    if (!cmd.output) {
      io.stdout.write(formatted);
      return;
    }
    io.stdout.write(text());
    try {
      await writeFile(cmd.output, formatted);
    } catch (error) {
      throw new OutputError(`cannot write ${cmd.output}: ${(error as Error).message}`);
    }
  };

  const emit = async (report: VerdictReport) => {
    maskDashboardToken(report.verdict.dashboard_url, io.stdout);
    maskDashboardToken(report.run?.dashboard_url, io.stdout);
    await output(formatVerdict(cmd.format, report), () => formatText(report));
    const stepSummary = io.env.GITHUB_STEP_SUMMARY;
    if (stepSummary) {
      try {
        await appendFile(stepSummary, `${formatMarkdown(report)}\n`);
      } catch (error) {
        // The step summary is a courtesy; the verdict still decides the exit code.
        io.stderr.write(`rvs: warning: cannot append to GITHUB_STEP_SUMMARY: ${(error as Error).message}\n`);
      }
    }
    const exitCode = exitCodeOf(report.verdict);
    io.onVerdict?.(report, exitCode);
    return exitCode;
  };

  try {
    let runId: string;
    let created: RunView | undefined;
    if (cmd.command === 'run') {
      const body: Record<string, unknown> = {};
      if (cmd.baselineRunId) body.baseline_run_id = cmd.baselineRunId;
      if (Object.keys(cmd.thresholds).length > 0) body.thresholds = cmd.thresholds;
      if (Object.keys(cmd.metadata).length > 0) body.metadata = cmd.metadata;
      if (cmd.targets.length > 0) {
        body.targets = cmd.targets.map((t) => (Object.keys(t.headers).length > 0 ? { url: t.url, headers: t.headers } : { url: t.url }));
      }
      if (cmd.branch) body.branch = cmd.branch;
      if (cmd.commit) body.commit = cmd.commit;
      created = await client.triggerRun(await resolveSuite(client, cmd.suite), body, randomUUID());
      runId = created.id;
      // --wait shows the link on stderr at once, without --wait the run on stdout.
      maskDashboardToken(created.dashboard_url, cmd.wait ? io.stderr : io.stdout);
      io.onRunCreated?.(runId, created);
      if (!cmd.wait) {
        const run = created;
        await output(formatRun(cmd.format, run, client.runUrl(runId)), () => formatRun('text', run, client.runUrl(runId)));
        return 0;
      }
      // The live page first: a CI log links it while the run is still going.
      io.stderr.write(`run ${runId} ${created.status}: ${client.runUrl(runId)}\n`);
      if (created.dashboard_url) io.stderr.write(`dashboard (live): ${created.dashboard_url}\n`);
    } else {
      runId = cmd.runId;
    }

    if (!cmd.wait) {
      const run = await client.getRun(runId);
      const verdict = await client.getVerdict(runId).catch((error: unknown) => {
        if (error instanceof ApiError && error.code === 'run_not_finished') {
          throw new ApiError(error.status, error.code, `${error.message}; add --wait to wait for it`, error.requestId, error.details);
        }
        throw error;
      });
      return await emit({ runId, run, verdict });
    }
    const deadline = now() + cmd.timeoutMs;
    let run: RunView;
    try {
      run = await waitForRun(runId, deadline, created);
    } catch (error) {
      if (error instanceof WaitTimeout && cmd.cancelOnTimeout) throw await cancelAfterTimeout(runId, error);
      throw error;
    }
    const verdict = await fetchVerdict(runId);
    return await emit({ runId, run, verdict });
  } catch (error) {
    return fail(error);
  }
}
