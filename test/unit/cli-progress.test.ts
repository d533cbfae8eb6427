import { describe, expect, it } from 'vitest';
import { ProgressReporter, progressLine } from '../../src/cli/progress';

describe('progressLine', () => {
  it.each([
    { status: 'queued', progress: { calls_planned: 5000, calls_done: 0 }, line: '[..........] 0/5000 calls  queued' },
    { status: 'running', progress: { calls_planned: 5000, calls_done: 1234 }, line: '[##........] 1234/5000 calls  running' },
    { status: 'running', progress: { calls_planned: 5000, calls_done: 2500 }, line: '[#####.....] 2500/5000 calls  running' },
    { status: 'success', progress: { calls_planned: 100, calls_done: 100 }, line: '[##########] 100/100 calls  success' },
    // Warm-up or retried chunks can overshoot; the bar never does.
    { status: 'running', progress: { calls_planned: 100, calls_done: 130 }, line: '[##########] 130/100 calls  running' },
    { status: 'claimed', progress: { calls_planned: 0, calls_done: 0 }, line: '[..........] 0/? calls  claimed' },
    { status: 'queued', progress: undefined, line: '[..........] 0/? calls  queued' },
  ])('$line', ({ status, progress, line }) => {
    expect(progressLine({ status, progress })).toBe(line);
  });
});

function stream(isTTY: boolean) {
  const writes: string[] = [];
  return { writes, isTTY, write: (chunk: string) => writes.push(chunk) };
}

const at = (status: string, done: number) => ({ status, progress: { calls_planned: 100, calls_done: done } });

describe('ProgressReporter', () => {
  it('redraws one line in place on a terminal, only when it changes, and ends it', () => {
    const out = stream(true);
    const reporter = new ProgressReporter(out, () => 0);
    reporter.update(at('queued', 0));
    reporter.update(at('queued', 0));
    reporter.update(at('running', 50));
    reporter.update(at('success', 100));
    reporter.finish();
    expect(out.writes).toEqual([
      '\r\x1b[2K[..........] 0/100 calls  queued',
      '\r\x1b[2K[#####.....] 50/100 calls  running',
      '\r\x1b[2K[##########] 100/100 calls  success',
      '\n',
    ]);
  });

  it('writes plain lines to a pipe: on every status change, otherwise at most one per 5 s', () => {
    const out = stream(false);
    let clock = 0;
    const reporter = new ProgressReporter(out, () => clock);
    const steps: [number, string, number][] = [
      [0, 'queued', 0], // first: printed
      [1_000, 'claimed', 0], // status change: printed
      [2_000, 'running', 10], // status change: printed
      [3_000, 'running', 20], // 1 s later: quiet
      [6_000, 'running', 50], // 4 s after the last line: quiet
      [7_000, 'running', 60], // 5 s after the last line: printed
      [8_000, 'running', 70], // quiet
      [8_500, 'success', 100], // status change: printed
    ];
    for (const [t, status, done] of steps) {
      clock = t;
      reporter.update(at(status, done));
    }
    reporter.finish();
    expect(out.writes).toEqual([
      '[..........] 0/100 calls  queued\n',
      '[..........] 0/100 calls  claimed\n',
      '[#.........] 10/100 calls  running\n',
      '[######....] 60/100 calls  running\n',
      '[##########] 100/100 calls  success\n',
    ]);
  });

  it('finish() writes nothing when nothing was drawn', () => {
    const out = stream(true);
    new ProgressReporter(out).finish();
    expect(out.writes).toEqual([]);
  });
});
