import type { Workload } from './suite-config';

export interface PlannedCall {
  seq: number;
  method: string;
  params: unknown[];
}

// mulberry32: tiny, fast, deterministic. The plan must be a pure function of (seed, seq) so a
// retried chunk, the reference and a replay of the run all send exactly the same requests.
function random01(seed: number, seq: number): number {
  let t = (seed ^ Math.imul(seq + 1, 0x9e3779b1)) >>> 0;
  t = (t + 0x6d2b79f5) >>> 0;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}

export const PINNED_BLOCK_TEMPLATE = '{{pinned_block}}';

/** How a chain family writes the pinned block/slot in params (ChainAdapter.renderPinned). */
export type RenderPinned = (pinned: number | null) => unknown;

/**
 * Template strings a family renders on top of "{{pinned_block}}" (ChainAdapter.pinnedTemplates),
 * each from the same pinned block: e.g. Bitcoin's "{{pinned_height}}".
 */
export type PinnedTemplates = Readonly<Record<string, RenderPinned>>;

/**
 * Values read at planning time beside the pinned block (ChainAdapter.pinContext), stored with the
 * run: by name, e.g. Bitcoin's `pinned_block_hash`, which a workload writes "{{pinned_block_hash}}".
 */
export type PinnedContext = Readonly<Record<string, string | number>>;

/** The template string a pinned-context value replaces: `name` → "{{name}}". */
export const contextTemplate = (name: string): string => `{{${name}}}`;

/**
 * A family's templates with the run's pinned context added: each stored value replaces its
 * "{{name}}" string. A name the context lacks (a run planned before it was read) stays as written.
 */
export function withContext(templates: PinnedTemplates, context: PinnedContext | null): PinnedTemplates {
  if (context === null) return templates;
  const values = Object.entries(context).map(([name, value]): [string, RenderPinned] => [contextTemplate(name), () => value]);
  return { ...templates, ...Object.fromEntries(values) };
}

/**
 * Replaces every "{{pinned_block}}" string in the params by the pinned block as the chain family
 * writes it (there is no default rendering: a hex quantity is EVM's, src/chains/evm/head.ts), and
 * every string naming one of the family's other templates by that template's rendering.
 */

export function templateParams(params: unknown, pinnedBlock: number | null, render: RenderPinned, templates: PinnedTemplates = {}): unknown {
  if (params === PINNED_BLOCK_TEMPLATE) return render(pinnedBlock);
  if (typeof params === 'string' && Object.hasOwn(templates, params)) return templates[params]!(pinnedBlock);
  if (Array.isArray(params)) return params.map((p) => templateParams(p, pinnedBlock, render, templates));
  if (params !== null && typeof params === 'object') {
    return Object.fromEntries(Object.entries(params).map(([k, v]) => [k, templateParams(v, pinnedBlock, render, templates)]));
  }
  return params;
}

/** Whether some params name the pinned block: "{{pinned_block}}" or one of `templates` (any family's). */
export function usesPinnedBlock(workload: Pick<Workload, 'methods'>, templates: readonly string[] = []): boolean {
  const names = [PINNED_BLOCK_TEMPLATE, ...templates];
  return workload.methods.some((m) => {
    const json = JSON.stringify(m.params);
    return names.some((name) => json.includes(name));
  });
}

/** Returns a function that maps a sequence number to the request sent at that position. */
export function createPlanner(
  workload: Pick<Workload, 'methods'>,
  seed: number,
  pinnedBlock: number | null,
  render: RenderPinned,
  templates: PinnedTemplates = {},
): (seq: number) => PlannedCall {
  // Templates are resolved once; the planner itself only picks.
  const methods = workload.methods.map((m) => ({ ...m, params: templateParams(m.params, pinnedBlock, render, templates) as unknown[] }));
  const total = methods.reduce((sum, m) => sum + m.weight, 0);
  return (seq) => {
    let pick = random01(seed, seq) * total;
    for (const m of methods) {
      pick -= m.weight;
      if (pick < 0) return { seq, method: m.method, params: m.params };
    }
    const last = methods[methods.length - 1]!;
    return { seq, method: last.method, params: last.params };
  };
}
