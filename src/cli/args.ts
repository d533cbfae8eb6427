import { parseArgs } from 'node:util';
import { isRefusedEnvName, REFUSED_RULE } from './env-allow-list';

/** A mistake in how rvs was called: reported as one line, exit code 3. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

export const FORMATS = ['text', 'json', 'markdown', 'junit'] as const;
export type Format = (typeof FORMATS)[number];

export const DEFAULT_TIMEOUT_MS = 30 * 60 * 1000;

interface Common {
  /** Normalised base URL, always ending in /v1 (no trailing slash). */
  baseUrl: string;
  apiKey: string;
  wait: boolean;
  timeoutMs: number;
  /** On --timeout, cancel the run instead of leaving it running. */
  cancelOnTimeout: boolean;
  format: Format;
  output: string | null;
}

/** A suite as rvs run was given it: a UUID is an id, anything else a name looked up in the tenant. */
export type SuiteRef = { id: string } | { name: string };

export interface RunCommand extends Common {
  command: 'run';
  suite: SuiteRef;
  baselineRunId: string | null;
  thresholds: Record<string, number | boolean | string>;
  /** --metadata pairs (strings) and --metadata-json's object, merged. */
  metadata: Record<string, unknown>;
  /** Endpoints probed instead of the suite's candidates, for this run only (secrets: never printed). */
  targets: { url: string; headers: Record<string, string> }[];
  branch: string | null;
  commit: string | null;
}

export interface VerdictCommand extends Common {
  command: 'verdict';
  runId: string;
}

/** rvs apply -f <file> [--dry-run] [--verbose] [--env NAME]…: the file's chains, endpoints and suites into the tenant. */
export interface ApplyCommand {
  command: 'apply';
  baseUrl: string;
  apiKey: string;
  file: string;
  dryRun: boolean;
  /** Repeat every suite's warnings, changed or not. */
  verbose: boolean;
  /** Variables the file may read besides RVS_SECRET_* (--env NAME, repeatable). */
  envNames: string[];
}

/** rvs export [--output <file>]: the tenant's configuration as a file. */
export interface ExportCommand {
  command: 'export';
  baseUrl: string;
  apiKey: string;
  output: string | null;
}

export type ConfigCommand = ApplyCommand | ExportCommand;

export type Command = { command: 'help' } | { command: 'version' } | { command: 'schema' } | RunCommand | VerdictCommand | ConfigCommand;

