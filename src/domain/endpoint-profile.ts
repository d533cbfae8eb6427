import { z } from 'zod';

/*
 * The endpoint profile (DESIGN.md §16, issue 35): what an endpoint serves and where its limits
 * are, discovered within a request budget and rate with harmless calls only. This file holds the
 * family-neutral parts: the profile's shape (one zod schema, STYLE rule 16), the budgeted and
 * paced call a family's discovery is handed, how a method's answer is classified, and the two
 * bisections (the largest accepted size; the oldest height held). What a family asks, and what its
 * errors mean, is the family's (src/chains/<family>/profile.ts, reached through the registry).
 */

/** How long an error message kept as evidence may be (characters, after URL redaction). */
export const EVIDENCE_MESSAGE_MAX = 160;
export const DEFAULT_PROFILE_BUDGET = 200;
export const DEFAULT_PROFILE_RATE_PER_S = 20;

const evidenceSchema = z.object({
  code: z.number().int().nullable(),
  message: z.string().max(EVIDENCE_MESSAGE_MAX),
  http_status: z.number().int().nullable(),
});
export type ProfileEvidence = z.output<typeof evidenceSchema>;

export const METHOD_SUPPORT = ['supported', 'not_found', 'disabled', 'error'] as const;
export type MethodSupport = (typeof METHOD_SUPPORT)[number];

const methodProfileSchema = z.object({
  support: z.enum(METHOD_SUPPORT),
  /** The answer's code and message when it was an error (null: a result, or budget spent before asking). */
  evidence: evidenceSchema.nullable(),
});

export const ARCHIVE_KINDS = ['full', 'window', 'latest_for_history', 'unknown'] as const;
export type ArchiveKind = (typeof ARCHIVE_KINDS)[number];

const archiveCheckSchema = z.object({
  height: z.number().int().nonnegative(),
  /** correct: the value held there; not_held: an error saying the state is gone; wrong: a value that is not the true one; error: neither. */
  outcome: z.enum(['correct', 'not_held', 'wrong', 'error']),
  detail: z.string().max(2 * EVIDENCE_MESSAGE_MAX),
});
export type ArchiveCheck = z.output<typeof archiveCheckSchema>;

export const endpointProfileSchema = z.object({
  family: z.string(),
  head: z.number().int().nonnegative().nullable(),
  methods: z.record(z.string(), methodProfileSchema),
  /** Namespaces (the method name's prefix before `_`) with at least one supported method, sorted. */
  namespaces: z.array(z.string()),
  archive: z.object({
    kind: z.enum(ARCHIVE_KINDS),
    /** The oldest block whose state was answered correctly (null: latest_for_history or unknown). */
    oldest_correct_block: z.number().int().nonnegative().nullable(),
    checked_blocks: z.array(z.number().int().nonnegative()),
    evidence: z.array(archiveCheckSchema),
  }),
  logs: z.object({
    /** The largest `toBlock - fromBlock + 1` accepted; null when no cap was found below the chain's length. */
    max_block_range: z.number().int().positive().nullable(),
    /** The most results one query may return; null when no cap was found. */
    max_results: z.number().int().nonnegative().nullable(),
    /** The widest range the range search went to (the chain's length, at most a bound): no cap below it when max_block_range is null. */
    searched_up_to_blocks: z.number().int().positive().nullable(),
    /** The endpoint's own refusals (range, results), as evidence. */
    evidence: z.array(evidenceSchema.extend({ limit: z.enum(['range', 'results', 'other']) })),
  }),
  finality: z.record(
    z.string(),
    z.object({ supported: z.boolean(), lag_blocks: z.number().int().nullable(), evidence: evidenceSchema.nullable() }),
  ),
  /** Needs a WebSocket connection: not discovered over HTTP (null). */
  subscriptions: z.null(),
  requests_used: z.number().int().nonnegative(),
  reference_requests_used: z.number().int().nonnegative(),
  budget: z.number().int().positive(),
  inconclusive_reasons: z.array(z.string()),
});
export type EndpointProfile = z.output<typeof endpointProfileSchema>;

/** One answer as the profile's transport hands it over: never a throw for what the endpoint did. */
export type ProfileAnswer =
  | { kind: 'result'; result: unknown }
  | { kind: 'rpc_error'; code: number | null; message: string; httpStatus: number | null }
  | { kind: 'http_error'; status: number; body: string }
  | { kind: 'transport'; message: string };

/** The raw call the run step (or a test) provides: one JSON-RPC call, bounded in time and size. */
export type ProfileTransport = (method: string, params: unknown[]) => Promise<ProfileAnswer>;

/** A budgeted call: rejects with ProfileBudgetSpent once the budget is spent, never for what the endpoint answered. */
export type ProfileCall = (method: string, params: unknown[]) => Promise<ProfileAnswer>;

