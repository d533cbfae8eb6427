import { CST, isMap, isScalar, isSeq, Lexer, LineCounter, parseDocument, visit, type Document, type Node } from 'yaml';
import { ENV_REFERENCE, rvsFileSchema, type RvsFile } from '../domain/rvs-file';
import { envAccess, envAccessProblem, type EnvAccess } from './env-allow-list';

/** One problem of a file, at a line (1-based; 0 when the file as a whole is meant). */
export interface FileProblem {
  line: number;
  column: number;
  path: string;
  message: string;
}

/** A variable the file reads through `${NAME}`: its name and whether it may be read, never its value. */
export interface FileVariable {
  name: string;
  access: EnvAccess;
  /** Whether it is set and not empty; false for one that may not be read (never looked at). */
  set: boolean;
}

/** The file could not be used: every problem found, each with its line. */
export class RvsFileError extends Error {
  override readonly name = 'RvsFileError';
  constructor(
    readonly fileName: string,
    readonly problems: FileProblem[],
    /** The variables the file reads, when it got as far as reading them (a dry run lists them). */
    readonly variables: FileVariable[] = [],
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
  /** Every variable the file reads, in the order first read. */
  variables: FileVariable[];
  /** Where a path of the file is, for problems found later (against the tenant's configuration). */
  problemAt(path: readonly PropertyKey[], message: string): FileProblem;
}

/** At most this much YAML: a tenant's configuration is kilobytes, and the parser keeps a node per value. */
const MAX_FILE_BYTES = 4 * 1024 * 1024;

/**
 * What the document built from a file may hold, checked on the lexer's tokens before it is built:
 * the bytes cap alone admits ~2 million nodes, or a million nested `[`, which took 1.2 GB to
 * build. A tenant's file has a few thousand values, nested a dozen deep.
 */
export const MAX_YAML_VALUES = 100_000;
export const MAX_YAML_DEPTH = 64;
/** Block nesting costs a column of indentation or an indicator per level; so bounded, it is bounded too. */
const MAX_YAML_LINE_NESTING = 256;

/**
 * A cheap bound on the document the file would build, from the `yaml` library's own lexer (a
 * generator: no tree is built, and it stops at the first excess). Counts values (scalars, aliases,
 * collections, sequence items), flow nesting, and per line the indentation plus the block
 * indicators on it, an upper bound of the block nesting there.
 */
function yamlShapeProblem(text: string): string | null {
  let values = 0;
  let flowDepth = 0;
  let lineNesting = 0;
  let atLineStart = true;
  let scalarSource = false;
  for (const token of new Lexer().lex(text)) {
    // The lexer announces a plain scalar with a marker token, then yields its source (which may be "-" or "[").
    if (scalarSource) {
      scalarSource = false;
      atLineStart = false;
      continue;
    }
    const type = CST.tokenType(token);
    if (type === 'newline') {
      lineNesting = 0;
      atLineStart = true;
      continue;
    }
    if (type === 'space') {
      if (atLineStart) lineNesting += token.length;
      continue;
    }
    if (type === 'comment') continue;
    atLineStart = false;
    switch (type) {
      case 'scalar':
        scalarSource = true;
        values += 1;
        break;
      case 'flow-seq-start':
      case 'flow-map-start':
        values += 1;
        flowDepth += 1;
        break;
      case 'flow-seq-end':
      case 'flow-map-end':
        flowDepth = Math.max(0, flowDepth - 1);
        break;
      case 'seq-item-ind':
      case 'explicit-key-ind':
        values += 1;
        lineNesting += 1;
        break;
      case 'map-value-ind':
        lineNesting += 1;
        break;
      case 'alias':
      case 'single-quoted-scalar':
      case 'double-quoted-scalar':
      case 'block-scalar-header':
        values += 1;
        break;
      default:
        break;
    }
    if (values > MAX_YAML_VALUES) return `more than ${MAX_YAML_VALUES.toLocaleString('en-US')} values`;
    if (flowDepth > MAX_YAML_DEPTH) return `nested more than ${MAX_YAML_DEPTH} deep`;
    if (lineNesting > MAX_YAML_LINE_NESTING) return `nested or indented more than ${MAX_YAML_LINE_NESTING} deep on one line`;
  }
  return null;
}

/**
 * Keys written twice in one map, in linear time. The library's own `uniqueKeys` compares each key
 * with every key before it (40,000 keys took 82 s); scalar keys are compared by type and value, as
 * it does.
 */
function duplicateKeys(doc: Document): Node[] {
  const found: Node[] = [];
  visit(doc, {
    Map(_key, map) {
      const seen = new Set<string>();
      for (const pair of map.items) {
        if (!isScalar(pair.key)) continue;
        const id = `${typeof pair.key.value}:${String(pair.key.value)}`;
        if (seen.has(id)) found.push(pair.key);
        else seen.add(id);
      }
    },
  });
  return found;
}

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
 * Parses and validates a file, then takes every `${NAME}` from `env` that the allow-list lets it
 * read (RVS_SECRET_* and `namedEnv`, the --env names; see env-allow-list.ts). All problems are
 * collected (YAML syntax, the schema, refused and missing variables) so one run shows them all;
 * nothing is sent anywhere.
 */
export function loadRvsFile(
  text: string,
  fileName: string,
  env: Record<string, string | undefined>,
  namedEnv: ReadonlySet<string> = new Set(),
): LoadedFile {
  if (Buffer.byteLength(text) > MAX_FILE_BYTES) {
    throw new RvsFileError(fileName, [{ line: 0, column: 0, path: '', message: `larger than ${MAX_FILE_BYTES / 1024 / 1024} MiB` }]);
  }
  const shape = yamlShapeProblem(text);
  if (shape !== null) throw new RvsFileError(fileName, [{ line: 0, column: 0, path: '', message: shape }]);
  const lineCounter = new LineCounter();
  // A key written twice is an error, not a silent last-one-wins (checked below, in linear time); no custom tags.
  const doc = parseDocument(text, { lineCounter, uniqueKeys: false, prettyErrors: false, schema: 'core', merge: false });
  const at = (offset: number | undefined) => {
    const pos = lineCounter.linePos(offset ?? 0);
    return { line: pos.line, column: pos.col };
  };
  const syntax = [
    ...doc.errors.map((error) => ({ ...at(error.pos[0]), path: '', message: error.message.split('\n')[0]! })),
    ...duplicateKeys(doc).map((key) => ({ ...at(key.range?.[0]), path: '', message: 'Map keys must be unique' })),
  ];
  if (syntax.length > 0) throw new RvsFileError(fileName, sortProblems(syntax));
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
  const variables = new Map<string, FileVariable>();
  const substitute = (value: string, path: PropertyKey[]): string =>
    value.replace(ENV_REFERENCE, (_whole, variable: string) => {
      // Refused before its value is even read.
      const refusal = envAccessProblem(variable, namedEnv);
      const found = refusal === null ? env[variable] : undefined;
      if (!variables.has(variable)) variables.set(variable, { name: variable, access: envAccess(variable, namedEnv), set: found !== undefined && found !== '' });
      if (refusal !== null) {
        problems.push(problemAt(path, refusal));
        return '';
      }
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
  if (problems.length > 0) throw new RvsFileError(fileName, sortProblems(problems), [...variables.values()]);
  return { file: parsed.data, secrets, variables: [...variables.values()], problemAt };
}

function sortProblems(problems: FileProblem[]): FileProblem[] {
  return [...problems].sort((a, b) => a.line - b.line || a.column - b.column);
}