export const USAGE = `Usage:
  rvs run <suite> [options]        trigger a run of a suite, given by id or by name
  rvs run --suite <suite> [options]
  rvs verdict <runId> [options]    print the verdict of a run
  rvs apply -f <file> [--dry-run] [--verbose] [--env NAME]…
                                   create or update the file's chains, endpoints and suites
  rvs export [--output <file>]     write the tenant's chains, endpoints and suites as a file
  rvs schema                       print the JSON Schema of that file
  rvs --help | --version

Options:
  --wait                   wait until the run has finished, then print its verdict and
                           exit with the verdict's exit code
  --timeout <duration>     how long --wait waits, e.g. 90s, 30m, 1h30m (default 30m)
  --cancel-on-timeout      when --wait times out, cancel the run (default: leave it running)
  --suite <suite>          (run) the suite, like the argument: a UUID is its id, anything else
                           its exact name in the tenant (the key of rvs.yaml's suite); a name
                           two suites share is refused with their ids listed
  --baseline <runId>       (run) compare against this run instead of the suite's baseline
  --threshold key=value    (run) override a threshold for this run, repeatable, e.g.
                           latency_p95_max_ms=300, correctness_enabled=true
  --metadata key=value     (run) attach metadata to the run, repeatable
  --metadata-json <object> (run) attach a JSON object's keys as metadata (values of any JSON type)
  --target-url <url>       (run) probe this endpoint instead of the suite's candidates, for this
                           run only (e.g. a preview deployment); repeatable. Default:
                           $RVS_TARGET_URL (prefer it for URLs with keys: flags show in ps)
  --target-header name=value
                           (run) send this header to every --target-url, repeatable
  --branch <name>          (run) the branch built (default: $GITHUB_HEAD_REF, $GITHUB_REF_NAME
                           or $CI_COMMIT_REF_NAME); only runs of the suite's baseline branch
                           join its baseline, other branches compare against it
  --commit <sha>           (run) the commit built (default: $GITHUB_SHA or $CI_COMMIT_SHA)
  --format <format>        text | json | markdown | junit (default text)
  --output <file>          write the formatted verdict to <file>; stdout gets the text summary
                           (export: write the file there instead of to stdout)
  -f, --file <file>        (apply) the file to apply (YAML or JSON), - for stdin
  --dry-run                (apply) print the plan (create / update / unchanged) and the
                           variables the file reads, and change nothing
  --verbose                (apply) print every suite's warnings; by default a suite's warnings
                           are printed when it is created or they change, else only counted
  --env <NAME>             (apply) let the file read \${NAME} too, repeatable; without it a file
                           reads only RVS_SECRET_* variables. RVS_API_KEY, GITHUB_*, ACTIONS_*
                           and RUNNER_* are never read
  --url <url>              service URL, with or without /v1 (default: $RVS_URL)
  --api-key <key>          API key (default: $RVS_API_KEY; prefer the variable: flags show in ps)
  -h, --help               show this help
  -V, --version            show the version

Environment:
  RVS_URL, RVS_API_KEY     service URL and API key
  RVS_TARGET_URL           (run) default --target-url
  GITHUB_STEP_SUMMARY      when set, the verdict's Markdown summary is appended to this file

Exit codes (apply and export: 0 done, 3 a bad file or any error, and then the file applied
nothing or, for an API error mid-way, only what the output lists as done):
  0  verdict pass          1  verdict fail          2  verdict error (run failed or cancelled)
  3  rvs could not get a verdict: usage, authentication, connection or API error, timeout`;

const OPTIONS = {
  wait: { type: 'boolean' },
  timeout: { type: 'string' },
  'cancel-on-timeout': { type: 'boolean' },
  baseline: { type: 'string' },
  threshold: { type: 'string', multiple: true },
  metadata: { type: 'string', multiple: true },
  'metadata-json': { type: 'string' },
  suite: { type: 'string' },
  'target-url': { type: 'string', multiple: true },
  'target-header': { type: 'string', multiple: true },
  branch: { type: 'string' },
  commit: { type: 'string' },
  format: { type: 'string' },
  output: { type: 'string' },
  url: { type: 'string' },
  'api-key': { type: 'string' },
  file: { type: 'string', short: 'f' },
  'dry-run': { type: 'boolean' },
  verbose: { type: 'boolean' },
  env: { type: 'string', multiple: true },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean', short: 'V' },
} as const;

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** "30m", "90s", "1h30m", "500ms", or a bare number of seconds. */
export function parseDuration(text: string): number {
  const trimmed = text.trim();
  let ms: number;
  if (/^\d+(\.\d+)?$/.test(trimmed)) {
    ms = Number(trimmed) * 1000;
  } else if (/^(\d+(\.\d+)?(ms|s|m|h|d))+$/.test(trimmed)) {
    ms = 0;
    for (const [, amount, unit] of trimmed.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h|d)/g)) {
      ms += Number(amount) * UNIT_MS[unit!]!;
    }
  } else {
    throw new UsageError(`--timeout: "${text}" is not a duration (use e.g. 90s, 30m, 1h30m)`);
  }
  if (!(ms > 0) || !Number.isFinite(ms)) throw new UsageError(`--timeout: "${text}" must be longer than zero`);
  return Math.round(ms);
}