export class ProfileBudgetSpent extends Error {
  constructor(readonly budget: number) {
    super(`the profile's request budget (${budget}) is spent`);
    this.name = 'ProfileBudgetSpent';
  }
}

export interface BudgetedCall {
  call: ProfileCall;
  used(): number;
}

/**
 * The budget and pace every discovery call goes through: at most `budget` calls, their starts at
 * least 1000/ratePerS ms apart (calls are serialised). A transport that throws is an answer of
 * kind `transport`, so a discovery sees every failure as a value.
 */
export function budgetedCall(
  transport: ProfileTransport,
  options: { budget: number; ratePerS: number; sleep?: (ms: number) => Promise<void>; now?: () => number },
): BudgetedCall {
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const now = options.now ?? (() => Date.now());
  const gapMs = 1000 / options.ratePerS;
  let used = 0;
  let nextStart = 0;
  let chain: Promise<unknown> = Promise.resolve();
  const call: ProfileCall = (method, params) => {
    const run = chain.then(async (): Promise<ProfileAnswer> => {
      if (used >= options.budget) throw new ProfileBudgetSpent(options.budget);
      used += 1;
      const wait = nextStart - now();
      if (wait > 0) await sleep(wait);
      nextStart = now() + gapMs;
      try {
        return await transport(method, params);
      } catch (error) {
        return { kind: 'transport', message: error instanceof Error ? error.message : String(error) };
      }
    });
    chain = run.catch(() => undefined);
    return run;
  };
  return { call, used: () => used };
}

/** A message as evidence: URLs replaced (they may carry keys), whitespace folded, cut to EVIDENCE_MESSAGE_MAX. */
export function evidenceMessage(message: string): string {
  return message
    .replace(/\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>]+/gi, '<url>')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, EVIDENCE_MESSAGE_MAX);
}

/** The evidence of an answer that was not a result (null for a result). */
export function evidenceOf(answer: ProfileAnswer): ProfileEvidence | null {
  switch (answer.kind) {
    case 'result':
      return null;
    case 'rpc_error':
      return { code: answer.code, message: evidenceMessage(answer.message), http_status: answer.httpStatus };
    case 'http_error':
      return { code: null, message: evidenceMessage(answer.body), http_status: answer.status };
    case 'transport':
      return { code: null, message: evidenceMessage(answer.message), http_status: null };
  }
}

/** Texts by which endpoints and gateways say a method exists but is switched off or not allowed for this caller. */
const DISABLED_TEXT =
  /\b(disabled|not allowed|not permitted|forbidden|not whitelisted|not in whitelist|unauthori[sz]ed|blocked|restricted|not enabled|not available on (the|your) (current )?(plan|tier)|upgrade your plan|requires? (a )?(paid|premium|higher))\b/i;

/**
 * What an answer to a catalog call says about its method: a result — supported; invalid params
 * (-32602) — supported too (the method was routed, only our params were refused); a "disabled" text
 * or HTTP 401/403 — disabled; -32601 — not found; anything else (429, timeouts, other errors) —
 * error, which says nothing about the method.
 */
export function classifyMethodAnswer(answer: ProfileAnswer): MethodSupport {
  switch (answer.kind) {
    case 'result':
      return 'supported';
    case 'http_error':
      if (answer.status === 401 || answer.status === 403) return 'disabled';
      if (answer.status === 404 || answer.status === 405) return DISABLED_TEXT.test(answer.body) ? 'disabled' : 'error';
      return DISABLED_TEXT.test(answer.body) ? 'disabled' : 'error';
    case 'transport':
      return 'error';
    case 'rpc_error':
      if (answer.httpStatus === 401 || answer.httpStatus === 403) return 'disabled';
      if (DISABLED_TEXT.test(answer.message)) return 'disabled';
      if (answer.code === -32601) return 'not_found';
      if (answer.code === -32602) return 'supported';
      return 'error';
  }
}

/** Namespaces with at least one supported method (the prefix before the first `_`), sorted. */
export function namespacesOf(methods: Readonly<Record<string, { support: MethodSupport }>>): string[] {
  const names = new Set<string>();
  for (const [method, profile] of Object.entries(methods)) {
    const cut = method.indexOf('_');
    if (profile.support === 'supported' && cut > 0) names.add(method.slice(0, cut));
  }
  return [...names].sort();
}

/** What one probe of a size said: accepted, refused (a cap), or nothing usable (an error that is no refusal, the budget). */
export type SizeProbe = 'accepted' | 'refused' | 'inconclusive';

export interface LargestAccepted {
  /** The largest size accepted (null: none was). */
  largest: number | null;
  /** The smallest size refused (null: none up to `max`: no cap below it). */
  smallestRefused: number | null;
  /** Exact when `smallestRefused === largest + 1`, or no cap up to max. */
  exact: boolean;
  probes: number[];
}

