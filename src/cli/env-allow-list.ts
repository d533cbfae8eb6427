/**
 * Which environment variables a suites-as-code file may read through `${NAME}`. The file can come
 * from anyone who opens a pull request, and its values are sent to the hosts the file names: were
 * every variable expandable, `x-key: "${RVS_API_KEY}"` or `${GITHUB_TOKEN}` would hand the CI job's
 * own credentials to that host. So only names meant for files expand: those starting with
 * RVS_SECRET_, and those the person running `rvs apply` names with `--env NAME`.
 */

/** A variable with this prefix is meant for suites-as-code files. */
export const ALLOWED_ENV_PREFIX = 'RVS_SECRET_';

/** The CLI's own key and the CI runner's variables: never expanded, not even when named with --env. */
export const REFUSED_ENV_NAMES: readonly string[] = ['RVS_API_KEY'];
export const REFUSED_ENV_PREFIXES: readonly string[] = ['GITHUB_', 'ACTIONS_', 'RUNNER_'];

export const REFUSED_RULE = `${REFUSED_ENV_NAMES.join(', ')}, ${REFUSED_ENV_PREFIXES.map((p) => `${p}*`).join(', ')} are never read from a file, not even with --env`;
export const ALLOW_RULE = `a file reads only ${ALLOWED_ENV_PREFIX}* variables and those named with --env NAME`;

export type EnvAccess = 'allowed' | 'not_allowed' | 'refused';

export function isRefusedEnvName(name: string): boolean {
  const upper = name.toUpperCase();
  return REFUSED_ENV_NAMES.includes(upper) || REFUSED_ENV_PREFIXES.some((prefix) => upper.startsWith(prefix));
}

/** Whether a file may read `name`, given the names passed with --env. */
export function envAccess(name: string, named: ReadonlySet<string>): EnvAccess {
  if (isRefusedEnvName(name)) return 'refused';
  if (name.startsWith(ALLOWED_ENV_PREFIX) || named.has(name)) return 'allowed';
  return 'not_allowed';
}

/** The problem of reading `name`, naming the variable and the rule; null when it may be read. */
export function envAccessProblem(name: string, named: ReadonlySet<string>): string | null {
  switch (envAccess(name, named)) {
    case 'allowed':
      return null;
    case 'refused':
      return `environment variable ${name} is refused: ${REFUSED_RULE}`;
    case 'not_allowed':
      return `environment variable ${name} is not allowed: ${ALLOW_RULE} (rename it ${ALLOWED_ENV_PREFIX}${name}, or pass --env ${name})`;
  }
}