/** Accepts http(s)://host[:port][/prefix][/v1][/]; returns .../v1 without a trailing slash. */
export function normaliseBaseUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    // Not echoed: an unparsable URL cannot be told apart into host and credentials.
    throw new UsageError('the service URL is not a valid URL (expected http(s)://host[:port][/prefix])');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UsageError(`the service URL must start with http:// or https:// (got ${url.protocol})`);
  }
  if (url.search || url.hash) throw new UsageError('the service URL must not have a query or fragment');
  let path = url.pathname.replace(/\/+$/, '');
  if (!/\/v1$/.test(path)) path = `${path}/v1`;
  url.pathname = path;
  return url.toString().replace(/\/+$/, '');
}

function splitPair(flag: string, pair: string): [string, string] {
  const eq = pair.indexOf('=');
  if (eq <= 0) throw new UsageError(`--${flag}: expected key=value, got "${pair}"`);
  return [pair.slice(0, eq).trim(), pair.slice(eq + 1)];
}

/**
 * Numbers and booleans become JSON numbers and booleans; anything else is sent as a string so that
 * the API, which owns the rules (and rejects unknown keys), says what is wrong with it.
 */
export function parseThresholdValue(value: string): number | boolean | string {
  const trimmed = value.trim();
  if (trimmed === 'true') return true;
  if (trimmed === 'false') return false;
  if (trimmed !== '' && /^[+-]?(\d+(\.\d*)?|\.\d+)(e[+-]?\d+)?$/i.test(trimmed)) return Number(trimmed);
  return value;
}

function pairs<V>(flag: string, values: string[] | undefined, parse: (value: string) => V): Record<string, V> {
  const result: Record<string, V> = {};
  for (const pair of values ?? []) {
    const [key, value] = splitPair(flag, pair);
    if (Object.hasOwn(result, key)) throw new UsageError(`--${flag}: ${key} given more than once`);
    result[key] = parse(value);
  }
  return result;
}

/**
 * Header values are secrets (API keys, bearer tokens): a mistake names the header, never the value.
 * Name and value rules are the API's, which says what is wrong with them.
 */
function targetHeaders(values: string[] | undefined): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const pair of values ?? []) {
    const eq = pair.indexOf('=');
    if (eq <= 0) throw new UsageError('--target-header: expected name=value');
    const name = pair.slice(0, eq).trim();
    if (Object.keys(headers).some((seen) => seen.toLowerCase() === name.toLowerCase())) {
      throw new UsageError(`--target-header: ${name} given more than once`);
    }
    headers[name] = pair.slice(eq + 1);
  }
  return headers;
}

/** The first variable CI set to something (GitHub sets GITHUB_HEAD_REF to "" outside pull requests). */
function firstSet(env: Record<string, string | undefined>, names: readonly string[]): string | null {
  for (const name of names) {
    const value = env[name]?.trim();
    if (value) return value;
  }
  return null;
}

/** GitHub Actions (a pull request's head branch first, else the pushed ref) and GitLab CI. */
export const BRANCH_VARIABLES = ['GITHUB_HEAD_REF', 'GITHUB_REF_NAME', 'CI_COMMIT_REF_NAME'] as const;
export const COMMIT_VARIABLES = ['GITHUB_SHA', 'CI_COMMIT_SHA'] as const;

function uuidArg(what: string, value: string | undefined): string {
  if (value === undefined) throw new UsageError(`missing ${what}`);
  if (!UUID.test(value)) throw new UsageError(`${what} must be a UUID, got "${value}"`);
  return value.toLowerCase();
}

/** The argument or --suite (not both): a UUID is an id, anything else a name (trimmed, as the API stores names). */
function suiteRef(positional: string | undefined, flag: string | undefined): SuiteRef {
  if (positional !== undefined && flag !== undefined) throw new UsageError('give the suite as the argument or as --suite, not both');
  const value = positional ?? flag;
  if (value === undefined) throw new UsageError('missing suite (its id or name)');
  if (UUID.test(value.trim())) return { id: value.trim().toLowerCase() };
  const name = value.trim();
  if (name === '') throw new UsageError('the suite name is empty');
  if (name.length > 200) throw new UsageError('a suite name has at most 200 characters');
  return { name };
}

