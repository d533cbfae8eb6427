import type { RunView } from './client';

export interface ProgressStream {
  write(chunk: string): unknown;
  isTTY?: boolean;
}

/** `[#####.....] 1234/5000 calls  running`; an unknown plan shows `?`. */
export function progressLine(run: Pick<RunView, 'status' | 'progress'>, width = 10): string {
  const planned = run.progress?.calls_planned ?? 0;
  const done = run.progress?.calls_done ?? 0;
  const ratio = planned > 0 ? Math.min(1, Math.max(0, done / planned)) : 0;
  const filled = Math.round(ratio * width);
  return `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${planned > 0 ? planned : '?'} calls  ${run.status}`;
}

/**
 * Shows a run's progress on stderr: redrawn in place on a terminal; on a pipe (a CI log) a plain
 * line on every status change and otherwise at most one every `quietMs`.
 */
export class ProgressReporter {
  private lastLine: string | null = null;
  private lastStatus: string | null = null;
  private lastPrintedAt = -Infinity;
  private drawn = false;

  constructor(
    private readonly stream: ProgressStream,
    private readonly now: () => number = Date.now,
    private readonly quietMs = 5_000,
  ) {}

  update(run: Pick<RunView, 'status' | 'progress'>): void {
    const line = progressLine(run);
    if (this.stream.isTTY) {
      if (line !== this.lastLine) this.stream.write(`\r\x1b[2K${line}`);
      this.drawn = true;
    } else {
      const statusChanged = run.status !== this.lastStatus;
      if (statusChanged || this.now() - this.lastPrintedAt >= this.quietMs) {
        this.stream.write(`${line}\n`);
        this.lastPrintedAt = this.now();
      }
    }
    this.lastLine = line;
    this.lastStatus = run.status;
  }

  /** Ends the in-place line so what follows starts on a line of its own. */
  finish(): void {
    if (this.stream.isTTY && this.drawn) this.stream.write('\n');
    this.drawn = false;
  }
}
