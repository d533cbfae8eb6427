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

export type JsonPath = (string | number)[];

const isContainer = (value: unknown): value is object => value !== null && typeof value === 'object';

function childrenOf(value: object): [string | number, unknown][] {
  return Array.isArray(value) ? value.map((child, index) => [index, child] as [number, unknown]) : Object.entries(value);
}

export type JsonProblem = { kind: 'nul' | 'lone_surrogate' | 'too_deep'; path: JsonPath };

// With the u flag a surrogate pair is one code point, so this matches only a surrogate left alone.
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

/** Why a string cannot be stored as it is: Postgres refuses NUL in text and jsonb, and lone surrogates in jsonb. */
function stringProblem(text: string): 'nul' | 'lone_surrogate' | null {
  if (text.includes('\u0000')) return 'nul';
  if (LONE_SURROGATE.test(text)) return 'lone_surrogate';
  return null;
}

/**
 * The first problem in document order: a NUL or a lone surrogate (not Unicode: JSON.parse lets
 * "\\ud800" through) in a string or in an object key (the path then ends at that key; array indices
 * are numbers, so a string segment is always a key), or a container nested deeper than `maxDepth`
 * (the path leads to it). Null when there is none.
 */
export function findJsonProblem(value: unknown, maxDepth: number): JsonProblem | null {
  // Each entry links to its parent instead of copying the path, so a walk stays linear in the
  // size of the value; the path is built only for the problem reported.
  const stack: Visit[] = [{ node: value, key: undefined, depth: 0, parent: null }];
  while (stack.length > 0) {
    const visit = stack.pop()!;
    const { node, key } = visit;
    const keyProblem = typeof key === 'string' ? stringProblem(key) : null;
    if (keyProblem) return { kind: keyProblem, path: pathOf(visit) };
    if (typeof node === 'string') {
      const problem = stringProblem(node);
      if (problem) return { kind: problem, path: pathOf(visit) };
      continue;
    }
    if (!isContainer(node)) continue;
    if (visit.depth >= maxDepth) return { kind: 'too_deep', path: pathOf(visit) };
    const children = childrenOf(node);
    // Pushed in reverse so the first child is visited first: the problem named is the first one a reader meets.
    for (let i = children.length - 1; i >= 0; i--) {
      const [childKey, child] = children[i]!;
      stack.push({ node: child, key: childKey, depth: visit.depth + 1, parent: visit });
    }
  }
  return null;
}

interface Visit {
  node: unknown;
  /** Undefined for the root; a number for an array element, a string for an object member. */
  key: string | number | undefined;
  /** Containers above this node: its path length. */
  depth: number;
  parent: Visit | null;
}

function pathOf(visit: Visit): JsonPath {
  const path: JsonPath = [];
  for (let at: Visit | null = visit; at && at.key !== undefined; at = at.parent) path.push(at.key);
  return path.reverse();
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
