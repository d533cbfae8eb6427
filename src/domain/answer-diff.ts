import { canonicalJson } from './canonical-json';
import { normalizeWith, type AnswerDifference, type NormalizeOptions, type NormalizeResult } from './correctness';
import { isRecord } from './json-shape';

/*
 * What differs between a candidate's and a reference's answer to the same call, for the listed
 * correctness mismatches: the JSON paths where the normalised results part, each with both values
 * — bounded (at most MAX_DIFFERENCES paths, each of at most MAX_PATH_CHARS characters with values of at most
 * MAX_VALUE_CHARS) and with
 * every URL in a value redacted, since a value is a node's answer and is shown in the verdict, on
 * the dashboard and in webhooks. Pure.
 */

export const MAX_DIFFERENCES = 3;
export const MAX_VALUE_CHARS = 64;
/**
 * A path is cut too: its keys are the node's (one answer with three 1 MB keys made a 3 MB
 * verdict), and so is its depth. A key is cut to MAX_KEY_CHARS, the whole path to MAX_PATH_CHARS,
 * each ending in `…` where cut.
 */
export const MAX_KEY_CHARS = 48;
export const MAX_PATH_CHARS = 160;

export interface AnswerDiff {
  differences: AnswerDifference[];
  /** More paths differ than are listed. */
  more: boolean;
}

const ABSENT = '(absent)';
/** Scheme, then anything up to whitespace or a JSON quote: what a URL in a canonical JSON text looks like. */
const URL_IN_TEXT = /\b[a-z][a-z0-9+.-]*:\/\/[^\s"]+/gi;

/**
 * A value as shown: canonical JSON with every URL reduced to its scheme and host (userinfo, path
 * and query are where providers put keys), then cut to MAX_VALUE_CHARS.
 */
export function showValue(value: unknown): string {
  if (value === undefined) return ABSENT;
  const text = canonicalJson(value).replace(URL_IN_TEXT, (url) => {
    const scheme = url.slice(0, url.indexOf('://'));
    const rest = url.slice(scheme.length + 3);
    const host = rest.split(/[/?#@]/)[rest.includes('@') ? 1 : 0] ?? '';
    return `${scheme}://${host}/****`;
  });
  return text.length > MAX_VALUE_CHARS ? `${text.slice(0, MAX_VALUE_CHARS - 1)}…` : text;
}

/**
 * A scalar result (string, number, boolean, null) as shown (showValue: bounded, URLs redacted),
 * stored with its sample so a listed mismatch of scalars shows both values even when the nodes'
 * answers have moved on since (eth_blockNumber); null for an object or array.
 */
export function scalarAnswer(result: unknown): string | null {
  if (result === null || typeof result === 'string' || typeof result === 'number' || typeof result === 'boolean') return showValue(result);
  return null;
}

const cut = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

function keyPath(path: string, key: string): string {
  const shown = cut(key, MAX_KEY_CHARS);
  return cut(/^[A-Za-z_$][\w$]*$/.test(key) ? `${path}.${shown}` : `${path}[${JSON.stringify(shown)}]`, MAX_PATH_CHARS);
}

/**
 * Differences as stored, bounded again as answerDifferences bounds new ones: explanations stored
 * before paths were cut may hold a path of megabytes, and a verdict recomputed from them would too.
 */
export function boundedDifferences(differences: readonly AnswerDifference[]): AnswerDifference[] {
  return differences.slice(0, MAX_DIFFERENCES).map((d) => ({
    path: cut(d.path, MAX_PATH_CHARS),
    candidate: cut(d.candidate, MAX_VALUE_CHARS),
    reference: cut(d.reference, MAX_VALUE_CHARS),
  }));
}

/**
 * The first MAX_DIFFERENCES paths (in key order, depth first) where the normalised answers differ:
 * the family's normalisation, as the fingerprints' (for EVM: hex by value, key order, ignore paths), so only what
 * made the fingerprints differ is listed. Iterative: the answers are foreign JSON (their depth is
 * bounded by normalizeWith, which refuses one nested too deep — then the whole results differ at `$`).
 */
export function answerDifferences(
  normalize: NormalizeResult,
  method: string,
  candidate: unknown,
  reference: unknown,
  options?: NormalizeOptions,
): AnswerDiff {
  let a: unknown;
  let b: unknown;
  try {
    a = normalizeWith(normalize, method, candidate, options);
    b = normalizeWith(normalize, method, reference, options);
  } catch {
    return { differences: [{ path: '$', candidate: showValue(candidate), reference: showValue(reference) }], more: false };
  }
  const differences: AnswerDifference[] = [];
  const stack: { path: string; a: unknown; b: unknown }[] = [{ path: '$', a, b }];
  while (stack.length > 0) {
    const { path, a: x, b: y } = stack.pop()!;
    if (isRecord(x) && isRecord(y)) {
      const keys = [...new Set([...Object.keys(x), ...Object.keys(y)])].sort();
      for (let i = keys.length - 1; i >= 0; i--) {
        const key = keys[i]!;
        stack.push({ path: keyPath(path, key), a: Object.hasOwn(x, key) ? x[key] : undefined, b: Object.hasOwn(y, key) ? y[key] : undefined });
      }
      continue;
    }
    if (Array.isArray(x) && Array.isArray(y)) {
      for (let i = Math.max(x.length, y.length) - 1; i >= 0; i--) stack.push({ path: cut(`${path}[${i}]`, MAX_PATH_CHARS), a: x[i], b: y[i] });
      continue;
    }
    if (x !== undefined && y !== undefined && canonicalJson(x) === canonicalJson(y)) continue;
    if (differences.length === MAX_DIFFERENCES) return { differences, more: true };
    differences.push({ path, candidate: showValue(x), reference: showValue(y) });
  }
  return { differences, more: false };
}