function metadataOf(pairsGiven: string[] | undefined, json: string | undefined): Record<string, unknown> {
  const metadata: Record<string, unknown> = pairs('metadata', pairsGiven, (value) => value);
  if (json === undefined) return metadata;
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    throw new UsageError('--metadata-json: not valid JSON');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new UsageError('--metadata-json: must be a JSON object');
  for (const [key, value] of Object.entries(parsed)) {
    if (Object.hasOwn(metadata, key)) throw new UsageError(`--metadata-json: ${key} is also given by --metadata`);
    metadata[key] = value;
  }
  return metadata;
}

type ParsedValues = ReturnType<typeof parseArgs<{ args: string[]; options: typeof OPTIONS; allowPositionals: true; strict: true }>>['values'];

function serviceOf(values: ParsedValues, env: Record<string, string | undefined>): { baseUrl: string; apiKey: string } {
  const rawUrl = values.url ?? env.RVS_URL;
  if (!rawUrl) throw new UsageError('no service URL: set RVS_URL or pass --url');
  const apiKey = (values['api-key'] ?? env.RVS_API_KEY ?? '').trim();
  if (!apiKey) throw new UsageError('no API key: set RVS_API_KEY or pass --api-key');
  return { baseUrl: normaliseBaseUrl(rawUrl), apiKey };
}

/** --env names: variable names, none of them one a file may never read (the CLI's key, the CI runner's). */
function envNamesOf(names: string[] | undefined): string[] {
  const result: string[] = [];
  for (const name of names ?? []) {
    if (!ENV_NAME.test(name)) throw new UsageError(`--env: "${name}" is not a variable name (letters, digits and _, not starting with a digit)`);
    if (isRefusedEnvName(name)) throw new UsageError(`--env: ${name} is refused: ${REFUSED_RULE}`);
    if (!result.includes(name)) result.push(name);
  }
  return result;
}

/** apply, export and schema: no run, so none of the run and verdict flags. */
function configCommand(
  command: 'apply' | 'export' | 'schema',
  values: ParsedValues,
  extra: string[],
  env: Record<string, string | undefined>,
): Command {
  if (extra.length > 0) throw new UsageError(`unexpected argument "${extra[0]}"`);
  for (const flag of ['wait', 'timeout', 'baseline', 'threshold', 'metadata', 'metadata-json', 'suite', 'format'] as const) {
    if (values[flag] !== undefined) throw new UsageError(`--${flag} applies to rvs run and rvs verdict only`);
  }
  if (command !== 'apply') {
    for (const flag of ['file', 'dry-run', 'verbose', 'env'] as const) {
      if (values[flag] !== undefined) throw new UsageError(`--${flag} applies to rvs apply only`);
    }
  }
  if (command === 'schema') {
    if (values.output !== undefined) throw new UsageError('--output does not apply to rvs schema (it prints to stdout)');
    return { command };
  }
  if (command === 'apply') {
    if (values.output !== undefined) throw new UsageError('--output does not apply to rvs apply');
    if (!values.file) throw new UsageError('rvs apply needs -f <file>');
    return { command, file: values.file, dryRun: values['dry-run'] ?? false, verbose: values.verbose ?? false, envNames: envNamesOf(values.env), ...serviceOf(values, env) };
  }
  if (values.output === '') throw new UsageError('--output needs a file name');
  return { command, output: values.output ?? null, ...serviceOf(values, env) };
}

