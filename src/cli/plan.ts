import { redactUrl } from '../domain/redact-url';
import type { RvsFile, RvsFileSuite } from '../domain/rvs-file';
import type { FileProblem, LoadedFile } from './rvs-file';
import { RvsFileError } from './rvs-file';

/** What the API shows of a tenant's configuration (the fields apply compares and export writes). */
export interface ServerChain {
  id: string;
  name: string;
  slug: string;
  family: string;
  chain_id: number | string | null;
  explorer_url: string | null;
  updated_at: string;
}

export interface ServerEndpoint {
  id: string;
  chain_id: string;
  name: string;
  /** Redacted by the API: scheme, host and port only. */
  url: string;
  /** Redacted like url; null: none (absent from services before it). */
  ws_url?: string | null;
  header_names: string[];
  timeout_ms: number;
  updated_at: string;
}

export interface ServerSchedule {
  cron?: string;
  timezone?: string;
  interval_s?: number;
  paused: boolean;
}

export interface ServerSuite {
  id: string;
  chain_id: string;
  name: string;
  description: string;
  config: {
    targets: { endpoint_id: string }[];
    reference_endpoint_id: string | null;
    baseline: Record<string, unknown>;
    workload: Record<string, unknown>;
    thresholds: Record<string, unknown>;
    retry: Record<string, unknown>;
    [key: string]: unknown;
  };
  schedule: ServerSchedule | null;
  updated_at: string;
  /** Checks the workload is too small to let decide (absent from services before it). */
  warnings?: { check: string; message: string }[];
}

export interface TenantConfig {
  chains: ServerChain[];
  endpoints: ServerEndpoint[];
  suites: ServerSuite[];
}

export type Action = 'create' | 'update' | 'unchanged';

export interface FieldChange {
  path: string;
  from: unknown;
  to: unknown;
}

interface PlanItemBase {
  action: Action;
  /** Field by field; for a create every field is new (`from` undefined). */
  changes: FieldChange[];
  /** Position in the file's list of its kind. */
  index: number;
}

export interface ChainPlan extends PlanItemBase {
  kind: 'chain';
  key: string;
  existing: ServerChain | null;
}

export interface EndpointPlan extends PlanItemBase {
  kind: 'endpoint';
  key: string;
  chainSlug: string;
  existing: ServerEndpoint | null;
}

export interface SuitePlan extends PlanItemBase {
  kind: 'suite';
  key: string;
  chainSlug: string;
  existing: ServerSuite | null;
}

export type PlanItem = ChainPlan | EndpointPlan | SuitePlan;

export interface Plan {
  chains: ChainPlan[];
  endpoints: EndpointPlan[];
  suites: SuitePlan[];
}

/** The schedule as a file writes it: the fire times the API adds are not configuration. */
export function scheduleOf(schedule: ServerSchedule | null): RvsFileSuite['schedule'] {
  if (schedule === null) return null;
  if (schedule.interval_s !== undefined) return { interval_s: schedule.interval_s, paused: schedule.paused };
  return { cron: schedule.cron ?? '', timezone: schedule.timezone ?? 'UTC', paused: schedule.paused };
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The keys of an array of objects: each item's `method` when every item has one (workload
 * methods), a repeat of a method numbered (`eth_call#2`); else the index. By name, removing the
 * first method is one removal, not a change of every method after it.
 */
function itemKeys(items: unknown[]): { keys: string[]; byName: boolean } {
  if (!items.every((item) => isObject(item) && typeof item.method === 'string')) return { keys: items.map((_, index) => String(index)), byName: false };
  const seen = new Map<string, number>();
  const keys = items.map((item) => {
    const name = (item as { method: string }).method;
    const n = (seen.get(name) ?? 0) + 1;
    seen.set(name, n);
    return n === 1 ? name : `${name}#${n}`;
  });
  return { keys, byName: true };
}

interface Leaves {
  values: Map<string, unknown>;
  /** Arrays keyed by method name, by path: their keys in order (an order change is a change too). */
  orders: Map<string, string[]>;
  /** Their items by path (`workload.methods[eth_call]`): one added or removed is one change. */
  items: Map<string, unknown>;
}

