import { MAX_RESULT_DEPTH } from '../domain/canonical-json';

/*
 * The shape of an answer, read from its text before JSON.parse: the byte cap alone does not bound
 * what parsing allocates. 8 MiB of `[{},{},…]` is 2.8 million objects, 180–230 MB of heap once
 * parsed — more than a worker's whole 160 MB heap (issue 30, H1). One pass over the text, string
 * aware, counting tokens and nesting; no value is built, so a hostile text costs one walk over
 * bytes the worker already holds.
 *
 * A token is an opening `[` or `{`, a `,` or a `:` outside strings, plus one for the root. Every
 * JSON value is the root, the first child of a container, or follows a comma, and every object
 * key is followed by a colon, so tokens ≥ values + keys: a parsed answer holds at most `tokens`
 * values and keys. Measured on Node 20 (V8 11.3), the costliest shapes per token are distinct
 * object keys (`{"k1":0,"k2":0,…}`, 65 B/token, the key strings included), nested arrays and empty
 * objects (34 B/token); scalars cost 10–28 B. PARSED_BYTES_PER_TOKEN rounds the worst up. String
 * contents come on top: at most twice the text (two-byte strings), counted by parsedBytesBound.
 */

/** Heap bytes a parsed answer may use per token, above every shape measured (see above). */
export const PARSED_BYTES_PER_TOKEN = 72;

/**
 * Most tokens an answer may hold. Honest JSON-RPC answers spend 14–30 bytes of text per token (a
 * Solana answer ~16, an EVM block with full transactions or a receipts list ~25): 200,000 tokens
 * admits a Solana answer of ~3 MiB (a getBlock with full transactions of a busy mainnet slot may
 * be refused; "signatures" details fit) and an EVM answer of ~4.8 MiB (a 3,000-transaction block is
 * ~2.6 MiB), and refuses 8 MiB of `[{},…]` after its first ~300 KB. Parsed, an answer at the cap
 * holds at most 200,000 × 72 B ≈ 13.7 MiB plus its strings (parsedBytesBound). The figure is what
 * the worker's 160 MB heap allows (parsedAnswersHeapPlan below).
 */
export const MAX_ANSWER_TOKENS = 200_000;

/**
 * Deepest nesting of a whole message: the result's own cap (MAX_RESULT_DEPTH) plus the envelope
 * object and a batch's array around it. The result's depth is checked again, exactly, after parsing.
 */
export const MAX_ANSWER_NESTING = MAX_RESULT_DEPTH + 2;

export interface JsonShapeCaps {
  maxTokens: number;
  maxNesting: number;
}

export const ANSWER_SHAPE_CAPS: JsonShapeCaps = { maxTokens: MAX_ANSWER_TOKENS, maxNesting: MAX_ANSWER_NESTING };

export type JsonShapeVerdict = 'ok' | 'too_many_tokens' | 'too_deep';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_ARRAY = 0x5b;
const OPEN_OBJECT = 0x7b;
const CLOSE_ARRAY = 0x5d;
const CLOSE_OBJECT = 0x7d;
const COMMA = 0x2c;
const COLON = 0x3a;

/**
 * Whether `text`, parsed, stays within `caps`: 'too_many_tokens' or 'too_deep' as soon as a cap
 * is passed (the rest of the text is not read). Malformed JSON is not judged here — JSON.parse
 * refuses it after — but the counts hold for any text: a string left open ends the scan, and
 * brackets outside strings are counted whether or not they balance.
 */
export function scanJsonShape(text: string, caps: JsonShapeCaps = ANSWER_SHAPE_CAPS): JsonShapeVerdict {
  let tokens = 1;
  let depth = 0;
  const length = text.length;
  for (let i = 0; i < length; i++) {
    const code = text.charCodeAt(i);
    if (code === QUOTE) {
      // Skip the string: an escape takes the character after it, whatever it is.
      for (i++; i < length; i++) {
        const inner = text.charCodeAt(i);
        if (inner === BACKSLASH) i++;
        else if (inner === QUOTE) break;
      }
    } else if (code === OPEN_ARRAY || code === OPEN_OBJECT) {
      if (++depth > caps.maxNesting) return 'too_deep';
      if (++tokens > caps.maxTokens) return 'too_many_tokens';
    } else if (code === CLOSE_ARRAY || code === CLOSE_OBJECT) {
      depth--;
    } else if (code === COMMA || code === COLON) {
      if (++tokens > caps.maxTokens) return 'too_many_tokens';
    }
  }
  return 'ok';
}

/** The most heap a text of `textLength` UTF-16 units within `caps` may take once parsed. */
export const parsedBytesBound = (textLength: number, caps: JsonShapeCaps = ANSWER_SHAPE_CAPS): number =>
  caps.maxTokens * PARSED_BYTES_PER_TOKEN + 2 * textLength;

/** How far into a refused message its id is looked for: JSON-RPC servers write it first or second. */
const ID_SEARCH_CHARS = 512;
const DIGIT_0 = 0x30;
const DIGIT_9 = 0x39;

/**
 * The top-level `"id": <integer>` of a message refused unparsed (too many values, too deep), when
 * it sits within the first ID_SEARCH_CHARS characters — where servers put it, before the result —
 * so the request it answers is told now rather than left to time out. Null when not found there.
 * Bounded by ID_SEARCH_CHARS whatever the text; string aware, so an "id" inside a string or a
 * nested object is not taken.
 */
