import { execFile } from 'node:child_process';
import { access, constants, mkdir } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

// v1.5.1 is the newest release that `go install` accepts (later ones carry a replace directive).
export const TEMPORAL_CLI_MODULE = 'github.com/temporalio/cli/cmd/temporal@v1.5.1';
/** Outside any checkout, so every clone on this machine reuses one build. */
export const TEMPORAL_CLI_CACHE_DIR = path.join(os.homedir(), '.cache', 'rvs', 'temporal-cli-v1.5.1');

export const TEMPORAL_CLI_INSTALL_HINT =
  `no usable 'temporal' CLI found. Install one of: the Temporal CLI on PATH, TEMPORAL_CLI_PATH=/path/to/temporal, ` +
  `or Go >= 1.22 so it can be built with: GOBIN=${TEMPORAL_CLI_CACHE_DIR} go install ${TEMPORAL_CLI_MODULE}`;

async function isExecutable(file: string): Promise<boolean> {
  try {
    await access(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

async function findOnPath(name: string, pathVariable: string | undefined): Promise<string | undefined> {
  for (const dir of (pathVariable ?? '').split(path.delimiter).filter(Boolean)) {
    const candidate = path.join(dir, name);
    if (await isExecutable(candidate)) return candidate;
  }
  return undefined;
}

export class TemporalCliMissingError extends Error {
  constructor(detail?: string) {
    super(detail ? `${TEMPORAL_CLI_INSTALL_HINT} (${detail})` : TEMPORAL_CLI_INSTALL_HINT);
    this.name = 'TemporalCliMissingError';
  }
}

/**
 * TEMPORAL_CLI_PATH, else `temporal` on PATH, else the cached build, else build it with Go.
 * `pathVariable` is the PATH to search (passed in: only config code reads the environment).
 */
export async function resolveTemporalCli(options: {
  cliPath: string | undefined;
  pathVariable: string | undefined;
  log: (line: string) => void;
}): Promise<string> {
  if (options.cliPath) {
    if (await isExecutable(options.cliPath)) return options.cliPath;
    throw new TemporalCliMissingError(`TEMPORAL_CLI_PATH=${options.cliPath} is not an executable file`);
  }
  const onPath = await findOnPath('temporal', options.pathVariable);
  if (onPath) return onPath;
  const cached = path.join(TEMPORAL_CLI_CACHE_DIR, 'temporal');
  if (await isExecutable(cached)) return cached;
  const go = await findOnPath('go', options.pathVariable);
  if (!go) throw new TemporalCliMissingError('go is not on PATH either');
  options.log(`building the Temporal CLI once with 'go install ${TEMPORAL_CLI_MODULE}' (a few minutes)...`);
  await mkdir(TEMPORAL_CLI_CACHE_DIR, { recursive: true });
  try {
    await execFileAsync(go, ['install', TEMPORAL_CLI_MODULE], {
      env: { ...process.env, GOBIN: TEMPORAL_CLI_CACHE_DIR, GOFLAGS: '-mod=mod' },
      maxBuffer: 16 * 1024 * 1024,
    });
  } catch (error) {
    const stderr = (error as { stderr?: string }).stderr ?? String(error);
    throw new TemporalCliMissingError(`go install failed: ${stderr.trim().split('\n').slice(-3).join(' | ')}`);
  }
  if (await isExecutable(cached)) return cached;
  throw new TemporalCliMissingError('go install finished but produced no binary');
}
