/**
 * npm run bench:response-budget — peak RSS of a probe process while 64 answers of ~8 MiB (just
 * under the response cap) arrive at once, with the worker's response budget and without it.
 *
 * Three processes on 127.0.0.1: this one (measures), a server answering every POST with a valid
 * JSON-RPC result of ANSWER_BYTES, and the probe process, started with the worker's Node flags
 * (`--max-old-space-size=160 --import tsx`), which opens a probe client of 64 connections and
 * sends 64 concurrent calls, ROUNDS times (default 1), fingerprinting every answer as a run with correctness
 * does. Its RSS is sampled every 20 ms and its VmHWM read before it exits. The probe process is
 * not the whole worker (no Temporal, no database): its idle RSS is printed so the growth can be
 * read against it. Bounded: each probe process is killed after 300 s (one round of 64 answers
 * takes 5–45 s on a 2-core machine, depending on what else runs).
 */
import { CHAINS } from '../src/chains/registry';
import { fork, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { createJsonRpcClient, MAX_RESPONSE_BYTES } from '../src/probe/json-rpc-client';
import { DEFAULT_RESPONSE_BUDGET_BYTES, processResponseBudget, ResponseBudget } from '../src/probe/response-budget';
import { fmt, machineLine, table } from './lib';

const CALLS_AT_ONCE = 64;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 1);
/** Just under the 8 MiB cap, so every answer is read in full and classified. */
const ANSWER_BYTES = MAX_RESPONSE_BYTES - 1024;
const KILL_AFTER_MS = 300_000;

function statusKb(pid: number, field: 'VmRSS' | 'VmHWM'): number | null {
  try {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) : null;
  } catch {
    return null;
  }
}

// ---- child: the server ----

function runServer(): void {
  const result = `"0x${'ab'.repeat((ANSWER_BYTES - 64) / 2)}"`;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const id = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id: number }).id;
      const body = `{"jsonrpc":"2.0","id":${id},"result":${result}}`;
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
      res.end(body);
    });
  });
  server.listen(0, '127.0.0.1', () => process.send?.({ port: (server.address() as { port: number }).port }));
  process.on('disconnect', () => process.exit(0));
}

// ---- child: the probe process ----

async function runProbe(url: string, budgetBytes: number): Promise<void> {
  const budget = budgetBytes === DEFAULT_RESPONSE_BUDGET_BYTES ? processResponseBudget : new ResponseBudget(budgetBytes);
  const client = createJsonRpcClient(
    { url, headers: {}, timeoutMs: 60_000 },
    { connections: CALLS_AT_ONCE, allowPrivateTargets: true, answers: CHAINS.evm, fingerprintResults: true, budget },
  );
  // Let the parent read the idle RSS first.
  process.send?.({ ready: true });
  await new Promise<void>((resolve) => process.once('message', () => resolve()));
  const outcomes = new Map<string, number>();
  const started = performance.now();
  for (let round = 0; round < ROUNDS; round++) {
    const results = await Promise.all(
      Array.from({ length: CALLS_AT_ONCE }, (_, i) => client.call({ seq: round * CALLS_AT_ONCE + i, method: 'eth_call', params: [] })),
    );
    for (const r of results) outcomes.set(r.outcome, (outcomes.get(r.outcome) ?? 0) + 1);
  }
  const seconds = (performance.now() - started) / 1000;
  await client.close();
  process.send?.({ done: true, outcomes: Object.fromEntries(outcomes), seconds, peakBudgetBytes: budget.peakBytes });
  // Wait for the parent to read VmHWM, then go.
  await new Promise<void>((resolve) => process.once('message', () => resolve()));
  process.exit(0);
}

// ---- parent ----

interface Row {
  label: string;
  idleMb: number;
  peakMb: number;
  hwmMb: number;
  seconds: number;
  outcomes: Record<string, number>;
  peakBudgetMb: number;
}

async function measure(url: string, label: string, budgetBytes: number): Promise<Row> {
  const child: ChildProcess = fork(__filename, ['probe', url, String(budgetBytes)], {
    execArgv: ['--max-old-space-size=160', '--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const killer = setTimeout(() => child.kill('SIGKILL'), KILL_AFTER_MS);
  const next = () => new Promise<Record<string, unknown>>((resolve, reject) => {
    child.once('message', (m) => resolve(m as Record<string, unknown>));
    child.once('exit', (code) => reject(new Error(`probe process exited with ${code}`)));
  });
  await next();
  await new Promise((resolve) => setTimeout(resolve, 300));
  const pid = child.pid!;
  const idleKb = statusKb(pid, 'VmRSS') ?? 0;
  let peakKb = idleKb;
  const sampler = setInterval(() => (peakKb = Math.max(peakKb, statusKb(pid, 'VmRSS') ?? 0)), 20);
  child.send('go');
  const done = await next();
  clearInterval(sampler);
  const hwmKb = statusKb(pid, 'VmHWM') ?? 0;
  child.send('exit');
  await new Promise((resolve) => child.once('exit', resolve));
  clearTimeout(killer);
  return {
    label,
    idleMb: idleKb / 1024,
    peakMb: peakKb / 1024,
    hwmMb: hwmKb / 1024,
    seconds: done.seconds as number,
    outcomes: done.outcomes as Record<string, number>,
    peakBudgetMb: (done.peakBudgetBytes as number) / 2 ** 20,
  };
}

async function main(): Promise<void> {
  console.log(machineLine());
  console.log(`${CALLS_AT_ONCE} concurrent calls × ${ROUNDS} rounds, answers of ${fmt(ANSWER_BYTES / 2 ** 20, 3)} MiB, probe process with --max-old-space-size=160`);
  const server = fork(__filename, ['server'], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  try {
    const port = await new Promise<number>((resolve) => server.once('message', (m: { port: number }) => resolve(m.port)));
    const url = `http://127.0.0.1:${port}/`;
    const rows = [
      await measure(url, `budget ${fmt(DEFAULT_RESPONSE_BUDGET_BYTES / 2 ** 20)} MiB (default)`, DEFAULT_RESPONSE_BUDGET_BYTES),
      await measure(url, 'no budget (unbounded)', Number.POSITIVE_INFINITY),
    ];
    console.log('');
    console.log(
      table(
        ['probe process', 'idle RSS MB', 'peak RSS MB (20 ms)', 'VmHWM MB', 'growth MB', 'budget peak MiB', 'seconds', 'outcomes'],
        rows.map((r) => [
          r.label,
          fmt(r.idleMb, 1),
          fmt(r.peakMb, 1),
          fmt(r.hwmMb, 1),
          fmt(r.hwmMb - r.idleMb, 1),
          Number.isFinite(r.peakBudgetMb) ? fmt(r.peakBudgetMb, 1) : 'n/a',
          fmt(r.seconds, 2),
          Object.entries(r.outcomes).map(([k, v]) => `${k} ${v}`).join(', '),
        ]),
      ),
    );
  } finally {
    server.kill('SIGTERM');
  }
}

const [mode, url, budget] = process.argv.slice(2);
if (mode === 'server') runServer();
else if (mode === 'probe') void runProbe(url!, Number(budget));
else {
  main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