/**
 * The largest size in [1, max] a probe accepts, assuming every size below an accepted one is
 * accepted: hints first (sizes named by the endpoint's own refusal text: n and n+1), then doubling
 * from `start`, then halving the gap. At most `maxProbes` probes; an inconclusive probe stops the search.
 */
export async function largestAccepted(
  probe: (size: number) => Promise<SizeProbe>,
  options: { start: number; max: number; maxProbes: number; hints?: () => readonly number[] },
): Promise<LargestAccepted> {
  let lo: number | null = null; // largest accepted
  let hi: number | null = null; // smallest refused
  const probes: number[] = [];
  const tried = new Set<number>();
  const ask = async (size: number): Promise<SizeProbe> => {
    probes.push(size);
    tried.add(size);
    const said = await probe(size);
    if (said === 'accepted' && (lo === null || size > lo)) lo = size;
    if (said === 'refused' && (hi === null || size < hi)) hi = size;
    return said;
  };
  const settled = () => (hi !== null && (lo ?? 0) + 1 >= hi) || (hi === null && lo !== null && lo >= options.max);
  const result = (): LargestAccepted => ({ largest: lo, smallestRefused: hi, exact: settled(), probes });
  const usedHints = new Set<number>();
  const nextHint = (): number | null => {
    for (const hint of options.hints?.() ?? []) {
      const size = Math.min(Math.max(1, Math.floor(hint)), options.max);
      if (usedHints.has(size) || tried.has(size)) continue;
      if ((lo !== null && size <= lo) || (hi !== null && size >= hi)) continue;
      usedHints.add(size);
      return size;
    }
    return null;
  };
  let size = Math.min(Math.max(1, options.start), options.max);
  while (probes.length < options.maxProbes && !settled()) {
    const hint = nextHint();
    let next: number;
    if (hint !== null) next = hint;
    else if (hi === null) next = lo === null ? size : Math.min(options.max, Math.max(lo * 2, lo + 1));
    else next = Math.floor(((lo ?? 0) + hi) / 2) === (lo ?? 0) ? (lo ?? 0) + 1 : Math.floor(((lo ?? 0) + hi) / 2);
    if (next < 1 || tried.has(next)) break;
    const said = await ask(next);
    if (said === 'inconclusive') break;
    size = next;
  }
  return result();
}

/** What a height's state check said (the family's value check: correct, not held, a wrong value, or no answer). */
export type HeightCheck = 'correct' | 'not_held' | 'wrong' | 'error';

export interface OldestHeld {
  /** The oldest height checked correct with every older checked height incorrect (null: none correct). */
  oldest: number | null;
  /** The oldest height is exact: the one below was checked and is not held (or it is `floor`). */
  exact: boolean;
  checked: number[];
  /** A check answered neither correct nor incorrect (an error): the search stopped there. */
  stoppedAt: number | null;
}

/**
 * The oldest height in [floor, top] whose state is answered correctly, assuming the held heights
 * are one window ending at `top`: `top` first (nothing held there: none), then `floor` (held: all),
 * then bisection. A check that is `error` stops the search (inconclusive). At most `maxChecks`.
 */
export async function oldestHeld(
  check: (height: number) => Promise<HeightCheck>,
  options: { floor: number; top: number; maxChecks: number },
): Promise<OldestHeld> {
  const checked: number[] = [];
  const ask = async (height: number) => {
    checked.push(height);
    return check(height);
  };
  const first = await ask(options.top);
  if (first !== 'correct') return { oldest: null, exact: false, checked, stoppedAt: first === 'error' ? options.top : null };
  let good = options.top; // oldest correct
  if (options.floor >= options.top) return { oldest: good, exact: true, checked, stoppedAt: null };
  const bottom = await ask(options.floor);
  if (bottom === 'correct') return { oldest: options.floor, exact: true, checked, stoppedAt: null };
  if (bottom === 'error') return { oldest: good, exact: false, checked, stoppedAt: options.floor };
  let bad = options.floor; // newest incorrect
  while (good - bad > 1) {
    if (checked.length >= options.maxChecks) return { oldest: good, exact: false, checked, stoppedAt: null };
    const mid = bad + Math.floor((good - bad) / 2);
    const said = await ask(mid);
    if (said === 'correct') good = mid;
    else if (said === 'error') return { oldest: good, exact: false, checked, stoppedAt: mid };
    else bad = mid;
  }
  return { oldest: good, exact: true, checked, stoppedAt: null };
}

/** Whole numbers named in a text (e.g. "range 1000000 exceeds limit of 10000" → [1000000, 10000]); hex quantities too. */
export function numbersIn(text: string): number[] {
  const found: number[] = [];
  for (const match of text.matchAll(/\b(0x[0-9a-f]+|\d{1,15})\b/gi)) {
    const value = Number(match[1]);
    if (Number.isSafeInteger(value)) found.push(value);
  }
  return found;
}