/** Leaves of a JSON value by path; arrays of objects by item key (see itemKeys), other arrays whole. */
function leaves(value: unknown, prefix: string, out: Leaves): Leaves {
  if (isObject(value)) {
    const keys = Object.keys(value);
    if (keys.length === 0 && prefix) out.values.set(prefix, value);
    for (const key of keys) leaves(value[key], prefix ? `${prefix}.${key}` : key, out);
  } else if (Array.isArray(value) && value.some(isObject)) {
    const { keys, byName } = itemKeys(value);
    if (byName) out.orders.set(prefix, keys);
    value.forEach((item, index) => {
      if (byName) out.items.set(`${prefix}[${keys[index]}]`, item);
      leaves(item, `${prefix}[${keys[index]}]`, out);
    });
  } else {
    out.values.set(prefix, value);
  }
  return out;
}

const noLeaves = (): Leaves => ({ values: new Map(), orders: new Map(), items: new Map() });

/** The changes from `current` to `desired`, by leaf; canonical JSON decides equality. */
export function diffFields(current: Record<string, unknown> | null, desired: Record<string, unknown>): FieldChange[] {
  const before = current === null ? noLeaves() : leaves(current, '', noLeaves());
  const after = leaves(desired, '', noLeaves());
  const changes: FieldChange[] = [];
  // A method only one side has is one change, whole, not one per field of it.
  const whole = [...new Set([...before.items.keys(), ...after.items.keys()])].filter((path) => !before.items.has(path) || !after.items.has(path));
  const within = (path: string) => whole.some((item) => path === item || path.startsWith(`${item}.`) || path.startsWith(`${item}[`));
  for (const path of new Set([...before.values.keys(), ...after.values.keys()])) {
    if (within(path)) continue;
    const from = before.values.get(path);
    const to = after.values.get(path);
    if (JSON.stringify(from) !== JSON.stringify(to)) changes.push({ path, from, to });
  }
  for (const path of whole) changes.push({ path, from: before.items.get(path), to: after.items.get(path) });
  // The methods both sides have, in another order (an added or removed one alone moves nothing).
  for (const [path, was] of before.orders) {
    const now = after.orders.get(path);
    if (now === undefined) continue;
    const kept = was.filter((key) => now.includes(key));
    const moved = now.filter((key) => was.includes(key));
    if (JSON.stringify(kept) !== JSON.stringify(moved)) changes.push({ path: `${path} (order)`, from: kept, to: moved });
  }
  return changes;
}

const actionOf = (existing: unknown, changes: FieldChange[]): Action => (existing === null ? 'create' : changes.length > 0 ? 'update' : 'unchanged');

/** What an endpoint shows of itself: the URLs redacted exactly like the API redacts them, header names only. */
export function endpointView(e: { url: string; ws_url?: string | null; header_names: string[]; timeout_ms: number }) {
  return { url: e.url, ws_url: e.ws_url ?? null, header_names: [...e.header_names].sort(), timeout_ms: e.timeout_ms };
}

/**
 * Suite config fields a suite may leave out: absent, the service uses its default (and configs
 * stored before the field stay as they were), so the file and the request carry them only when set.
 */
const OPTIONAL_SUITE_FIELDS = ['freshness', 'integrity', 'commitment', 'vantage_points', 'vantage_start_timeout_s'] as const;
type OptionalSuiteFields = Partial<Pick<RvsFileSuite, (typeof OPTIONAL_SUITE_FIELDS)[number]>>;

/** The suite config fields apply sends as one `config` (a change to any of them sends it whole). */
export const SUITE_CONFIG_FIELDS = ['targets', 'reference', 'baseline', 'workload', 'thresholds', 'retry', ...OPTIONAL_SUITE_FIELDS] as const;

/** The optional fields that are set (null counts as left out: a stored config may hold it). */
function optionalFieldsOf(from: Readonly<Record<string, unknown>>): OptionalSuiteFields {
  const set: Record<string, unknown> = {};
  for (const field of OPTIONAL_SUITE_FIELDS) if (from[field] !== undefined && from[field] !== null) set[field] = from[field];
  return set as OptionalSuiteFields;
}

/** A suite as a file describes it: endpoints by name, the schedule only when the file manages it. */
export function suiteView(suite: Omit<RvsFileSuite, 'chain' | 'name'>, withSchedule: boolean): Record<string, unknown> {
  const { description, targets, reference, baseline, workload, thresholds, retry, schedule } = suite;
  return {
    description,
    targets,
    reference,
    baseline,
    workload,
    thresholds,
    retry,
    ...optionalFieldsOf(suite),
    ...(withSchedule ? { schedule } : {}),
  };
}

