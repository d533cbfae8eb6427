import { spawn, type ChildProcess, type StdioOptions } from 'node:child_process';

export interface ChildServiceOptions {
  /** Shown in every line the supervisor writes about this child: "worker started (pid 123)". */
  name: string;
  command: string;
  args: string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Start it again with backoff when it exits by itself (not when the supervisor stops it). */
  restart: boolean;
  /** After SIGTERM, how long it may take to stop before its whole process group gets SIGKILL. */
  stopTimeoutMs: number;
  log: (line: string) => void;
  /** Default: stdin ignored, stdout and stderr shared with the supervisor. */
  stdio?: StdioOptions;
  /** Called with every new process, the first and each restart. */
  onSpawn?: (child: ChildProcess) => void;
}

/** Restart delays: 1 s, doubling up to 30 s; back to 1 s once a child has stayed up for 30 s. */
const FIRST_RESTART_DELAY_MS = 1_000;
const MAX_RESTART_DELAY_MS = 30_000;
const STABLE_AFTER_MS = 30_000;

/**
 * One child process of `npm start`. Each runs in its own process group (detached), so the SIGINT a
 * terminal sends to its foreground group on Ctrl-C reaches only the supervisor, which then stops
 * the children one by one, in its own order, with SIGTERM.
 */
export class ChildService {
  private child: ChildProcess | undefined;
  private exited: Promise<void> = Promise.resolve();
  private stopping = false;
  private restartTimer: NodeJS.Timeout | undefined;
  private restartDelayMs = FIRST_RESTART_DELAY_MS;
  private startedAt = 0;

  constructor(private readonly options: ChildServiceOptions) {}

  get name(): string {
    return this.options.name;
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  get running(): boolean {
    return this.child !== undefined;
  }

  start(): ChildProcess {
    const { name, log } = this.options;
    const child = spawn(this.options.command, this.options.args, {
      cwd: this.options.cwd,
      env: this.options.env,
      detached: true,
      stdio: this.options.stdio ?? ['ignore', 'inherit', 'inherit'],
    });
    this.child = child;
    this.startedAt = performance.now();
    this.exited = new Promise((resolve) => {
      child.once('exit', (code, exitSignal) => {
        this.child = undefined;
        resolve();
        if (this.stopping) return;
        // What it left in its group (a workflow-bundling helper mid-start) goes too.
        if (child.pid !== undefined) signal(-child.pid, 'SIGKILL');
        const how = exitSignal ? `signal ${exitSignal}` : `code ${code}`;
        if (!this.options.restart) {
          log(`${name} exited (${how})`);
          return;
        }
        if (performance.now() - this.startedAt >= STABLE_AFTER_MS) this.restartDelayMs = FIRST_RESTART_DELAY_MS;
        const delay = this.restartDelayMs;
        this.restartDelayMs = Math.min(delay * 2, MAX_RESTART_DELAY_MS);
        log(`${name} exited (${how}); restarting in ${delay / 1000} s`);
        this.restartTimer = setTimeout(() => {
          this.restartTimer = undefined;
          if (!this.stopping) this.start();
        }, delay);
      });
    });
    // A failed spawn (missing binary) also emits 'exit' or leaves nothing running; never crash on it.
    child.once('error', (error) => log(`${name} could not be started: ${error.message}`));
    if (child.pid !== undefined) log(`${name} started (pid ${child.pid})`);
    this.options.onSpawn?.(child);
    return child;
  }

  /** Resolves once the current process has exited (at once when none is running). */
  whenExited(): Promise<void> {
    return this.exited;
  }

  /**
   * No restart from now on, without signalling it: the supervisor is shutting down. Called for
   * every child before the first is stopped, because a child that exits meanwhile (it got the
   * process manager's SIGTERM itself, as systemd sends one to every process) must stay down while
   * the children before it drain.
   */
  noMoreRestarts(): void {
    this.stopping = true;
    clearTimeout(this.restartTimer);
    this.restartTimer = undefined;
  }

  /** SIGTERM, then SIGKILL to its process group after stopTimeoutMs. No restart after this. */
  async stop(): Promise<void> {
    this.stopping = true;
    clearTimeout(this.restartTimer);
    const child = this.child;
    if (!child?.pid) return;
    const pid = child.pid;
    const stopStarted = performance.now();
    signal(pid, 'SIGTERM');
    const killTimer = setTimeout(() => {
      this.options.log(`${this.options.name} did not stop within ${this.options.stopTimeoutMs / 1000} s; killing it`);
      signal(-pid, 'SIGKILL');
    }, this.options.stopTimeoutMs);
    await this.exited;
    clearTimeout(killTimer);
    this.options.log(`${this.options.name} stopped (${((performance.now() - stopStarted) / 1000).toFixed(1)} s)`);
    // Whatever the child left in its group (a helper it spawned) goes with it.
    signal(-pid, 'SIGKILL');
  }

  /** Immediate SIGKILL to its process group: a second Ctrl-C, or the supervisor itself failing. */
  kill(): void {
    this.stopping = true;
    clearTimeout(this.restartTimer);
    if (this.child?.pid) signal(-this.child.pid, 'SIGKILL');
  }
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {
    // Already gone.
  }
}