export function leadingMessageId(text: string): number | null {
  const end = Math.min(text.length, ID_SEARCH_CHARS);
  let depth = 0;
  for (let i = 0; i < end; i++) {
    const code = text.charCodeAt(i);
    if (code === QUOTE) {
      const start = i + 1;
      for (i++; i < end; i++) {
        const inner = text.charCodeAt(i);
        if (inner === BACKSLASH) i++;
        else if (inner === QUOTE) break;
      }
      if (depth !== 1 || text.slice(start, i) !== 'id') continue;
      let j = i + 1;
      while (j < end && /\s/.test(text[j]!)) j++;
      if (text.charCodeAt(j) !== COLON) continue;
      j++;
      while (j < end && /\s/.test(text[j]!)) j++;
      const digitsStart = j;
      while (j < end && j - digitsStart < 16 && text.charCodeAt(j) >= DIGIT_0 && text.charCodeAt(j) <= DIGIT_9) j++;
      if (j === digitsStart || j >= end) return null;
      if (text.charCodeAt(j) !== COMMA && text.charCodeAt(j) !== CLOSE_OBJECT && !/\s/.test(text[j]!)) return null;
      const id = Number(text.slice(digitsStart, j));
      return Number.isSafeInteger(id) ? id : null;
    } else if (code === OPEN_ARRAY || code === OPEN_OBJECT) depth++;
    else if (code === CLOSE_ARRAY || code === CLOSE_OBJECT) depth--;
  }
  return null;
}

/*
 * What a worker process may hold of parsed answers at once, checked against its heap at start-up.
 *
 * Every answer is parsed and judged inside one synchronous call (classifyResponse, a batch's
 * readWhole, a WebSocket message handler), and only its fingerprint is kept: one JS thread holds
 * at most one such value at a time — with its normalised copy and its canonical text while it is
 * fingerprinted. Values handed to a caller (`result()`: head reads, pin contexts, re-checks,
 * mismatch explanations) live on while it awaits: a re-check or explanation holds its two sides'
 * answers together. Responses still arriving are Buffers outside the V8 heap, bounded by the
 * response budget (response-budget.ts).
 */

/** Answers judged at once: parsed, normalised and canonicalised inside one synchronous call. */
export const ANSWERS_JUDGED_AT_ONCE = 1;
/** Parsed answers held by callers at once: a re-check's or an explanation's pair. */
export const ANSWERS_HELD_AT_ONCE = 2;

/**
 * Heap a worker uses before any answer: its Temporal worker, pools, caches and a run's in-memory
 * state. Measured (nodejs_heap_size_used_bytes, hostile-answers.test.ts): 40–59 MiB outside the hostile
 * answers (garbage not yet collected included), 74–89 MiB at most during them, in two runs.
 */
export const WORKER_BASE_HEAP_BYTES = 56 * 1024 * 1024;

/** The share of the V8 heap limit the plan may fill: the rest is garbage not yet collected. */
export const HEAP_HEADROOM = 0.9;

export interface HeapPlan {
  heapLimitBytes: number;
  perAnswerBytes: number;
  plannedBytes: number;
  fits: boolean;
}

/** The plan for a process whose V8 heap limit is `heapLimitBytes` (v8.getHeapStatistics().heap_size_limit). */
export function parsedAnswersHeapPlan(heapLimitBytes: number, maxAnswerBytes: number, caps: JsonShapeCaps = ANSWER_SHAPE_CAPS): HeapPlan {
  const perAnswerBytes = parsedBytesBound(maxAnswerBytes, caps);
  // Judged: its text, the parsed value, a normalised copy (no larger) and the canonical text (no
  // longer than the answer). Held: the parsed value with its strings.
  const judgedBytes = maxAnswerBytes + 2 * caps.maxTokens * PARSED_BYTES_PER_TOKEN + 2 * maxAnswerBytes + maxAnswerBytes;
  const plannedBytes = WORKER_BASE_HEAP_BYTES + ANSWERS_JUDGED_AT_ONCE * judgedBytes + ANSWERS_HELD_AT_ONCE * perAnswerBytes;
  return { heapLimitBytes, perAnswerBytes, plannedBytes, fits: plannedBytes <= HEAP_HEADROOM * heapLimitBytes };
}

const mib = (bytes: number) => `${Math.round(bytes / 2 ** 20)} MiB`;

/** The readable refusal of a plan that does not fit, naming the figures and the fix. */
export const heapPlanRefusal = (plan: HeapPlan): string =>
  `the worker's heap limit (${mib(plan.heapLimitBytes)}) is too small for the answers it may hold at once: ` +
  `${mib(WORKER_BASE_HEAP_BYTES)} base + ${ANSWERS_JUDGED_AT_ONCE} answer being judged + ${ANSWERS_HELD_AT_ONCE} × ${mib(plan.perAnswerBytes)} parsed answers held = ${mib(plan.plannedBytes)}, ` +
  `over ${Math.round(HEAP_HEADROOM * 100)} % of the limit; start it with a larger --max-old-space-size (160 is the default)`;
