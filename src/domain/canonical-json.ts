/*
 * Canonical JSON and a depth check for JSON values that come from untrusted parties (probed
 * endpoints' answers, request bodies). Both are iterative: a value nested thousands of levels
 * deep (which JSON.parse accepts) must not overflow the call stack of a socket handler.
 */

/**
 * Deepest nesting of arrays/objects inside a JSON-RPC `result` that the correctness check
 * compares. Real Ethereum results are under 10 levels (a block with transactions, logs and
 * access lists); 64 leaves room for any honest answer and keeps the (recursive) normalisation
 * far below the stack limit.
 */
export const MAX_RESULT_DEPTH = 64;

/**
 * True when `value` nests arrays/objects more than `maxDepth` levels deep (a scalar is depth 0,
 * `[]` and `[1]` are depth 1). Stops as soon as the limit is passed, so a hostile value costs
 * at most the nodes walked up to that point.
 */
export function exceedsJsonDepth(value: unknown, maxDepth: number): boolean {
  if (value === null || typeof value !== 'object') return false;
  const stack: unknown[] = [value];
  const depths: number[] = [1];
  while (stack.length > 0) {
    const node = stack.pop() as object;
    const depth = depths.pop()!;
    if (depth > maxDepth) return true;
    const children = Array.isArray(node) ? node : Object.values(node);
    for (const child of children) {
      if (child !== null && typeof child === 'object') {
        stack.push(child);
        depths.push(depth + 1);
      }
    }
  }
  return false;
}

/**
 * Most values a `result` may hold (arrays, objects and scalars together) for the correctness
 * check to compare it. The 8 MiB response cap allows about four million tiny values (`[0,0,…]`),
 * whose normalisation and canonical form would hold a worker's event loop for seconds; honest
 * answers (a block's receipts, a range of logs) stay far below this.
 */
export const MAX_RESULT_VALUES = 1_000_000;

export type JsonShape = 'ok' | 'too_deep' | 'too_many_values';

/**
 * Whether `value` fits the depth and value-count bounds, walked iteratively and stopping at the
 * first bound passed. Values are counted as array elements and object fields (the root too).
 */
export function jsonShape(value: unknown, maxDepth: number, maxValues: number): JsonShape {
  if (value === null || typeof value !== 'object') return 'ok';
  let values = 1;
  const stack: object[] = [value];
  const depths: number[] = [1];
  while (stack.length > 0) {
    const node = stack.pop()!;
    const depth = depths.pop()!;
    if (depth > maxDepth) return 'too_deep';
    const children = Array.isArray(node) ? (node as unknown[]) : Object.values(node);
    values += children.length;
    if (values > maxValues) return 'too_many_values';
    for (const child of children) {
      if (child !== null && typeof child === 'object') {
        stack.push(child);
        depths.push(depth + 1);
      }
    }
  }
  return 'ok';
}

/** Nesting up to which canonicalJson recurses; deeper values take the iterative path. */
const RECURSION_LIMIT = 64;
const TOO_DEEP_TO_RECURSE = Symbol('too deep to recurse');

/**
 * Key-order-independent JSON, so equal values give equal text whatever the order of their keys:
 * object keys sorted (by UTF-16 code units, as Array.prototype.sort does), arrays in order,
 * scalars as JSON.stringify writes them (`undefined`, functions and symbols as `null`).
 * Any depth: values up to RECURSION_LIMIT deep (every honest one) take a fast recursive writer,
 * deeper ones an iterative writer that cannot overflow the stack.
 */
export function canonicalJson(value: unknown): string {
  try {
    return writeRecursive(value, 0);
  } catch (error) {
    if (error !== TOO_DEEP_TO_RECURSE) throw error;
    return writeIterative(value);
  }
}

function scalarJson(value: unknown): string {
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : 'null';
  return JSON.stringify(value) ?? 'null';
}

function writeRecursive(value: unknown, depth: number): string {
  if (value === null || typeof value !== 'object') return scalarJson(value);
  if (depth >= RECURSION_LIMIT) throw TOO_DEEP_TO_RECURSE;
  let out: string;
  if (Array.isArray(value)) {
    const items = new Array<string>(value.length);
    for (let i = 0; i < value.length; i++) items[i] = writeRecursive(value[i], depth + 1);
    return `[${items.join(',')}]`;
  }
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record).sort();
  out = '{';
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    if (i > 0) out += ',';
    out += `${JSON.stringify(key)}:${writeRecursive(record[key], depth + 1)}`;
  }
  return `${out}}`;
}

/** A closing bracket still to write, kept on the same stack as the values still to visit. */
class Close {
  constructor(readonly text: ']' | '}') {}
}
const CLOSE_ARRAY = new Close(']');
const CLOSE_OBJECT = new Close('}');
/** Separators and object keys still to write. */
class Literal {
  constructor(readonly text: string) {}
}
const COMMA = new Literal(',');

function writeIterative(value: unknown): string {
  let out = '';
  // Work items in reverse order of writing: values to write, literal text, closing brackets.
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const item = stack.pop();
    if (item instanceof Close || item instanceof Literal) {
      out += item.text;
    } else if (Array.isArray(item)) {
      out += '[';
      stack.push(CLOSE_ARRAY);
      for (let i = item.length - 1; i >= 0; i--) {
        stack.push(item[i]);
        if (i > 0) stack.push(COMMA);
      }
    } else if (item !== null && typeof item === 'object') {
      out += '{';
      stack.push(CLOSE_OBJECT);
      const record = item as Record<string, unknown>;
      const keys = Object.keys(record).sort();
      for (let i = keys.length - 1; i >= 0; i--) {
        const key = keys[i]!;
        stack.push(record[key]);
        stack.push(new Literal(`${i > 0 ? ',' : ''}${JSON.stringify(key)}:`));
      }
    } else {
      out += scalarJson(item);
    }
  }
  return out;
}