/** The file's form of a stored suite, its endpoints named through `endpointName`. */
export function fileSuiteOf(suite: ServerSuite, endpointName: (id: string) => string): Omit<RvsFileSuite, 'chain' | 'name'> {
  const { targets, reference_endpoint_id, baseline, workload, thresholds, retry } = suite.config;
  return {
    description: suite.description,
    targets: targets.map((t) => endpointName(t.endpoint_id)),
    reference: reference_endpoint_id === null ? null : endpointName(reference_endpoint_id),
    baseline: baseline as RvsFileSuite['baseline'],
    workload: workload as RvsFileSuite['workload'],
    thresholds: thresholds as RvsFileSuite['thresholds'],
    retry: retry as RvsFileSuite['retry'],
    // Absent from a suite without them (and from services before them): absent here too.
    ...optionalFieldsOf(suite.config),
    schedule: scheduleOf(suite.schedule),
  };
}

/** The suite config apply sends for a file suite, its endpoints resolved through `endpointId`. */
export function suiteConfigOf(suite: RvsFileSuite, endpointId: (name: string) => string): Record<string, unknown> {
  return {
    targets: suite.targets.map((name) => ({ endpoint_id: endpointId(name), role: 'primary' })),
    reference_endpoint_id: suite.reference === null ? null : endpointId(suite.reference),
    baseline: suite.baseline,
    workload: suite.workload,
    thresholds: suite.thresholds,
    retry: suite.retry,
    ...optionalFieldsOf(suite),
  };
}

/**
 * Compares the file with the tenant's configuration and decides, per item, create / update /
 * unchanged. Every reference the file makes (a chain slug, an endpoint name) must resolve in the
 * file or in the tenant; problems are thrown together, with their lines, before anything changes.
 *
 * Endpoint URLs and header values cannot be compared here (the API never shows them): the plan
 * compares the redacted URL, the header names and the timeout, and apply sends the URL and
 * headers of every endpoint, which the service stores only when they differ (so an unchanged
 * endpoint stays unchanged, and a rotated key is still applied).
 */