export function parseCliArgs(argv: readonly string[], env: Record<string, string | undefined>): Command {
  let parsed;
  try {
    parsed = parseArgs({ args: [...argv], options: OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    // node:util's messages are good but long; keep the first sentence.
    const message = (error as Error).message.split('. ')[0]!.replace(/\.$/, '');
    throw new UsageError(message);
  }
  const { values, positionals } = parsed;
  if (values.help) return { command: 'help' };
  if (values.version) return { command: 'version' };

  const [command, id, ...extra] = positionals;
  if (command === undefined) throw new UsageError('missing command (run, verdict, apply, export or schema); see rvs --help');
  if (command === 'help') return { command: 'help' };
  if (command === 'apply' || command === 'export' || command === 'schema') return configCommand(command, values, positionals.slice(1), env);
  for (const flag of ['file', 'dry-run', 'verbose', 'env'] as const) {
    if (values[flag] !== undefined) throw new UsageError(`--${flag} applies to rvs apply only`);
  }
  if (command !== 'run' && command !== 'verdict') throw new UsageError(`unknown command "${command}"; see rvs --help`);
  if (extra.length > 0) throw new UsageError(`unexpected argument "${extra[0]}"`);

  const format = (values.format ?? 'text') as Format;
  if (!FORMATS.includes(format)) throw new UsageError(`--format must be one of ${FORMATS.join(', ')}, got "${values.format}"`);
  const wait = values.wait ?? false;
  if (values.timeout !== undefined && !wait) throw new UsageError('--timeout needs --wait');
  const cancelOnTimeout = values['cancel-on-timeout'] ?? false;
  if (cancelOnTimeout && !wait) throw new UsageError('--cancel-on-timeout needs --wait');
  const timeoutMs = values.timeout === undefined ? DEFAULT_TIMEOUT_MS : parseDuration(values.timeout);
  if (values.output === '') throw new UsageError('--output needs a file name');

  // The call itself first, then where to send it: a typo is reported before missing configuration.
  let specific: Omit<RunCommand, keyof Common> | Omit<VerdictCommand, keyof Common>;
  if (command === 'verdict') {
    for (const flag of ['suite', 'baseline', 'threshold', 'metadata', 'metadata-json', 'target-url', 'target-header', 'branch', 'commit'] as const) {
      if (values[flag] !== undefined) throw new UsageError(`--${flag} applies to rvs run only`);
    }
    specific = { command, runId: uuidArg('run id', id) };
  } else {
    if (!wait && (format === 'markdown' || format === 'junit')) {
      throw new UsageError(`--format ${format} formats a verdict: add --wait`);
    }
    const targetUrls = values['target-url'] ?? (env.RVS_TARGET_URL?.trim() ? [env.RVS_TARGET_URL.trim()] : []);
    const headers = targetHeaders(values['target-header']);
    if (Object.keys(headers).length > 0 && targetUrls.length === 0) throw new UsageError('--target-header needs --target-url');
    if (targetUrls.some((url) => url.trim() === '')) throw new UsageError('--target-url needs a URL');
    if (values.branch === '') throw new UsageError('--branch needs a name');
    if (values.commit === '') throw new UsageError('--commit needs a commit id');
    specific = {
      command,
      suite: suiteRef(id, values.suite),
      baselineRunId: values.baseline === undefined ? null : uuidArg('--baseline run id', values.baseline),
      thresholds: pairs('threshold', values.threshold, parseThresholdValue),
      metadata: metadataOf(values.metadata, values['metadata-json']),
      targets: targetUrls.map((url) => ({ url: url.trim(), headers })),
      branch: values.branch ?? firstSet(env, BRANCH_VARIABLES),
      commit: values.commit ?? firstSet(env, COMMIT_VARIABLES),
    };
  }

  const rawUrl = values.url ?? env.RVS_URL;
  if (!rawUrl) throw new UsageError('no service URL: set RVS_URL or pass --url');
  const apiKey = (values['api-key'] ?? env.RVS_API_KEY ?? '').trim();
  if (!apiKey) throw new UsageError('no API key: set RVS_API_KEY or pass --api-key');
  const common: Common = { baseUrl: normaliseBaseUrl(rawUrl), apiKey, wait, timeoutMs, cancelOnTimeout, format, output: values.output ?? null };
  return { ...specific, ...common } as RunCommand | VerdictCommand;
}
