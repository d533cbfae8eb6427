/**
 * npm run bench:against -- <git ref> <bench> [rounds] — one benchmark run on an earlier commit
 * ("before") and on this checkout ("after") in the same sitting, alternating the order every
 * round so the machine's drift falls on both alike, then its figures side by side with the
 * after ÷ before ratio (the median of the per-round ratios). For refactors that must not cost
 * speed: `npm run bench:against -- main~20 finalize 3`.
 *
 * "before" runs in a detached git worktree of the ref under the system's temp folder (removed at
 * the end), with this checkout's node_modules linked in: the two sides differ only in the code.
 * The bench's own environment variables (BENCH_*) reach both sides.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fmt } from './lib';

interface Figure {
  label: string;
  /** The first capture group is the number (thousands separators allowed). */
  pattern: RegExp;
  better: 'lower' | 'higher';
}

const WALL: Figure = { label: 'wall time, s', pattern: /^$/, better: 'lower' };

/** The figures worth comparing in each bench's output; every bench also gets its wall time. */
const FIGURES: Record<string, Figure[]> = {
  probe: [
    { label: 'probeRange ÷ autocannon (median of rounds)', pattern: /probeRange ÷ autocannon per round: .*\(median ([\d.]+)×\)/, better: 'higher' },
    { label: 'probeRange ÷ undici Pool.request', pattern: /probeRange ÷ undici Pool\.request: ([\d.]+)×/, better: 'higher' },
  ],
  finalize: [
    { label: 're-check + explanation steps, s', pattern: /re-check and explanation steps: ([\d.]+) s/, better: 'lower' },
    { label: 'finalize with its lock, s', pattern: /finalize with its lock: ([\d.]+) s/, better: 'lower' },
    { label: 'steps + finalize, s', pattern: /; both: ([\d.]+) s/, better: 'lower' },
  ],
  verdict: [{ label: 'verdict statistics on 1,000,000 samples a side, ms', pattern: /every verdict statistic \([^)]*\) ([\d,.]+) ms/, better: 'lower' }],
};

function usage(): never {
  console.error('usage: npm run bench:against -- <git ref> <bench: probe|finalize|verdict|…> [rounds, default 2]');
  process.exit(2);
}

const ROOT = path.resolve(__dirname, '..');
const [ref, bench, roundsArg] = process.argv.slice(2);
if (!ref || !bench) usage();
if (!existsSync(path.join(ROOT, 'bench', `${bench}.ts`))) usage();
const ROUNDS = Number(roundsArg ?? 2);
if (!Number.isInteger(ROUNDS) || ROUNDS < 1) usage();

const git = (...args: string[]) => execFileSync('git', args, { cwd: ROOT, encoding: 'utf8' }).trim();

interface Outcome {
  seconds: number;
  output: string;
  code: number | null;
}

function runBench(cwd: string): Promise<Outcome> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join('bench', `${bench}.ts`)], { cwd, env: process.env, stdio: ['ignore', 'pipe', 'inherit'] });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    child.once('error', reject);
    child.once('close', (code) => resolve({ seconds: (performance.now() - started) / 1000, output, code }));
  });
}

function figureOf(outcome: Outcome, figure: Figure): number | null {
  if (figure === WALL) return outcome.seconds;
  const match = figure.pattern.exec(outcome.output);
  return match ? Number(match[1]!.replaceAll(',', '')) : null;
}

/** The output without what differs between two runs of the same code (timings, machine load, ports). */
function stableLines(output: string): string[] {
  return output
    .split('\n')
    .filter((line) => !/\d+(\.\d+)? ?(s|ms|µs|req\/s|MB)\b|load average|pid |127\.0\.0\.1|database |cost=|[0-9a-f]{8}-[0-9a-f]{4}-/.test(line));
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

async function main(): Promise<void> {
  const sha = git('rev-parse', '--verify', `${ref}^{commit}`);
  const head = git('rev-parse', 'HEAD');
  const dirty = git('status', '--porcelain', '--untracked-files=no') !== '';
  const before = path.join(mkdtempSync(path.join(os.tmpdir(), 'rvs-bench-against-')), 'tree');
  git('worktree', 'add', '--detach', '--quiet', before, sha);
  symlinkSync(path.join(ROOT, 'node_modules'), path.join(before, 'node_modules'));
  try {
    console.log(`bench:${bench} — before: ${ref} (${sha.slice(0, 10)}), after: this checkout (${head.slice(0, 10)}${dirty ? ' + uncommitted changes' : ''}); ${ROUNDS} round(s), order alternating`);
    const outcomes: { before: Outcome[]; after: Outcome[] } = { before: [], after: [] };
    for (let round = 1; round <= ROUNDS; round++) {
      const order: ('before' | 'after')[] = round % 2 === 1 ? ['before', 'after'] : ['after', 'before'];
      for (const side of order) {
        const outcome = await runBench(side === 'before' ? before : ROOT);
        outcomes[side].push(outcome);
        console.log(`  round ${round} ${side}: ${outcome.seconds.toFixed(1)} s, exit ${outcome.code}`);
        if (outcome.code !== 0) console.log(outcome.output.split('\n').slice(-15).map((l) => `    | ${l}`).join('\n'));
      }
    }
    const figures = [...(FIGURES[bench!] ?? []), WALL];
    console.log('');
    console.log('| figure | before (per round) | after (per round) | after ÷ before (median of rounds) | better |');
    console.log('|---|---|---|---|---|');
    for (const figure of figures) {
      const b = outcomes.before.map((o) => figureOf(o, figure));
      const a = outcomes.after.map((o) => figureOf(o, figure));
      const ratios = a.flatMap((x, i) => (x !== null && b[i] !== null && b[i] !== 0 ? [x / b[i]!] : []));
      const show = (xs: (number | null)[]) => xs.map((x) => (x === null ? '—' : fmt(x, 2))).join(', ');
      console.log(`| ${figure.label} | ${show(b)} | ${show(a)} | ${ratios.length ? `${fmt(median(ratios), 3)}×` : '—'} | ${figure.better} |`);
    }
    const same = outcomes.before.every((o, i) => stableLines(o.output).join('\n') === stableLines(outcomes.after[i]!.output).join('\n'));
    console.log(`\noutput apart from timings identical before and after: ${same ? 'yes' : 'no (the code under test prints other results)'}`);
  } finally {
    git('worktree', 'remove', '--force', before);
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