export function planApply(loaded: LoadedFile, current: TenantConfig, fileName: string): Plan {
  const { file, secrets } = loaded;
  const problems: FileProblem[] = [];
  const problem = (path: PropertyKey[], message: string) => problems.push(loaded.problemAt(path, message));

  const chainBySlug = new Map(current.chains.map((c) => [c.slug, c]));
  const chainById = new Map(current.chains.map((c) => [c.id, c]));
  const fileChains = new Set(file.chains.map((c) => c.slug));
  const chainKnown = (slug: string) => fileChains.has(slug) || chainBySlug.has(slug);

  const chains: ChainPlan[] = file.chains.map((chain, index) => {
    const existing = chainBySlug.get(chain.slug) ?? null;
    const desired = { name: chain.name, family: chain.family, chain_id: chain.chain_id, explorer_url: chain.explorer_url };
    const now = existing && { name: existing.name, family: existing.family, chain_id: existing.chain_id, explorer_url: existing.explorer_url };
    const changes = diffFields(now, desired);
    return { kind: 'chain', key: chain.slug, index, existing, action: actionOf(existing, changes), changes };
  });

  /** Stored endpoints by chain slug and name; a name used twice on a chain cannot be a key. */
  const storedEndpoints = new Map<string, ServerEndpoint[]>();
  for (const endpoint of current.endpoints) {
    const chain = chainById.get(endpoint.chain_id);
    if (!chain) continue;
    const key = `${chain.slug}\u0000${endpoint.name}`;
    storedEndpoints.set(key, [...(storedEndpoints.get(key) ?? []), endpoint]);
  }
  const fileEndpoints = new Set(file.endpoints.map((e) => `${e.chain}\u0000${e.name}`));

  const endpoints: EndpointPlan[] = [];
  file.endpoints.forEach((endpoint, index) => {
    if (!chainKnown(endpoint.chain)) problem(['endpoints', index, 'chain'], `no chain "${endpoint.chain}" in the file or the tenant`);
    const stored = storedEndpoints.get(`${endpoint.chain}\u0000${endpoint.name}`) ?? [];
    if (stored.length > 1) {
      problem(['endpoints', index, 'name'], `the tenant has ${stored.length} endpoints named "${endpoint.name}" on chain ${endpoint.chain}; rename all but one first`);
      return;
    }
    const existing = stored[0] ?? null;
    const secret = secrets[index]!;
    const desired = endpointView({ url: redactUrl(secret.url), ws_url: secret.wsUrl === null ? null : redactUrl(secret.wsUrl), header_names: Object.keys(secret.headers), timeout_ms: endpoint.timeout_ms });
    const changes = diffFields(existing && endpointView(existing), desired);
    endpoints.push({ kind: 'endpoint', key: `${endpoint.chain}/${endpoint.name}`, chainSlug: endpoint.chain, index, existing, action: actionOf(existing, changes), changes });
  });

  const storedSuites = new Map<string, ServerSuite[]>();
  for (const suite of current.suites) storedSuites.set(suite.name, [...(storedSuites.get(suite.name) ?? []), suite]);
  const endpointNameById = new Map(current.endpoints.map((e) => [e.id, e.name]));
  // Whether each endpoint will have a ws_url once applied: the file's word, else the tenant's.
  const hasWsUrl = new Map<string, boolean>();
  for (const [key, stored] of storedEndpoints) hasWsUrl.set(key, stored.some((e) => typeof e.ws_url === 'string'));
  file.endpoints.forEach((endpoint, index) => hasWsUrl.set(`${endpoint.chain}\u0000${endpoint.name}`, secrets[index]!.wsUrl !== null));

  const suites: SuitePlan[] = [];
  file.suites.forEach((suite, index) => {
    if (!chainKnown(suite.chain)) problem(['suites', index, 'chain'], `no chain "${suite.chain}" in the file or the tenant`);
    const named = [...suite.targets.map((n, i) => ({ name: n, path: ['suites', index, 'targets', i] })), ...(suite.reference === null ? [] : [{ name: suite.reference, path: ['suites', index, 'reference'] }])];
    for (const { name, path } of named) {
      const key = `${suite.chain}\u0000${name}`;
      if (!fileEndpoints.has(key) && !storedEndpoints.has(key)) problem(path, `no endpoint "${name}" on chain ${suite.chain} in the file or the tenant`);
    }
    // The service refuses such a suite, but only when its turn comes, after the endpoints were written.
    if (suite.workload.transport === 'ws') {
      for (const { name, path } of named) {
        if (hasWsUrl.get(`${suite.chain}\u0000${name}`) === false) problem(path, `endpoint "${name}" has no ws_url, and workload.transport is "ws"`);
      }
    }
    const stored = storedSuites.get(suite.name) ?? [];
    if (stored.length > 1) {
      problem(['suites', index, 'name'], `the tenant has ${stored.length} suites named "${suite.name}"; rename all but one first`);
      return;
    }
    const existing = stored[0] ?? null;
    if (existing && chainById.get(existing.chain_id)?.slug !== suite.chain) {
      problem(['suites', index, 'chain'], `suite "${suite.name}" is on chain ${chainById.get(existing.chain_id)?.slug ?? existing.chain_id}; a suite's chain cannot change`);
      return;
    }
    const withSchedule = suite.schedule !== undefined;
    const now = existing && suiteView(fileSuiteOf(existing, (id) => endpointNameById.get(id) ?? id), withSchedule);
    const changes = diffFields(now, suiteView(suite, withSchedule));
    suites.push({ kind: 'suite', key: suite.name, chainSlug: suite.chain, index, existing, action: actionOf(existing, changes), changes });
  });

  if (problems.length > 0) throw new RvsFileError(fileName, problems.sort((a, b) => a.line - b.line || a.column - b.column));
  return { chains, endpoints, suites };
}

const show = (value: unknown) => (value === undefined ? '(none)' : JSON.stringify(value));

/** The plan as lines: one per item, then its field changes. */
export function formatPlan(plan: Plan): string {
  const lines: string[] = [];
  const counts: Record<Action, number> = { create: 0, update: 0, unchanged: 0 };
  for (const item of [...plan.chains, ...plan.endpoints, ...plan.suites]) {
    counts[item.action] += 1;
    lines.push(`${item.kind} ${item.key}: ${item.action}`);
    if (item.action === 'unchanged') continue;
    for (const change of item.changes) {
      if (item.action === 'create' || change.from === undefined) lines.push(`  + ${change.path}: ${show(change.to)}`);
      else if (change.to === undefined) lines.push(`  - ${change.path}: ${show(change.from)}`);
      else lines.push(`  ~ ${change.path}: ${show(change.from)} → ${show(change.to)}`);
    }
  }
  lines.push(`Plan: ${counts.create} to create, ${counts.update} to update, ${counts.unchanged} unchanged.`);
  return `${lines.join('\n')}\n`;
}

export type { RvsFile };
