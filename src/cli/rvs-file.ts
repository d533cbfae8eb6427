import { isMap, isScalar, isSeq, LineCounter, parseDocument, type Document, type Node } from 'yaml';
import { ENV_REFERENCE, rvsFileSchema, type RvsFile } from '../domain/rvs-file';

/** One problem of a file, at a line (1-based; 0 when the file as a whole is meant). */
export interface FileProblem {
  line: number;
  column: number;
  path: string;
  message: string;
}

/** The file could not be used: every problem found, each with its line. */
export class RvsFileError extends Error {
  override readonly name = 'RvsFileError';
  constructor(
    readonly fileName: string,
    readonly problems: FileProblem[],
  ) {
    super(`${fileName}: ${problems.length} ${problems.length === 1 ? 'problem' : 'problems'}`);
  }

  /** `rvs.yaml:12:5 endpoints[0].url: message`, one line per problem. */
  lines(): string[] {
    return this.problems.map((p) => `${this.fileName}:${p.line}:${p.column}${p.path ? ` ${p.path}` : ''}: ${p.message}`);
  }
}

/** A resolved endpoint: its url, ws_url and header values with the environment's values substituted. */
export interface ResolvedSecrets {
  url: string;
  /** Null when the file gives none. */
  wsUrl: string | null;
  headers: Record<string, string>;
}

export interface LoadedFile {
  file: RvsFile;
  /** By endpoint index in `file.endpoints`. */
  secrets: ResolvedSecrets[];
  /** Where a path of the file is, for problems found later (against the tenant's configuration). */
  problemAt(path: readonly PropertyKey[], message: string): FileProblem;
}

/** At most this much YAML: a tenant's configuration is kilobytes, and the parser keeps a node per value. */
const MAX_FILE_BYTES = 4 * 1024 * 1024;

export function formatPath(path: readonly PropertyKey[]): string {
  let text = '';
  for (const key of path) {
    if (typeof key === 'number') text += `[${key}]`;
    else text += text ? `.${String(key)}` : String(key);
  }
  return text;
}

/** The node at `path`, or the deepest existing node above it (a missing field is reported where its parent is). */
function nodeAt(doc: Document, path: readonly PropertyKey[], atKey = false): Node | null {
  let node: unknown = doc.contents;
  let found: Node | null = (doc.contents as Node | null) ?? null;
  for (const [depth, key] of path.entries()) {
    if (isMap(node)) {
      const pair = node.items.find((item) => isScalar(item.key) && String(item.key.value) === String(key));
      if (!pair) break;
      // An unknown or wrong field is best shown at its key; its value is where the next key goes.
      found = (pair.key as Node | null) ?? found;
      node = pair.value;
      if (atKey && depth === path.length - 1) break;
      if (node && (isMap(node) || isSeq(node) || isScalar(node))) found = node;
    } else if (isSeq(node) && typeof key === 'number') {
      const item = node.items[key];
      if (!item) break;
      node = item;
      if (isMap(item) || isSeq(item) || isScalar(item)) found = item;
    } else {
      break;
    }
  }
  return found;
}

/**
 * Parses and validates a file, then takes every `${NAME}` from `env`. All problems are collected
 * (YAML syntax, the schema, missing variables) so one run shows them all; nothing is sent anywhere.
 */
export function loadRvsFile(text: string, fileName: string, env: Record<string, string | undefined>): LoadedFile {
  if (Buffer.byteLength(text) > MAX_FILE_BYTES) {
    throw new RvsFileError(fileName, [{ line: 0, column: 0, path: '', message: `larger than ${MAX_FILE_BYTES / 1024 / 1024} MiB` }]);
  }
  const lineCounter = new LineCounter();
  // uniqueKeys: a key written twice is an error, not a silent last-one-wins; no custom tags.
  const doc = parseDocument(text, { lineCounter, uniqueKeys: true, prettyErrors: false, schema: 'core', merge: false });
  const at = (offset: number | undefined) => {
    const pos = lineCounter.linePos(offset ?? 0);
    return { line: pos.line, column: pos.col };
  };
  if (doc.errors.length > 0) {
    throw new RvsFileError(
      fileName,
      doc.errors.map((error) => ({ ...at(error.pos[0]), path: '', message: error.message.split('\n')[0]! })),
    );
  }
  const problemAt = (path: readonly PropertyKey[], message: string, atKey = false): FileProblem => {
    const node = nodeAt(doc, path, atKey);
    return { ...at(node?.range?.[0]), path: formatPath(path), message };
  };

  // maxAliasCount bounds "billion laughs" expansions of anchors and aliases.
  let raw: unknown;
  try {
    raw = doc.toJS({ maxAliasCount: 100 }) as unknown;
  } catch (error) {
    throw new RvsFileError(fileName, [{ line: 0, column: 0, path: '', message: (error as Error).message }]);
  }
  const parsed = rvsFileSchema.safeParse(raw ?? {});
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => {
      let message = issue.message;
      if (issue.code === 'unrecognized_keys') {
        return issue.keys.map((key) => problemAt([...issue.path, key], 'unknown field', true));
      }
      if (issue.code === 'invalid_union') message = 'does not match any allowed form';
      if (issue.code === 'invalid_type' && /received undefined$/.test(issue.message)) message = 'required';
      return [problemAt(issue.path, message)];
    });
    throw new RvsFileError(fileName, sortProblems(problems.flat()));
  }

  const problems: FileProblem[] = [];
  // Checked here, before anything is sent: the service would refuse it only after the chains and
  // endpoints before it were written. The message never shows the value (a key may be in it).
  const wsUrlOf = (value: string, path: PropertyKey[]): string => {
    if (value === '') return value;
    let protocol: string | null = null;
    try {
      protocol = new URL(value).protocol;
    } catch {
      // reported below
    }
    if (protocol !== 'ws:' && protocol !== 'wss:') problems.push(problemAt(path, 'must be a ws:// or wss:// URL once its variables are substituted'));
    return value;
  };
  const substitute = (value: string, path: PropertyKey[]): string =>
    value.replace(ENV_REFERENCE, (_whole, variable: string) => {
      const found = env[variable];
      if (found === undefined || found === '') {
        problems.push(problemAt(path, `environment variable ${variable} is not set`));
        return '';
      }
      return found;
    });
  const secrets = parsed.data.endpoints.map((endpoint, index) => ({
    url: substitute(endpoint.url, ['endpoints', index, 'url']),
    wsUrl: endpoint.ws_url === null ? null : wsUrlOf(substitute(endpoint.ws_url, ['endpoints', index, 'ws_url']), ['endpoints', index, 'ws_url']),
    headers: Object.fromEntries(
      Object.entries(endpoint.headers).map(([header, value]) => [header, substitute(value, ['endpoints', index, 'headers', header])]),
    ),
  }));
  if (problems.length > 0) throw new RvsFileError(fileName, sortProblems(problems));
  return { file: parsed.data, secrets, problemAt };
}

function sortProblems(problems: FileProblem[]): FileProblem[] {
  return [...problems].sort((a, b) => a.line - b.line || a.column - b.column);
}
