/*
 * Bounds on JSON a tenant sends us, checked before anything walks it recursively (the depth of one
 * value alone is exceedsJsonDepth in canonical-json.ts, shared with the probe's answers). Zod, JSON.stringify,
 * canonicalisation and the probe's request building all recurse over nested values, so a body of
 * 100,000 nested arrays (200 KB, well under the body limit) would overflow the stack in any of them;
 * Postgres refuses a NUL in text and jsonb, and a lone surrogate in jsonb, which would surface as a
 * 500. Both walks here use an explicit stack: they must not themselves be the recursion they guard
 * against.
 */

/**
 * Nesting allowed in a free-form field (run metadata, workload params): generous for any real
 * JSON-RPC params, and half the depth the probe accepts in an answer (MAX_RESULT_DEPTH).
 */
export const MAX_JSON_DEPTH = 32;

/**
 * Nesting allowed in a whole request body or query: a free-form field at MAX_JSON_DEPTH sits a few
 * levels down (config.workload.methods[i].params), so this only stops bodies no field could accept.
 */
export const MAX_BODY_DEPTH = 64;

/**
 * Most values (the root, containers and scalars; keys not counted) a request body may hold. Every
 * honest body is far below it (a 64 KiB suite config holds a few thousand); the 1 MiB body limit
 * alone lets through about 480,000 numbers, whose validation and hashing would hold the event
 * loop, for every tenant, for a second or more.
 */
export const MAX_BODY_VALUES = 100_000;

export type JsonPath = (string | number)[];

const isContainer = (value: unknown): value is object => value !== null && typeof value === 'object';

export type JsonProblem = { kind: 'nul' | 'lone_surrogate' | 'too_deep' | 'too_many_values'; path: JsonPath };

// With the u flag a surrogate pair is one code point, so this matches only a surrogate left alone.
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

/** Why a string cannot be stored as it is: Postgres refuses NUL in text and jsonb, and lone surrogates in jsonb. */
function stringProblem(text: string): 'nul' | 'lone_surrogate' | null {
  if (text.includes('\u0000')) return 'nul';
  if (LONE_SURROGATE.test(text)) return 'lone_surrogate';
  return null;
}

/** One container being walked: its keys (null for an array) and the index of the child visited last + 1. */
interface Frame {
  node: object;
  keys: string[] | null;
  next: number;
}

/**
 * The first problem in document order: a NUL or a lone surrogate (not Unicode: JSON.parse lets
 * "\\ud800" through) in a string or in an object key (the path then ends at that key; array indices
 * are numbers, so a string segment is always a key), a container nested deeper than `maxDepth`
 * (the path leads to it), or more than `maxValues` values in all (the path is empty: the whole
 * value is too big). Null when there is none.
 */
export function findJsonProblem(value: unknown, maxDepth: number, maxValues = Infinity): JsonProblem | null {
  if (typeof value === 'string') {
    const problem = stringProblem(value);
    return problem ? { kind: problem, path: [] } : null;
  }
  if (!isContainer(value)) return null;
  if (maxDepth <= 0) return { kind: 'too_deep', path: [] };
  if (maxValues < 1) return { kind: 'too_many_values', path: [] };
  // One frame per open container (at most maxDepth), nothing per scalar: a body of many values
  // costs a walk, not an allocation each. The path is built only for the problem reported.
  let values = 1;
  const frames: Frame[] = [frameOf(value)];
  while (frames.length > 0) {
    const frame = frames[frames.length - 1]!;
    const { node, keys } = frame;
    if (frame.next >= (keys ? keys.length : (node as unknown[]).length)) {
      frames.pop();
      continue;
    }
    const index = frame.next++;
    let child: unknown;
    if (keys) {
      const key = keys[index]!;
      const keyProblem = stringProblem(key);
      if (keyProblem) return { kind: keyProblem, path: pathOf(frames) };
      child = (node as Record<string, unknown>)[key];
    } else {
      child = (node as unknown[])[index];
    }
    if (++values > maxValues) return { kind: 'too_many_values', path: [] };
    if (typeof child === 'string') {
      const problem = stringProblem(child);
      if (problem) return { kind: problem, path: pathOf(frames) };
    } else if (isContainer(child)) {
      // frames.length is the child's depth: the containers above it.
      if (frames.length >= maxDepth) return { kind: 'too_deep', path: pathOf(frames) };
      frames.push(frameOf(child));
    }
  }
  return null;
}

function frameOf(node: object): Frame {
  return { node, keys: Array.isArray(node) ? null : Object.keys(node), next: 0 };
}

/** The path to the child each open frame is visiting. */
function pathOf(frames: readonly Frame[]): JsonPath {
  return frames.map((frame) => (frame.keys ? frame.keys[frame.next - 1]! : frame.next - 1));
}

const SEGMENT_SHOWN = 64;
const SEGMENTS_SHOWN = 12;

function escapeControls(text: string): string {
  let out = '';
  for (const char of text) {
    const code = char.charCodeAt(0);
    // for…of yields a surrogate pair as one character, so a lone surrogate is a character of its own here.
    const escape = code < 0x20 || code === 0x7f || (char.length === 1 && code >= 0xd800 && code <= 0xdfff);
    out += escape ? `\\u${code.toString(16).padStart(4, '0')}` : char;
  }
  return out;
}

/**
 * A path as a field name for an error detail: dotted, control characters and lone surrogates
 * escaped (a key may hold the very character being reported), long keys and long paths cut, since the name is echoed to the caller
 * and written to logs.
 */
export function formatJsonPath(path: JsonPath, prefix?: string): string {
  const segments = path.slice(0, SEGMENTS_SHOWN).map((segment) => {
    const text = String(segment);
    return text.length > SEGMENT_SHOWN ? `${escapeControls(text.slice(0, SEGMENT_SHOWN))}…` : escapeControls(text);
  });
  if (path.length > SEGMENTS_SHOWN) segments.push('…');
  return [prefix, ...segments].filter((s) => s !== undefined && s !== '').join('.');
}
