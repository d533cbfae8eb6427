import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';

export const ROOT = path.resolve(__dirname, '..', '..');

/** A process started from the repository, with its output kept for assertions and failure messages. */
export interface Spawned {
  child: ChildProcess;
  output(): string;
  /** Resolves with the exit code or signal; never rejects. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * Runs `command args` in its own process group (so a test can signal or kill all of it at once,
 * as a terminal does) with exactly the environment given plus PATH and HOME.
 */
export function spawnInGroup(command: string, args: string[], env: Record<string, string>): Spawned {
  const child = spawn(command, args, {
    cwd: ROOT,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
  });
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-200_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  return { child, output: () => output, exited };
}

/** SIGKILL to the whole group of a spawned process, if anything of it is still alive. */
export function killGroup(spawned: Spawned): void {
  try {
    process.kill(-spawned.child.pid!, 'SIGKILL');
  } catch {
    // already gone
  }
}

/** Polls `probe` until it returns a value; `what` (or what it returns: e.g. a process's output so far) names the failure. */
export async function until<T>(
  probe: () => Promise<T | undefined> | T | undefined,
  timeoutMs: number,
  what: string | (() => string),
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${typeof what === 'function' ? what() : what}: not within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

export interface Answer {
  status: number;
  body: string;
  headers: Headers;
}

/** One GET with a hard timeout: a request that hangs is an answer of status 0, never a stuck test. */
export async function getWithin(url: string, headers: Record<string, string>, timeoutMs: number): Promise<Answer> {
  try {
    const response = await fetch(url, { headers, signal: AbortSignal.timeout(timeoutMs) });
    return { status: response.status, body: await response.text(), headers: response.headers };
  } catch (error) {
    return { status: 0, body: String(error), headers: new Headers() };
  }
}
