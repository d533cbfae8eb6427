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

/**
 * Key-order-independent JSON, so equal values give equal text whatever the order of their keys:
 * object keys sorted (by UTF-16 code units, as Array.prototype.sort does), arrays in order,
 * scalars as JSON.stringify writes them (`undefined`, functions and symbols as `null`).
 * Iterative, for any depth.
 */
export function canonicalJson(value: unknown): string {
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
      out += JSON.stringify(item) ?? 'null';
    }
  }
  return out;
}
