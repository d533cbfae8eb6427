import type { ChainPreset, WorkloadPreset } from '../domain/catalog-presets';
import { fingerprintWith, normalizeWith, type NormalizeOptions } from '../domain/correctness';
import { runSettingsOf, type RunSettings, type RunSettingsSource } from '../domain/run-plan';
import type { Workload } from '../domain/suite-config';
import { contextTemplate, createPlanner, templateParams, usesPinnedBlock, withContext, type PinnedContext, type PlannedCall } from '../domain/workload';
import { bitcoinAdapter } from './bitcoin';
import { cometbftAdapter } from './cometbft';
import { evmAdapter } from './evm';
import { solanaAdapter } from './solana';
import type { ChainAdapter, ChainHead, ChainRegistry } from './types';

/*
 * The one place that knows every chain family's folder (DESIGN.md §11, STYLE rule 15). Callers
 * ask for their family's adapter here; nothing outside src/chains imports src/chains/<family>/.
 *
 * The chain resource accepts the families registered here (CHAIN_FAMILIES), each with its adapter.
 * A suite or run on a chain whose family has none (only a hand-edited row can name one) is
 * refused with a 400 (UnsupportedChainFamilyError) rather than probed as EVM, which is what
 * happened before the registry. Adding a family = one folder + one line in CHAINS (docs/chains.md).
 */

/** Every family's whole ChainAdapter (the compiler checks each is complete), in the order lists show them. */
export const CHAINS = {
  evm: evmAdapter,
  bitcoin: bitcoinAdapter,
  solana: solanaAdapter,
  cometbft: cometbftAdapter,
} as const satisfies Readonly<Record<string, ChainAdapter>>;

export type AdaptedFamily = keyof typeof CHAINS;
/** The families with an adapter: what the chain resource's `family` accepts (CHAIN_FAMILIES). */
export const ADAPTED_FAMILIES = Object.keys(CHAINS) as [AdaptedFamily, ...AdaptedFamily[]];
/** The chain resource's families (and the catalog's): the registered ones. */
export const CHAIN_FAMILIES = ADAPTED_FAMILIES;
export type ChainFamily = AdaptedFamily;

/** A run snapshot taken before snapshots carried the family is an EVM run (the only family probed then). */
export const LEGACY_SNAPSHOT_FAMILY: AdaptedFamily = 'evm';

/** A chain family without an adapter: nothing can be planned, probed or compared on it yet. */
export class UnsupportedChainFamilyError extends Error {
  constructor(readonly family: string) {
    super(`chain family "${family}" is not supported yet (supported: ${ADAPTED_FAMILIES.join(', ')})`);
    this.name = 'UnsupportedChainFamilyError';
  }
}

export function hasAdapter(family: string, chains: ChainRegistry = CHAINS): boolean {
  return Object.hasOwn(chains, family) && chains[family] !== undefined;
}

/** The family's adapter; throws UnsupportedChainFamilyError for a family without one. */
export function chainAdapter(family: string, chains: ChainRegistry = CHAINS): ChainAdapter {
  const adapter = Object.hasOwn(chains, family) ? chains[family] : undefined;
  if (adapter === undefined) throw new UnsupportedChainFamilyError(family);
  return adapter;
}

/** The family a run was planned for: its snapshot's, or EVM for a snapshot older than the field. */
export function familyOfSnapshot(snapshot: { chain: { family?: string } }): string {
  return snapshot.chain.family ?? LEGACY_SNAPSHOT_FAMILY;
}

/** The adapter of a run (through its config snapshot). */
export function chainOfRun(run: { config_snapshot: { chain: { family?: string } } }, chains: ChainRegistry = CHAINS): ChainAdapter {
  return chainAdapter(familyOfSnapshot(run.config_snapshot), chains);
}

/**
 * The request planner of a workload, the pinned block rendered as the family writes it and the
 * run's pinned context (values read beside it at planning time) in place of their templates.
 */
export function planRequests(
  chain: ChainAdapter,
  workload: Pick<Workload, 'methods'>,
  seed: number,
  pinnedBlock: number | null,
  pinnedContext: PinnedContext | null = null,
): (seq: number) => PlannedCall {
  return createPlanner(workload, seed, pinnedBlock, chain.renderPinned, withContext(chain.pinnedTemplates, pinnedContext));
}

/** A run's settings with its chain adapter and request planner: what the steps that plan, probe, re-check and compare read. */
export interface RunPlan extends RunSettings {
  chain: ChainAdapter;
  /**
   * The adapter the head watch (config.freshness) reads with: `chain` at the family's watch level
   * when the suite names no commitment (Solana: confirmed, while reads default to finalized).
   */
  watchChain: ChainAdapter;
  /** The request sent at a seq: a pure function of the seed and the seq, the pinned block rendered by the family. */
  requestAt: (seq: number) => PlannedCall;
  /** The values read beside the pinned block at planning time (null: none read, or a run planned before they were). */
  pinnedContext: PinnedContext | null;
}

/** The part of a run row a plan is read from. */
export type RunPlanSource = RunSettingsSource & { config_snapshot: { chain: { family?: string } }; pinned_context?: PinnedContext | null };

/**
 * The adapter reading at a suite's commitment level, or when it names none at the family's
 * default for reads (`use: 'reads'`) or for the head watch (`'watch'`); a family without levels
 * as it is.
 */
export function atCommitment(chain: ChainAdapter, level: string | undefined, use: 'reads' | 'watch' = 'reads'): ChainAdapter {
  return chain.readLevels.at(chain, level, use);
}

/** A run row's plan, built once per step; throws UnsupportedChainFamilyError for a family without an adapter. */
export function runPlanOf(run: RunPlanSource, chains: ChainRegistry = CHAINS): RunPlan {
  const settings = runSettingsOf(run);
  const family = chainOfRun(run, chains);
  const level = run.config_snapshot.suite.config.commitment;
  const chain = atCommitment(family, level);
  const pinnedContext = run.pinned_context ?? null;
  return { ...settings, chain, watchChain: atCommitment(family, level, 'watch'), pinnedContext, requestAt: planRequests(chain, settings.workload, settings.seed, settings.pinnedBlock, pinnedContext) };
}

/** A workload entry's params as sent: templates rendered by the family (and the run's pinned context, when given). */
export function renderParams(chain: ChainAdapter, params: unknown, pinnedBlock: number | null, pinnedContext: PinnedContext | null): unknown {
  return templateParams(params, pinnedBlock, chain.renderPinned, withContext(chain.pinnedTemplates, pinnedContext));
}

/** The template strings of a family's pinned context ("{{pinned_block_hash}}", …). */
export const pinContextTemplates = (chain: ChainAdapter): string[] => chain.pinContext.names.map(contextTemplate);

/** Every family's extra template names: a workload naming any of them needs a pinned block too. */
const PINNED_TEMPLATE_NAMES: readonly string[] = Object.values(CHAINS as ChainRegistry).flatMap((c) =>
  c === undefined ? [] : [...Object.keys(c.pinnedTemplates), ...pinContextTemplates(c)],
);

/** Whether planning the run must read the family's pinned context too (some params name one of its values). */
export function needsPinContext(chain: ChainAdapter, workload: Pick<Workload, 'methods'>): boolean {
  const templates = pinContextTemplates(chain);
  return workload.methods.some((m) => {
    const json = JSON.stringify(m.params);
    return templates.some((t) => json.includes(t));
  });
}

/** Whether planning the run needs a head read first (some params name the pinned block). */
export const needsPinnedBlock = (workload: Pick<Workload, 'methods'>): boolean => usesPinnedBlock(workload, PINNED_TEMPLATE_NAMES);

/**
 * Whether some answer of the workload may name an answer context (AnswerComparison.mayNameContext):
 * only then are pairs at different contexts looked for (a pass over every sample of the run).
 */
export function mayNameAnswerContext(chain: ChainAdapter, workload: Pick<Workload, 'methods'>): boolean {
  return workload.methods.some((m) => chain.comparison.mayNameContext(m.method));
}

/** The head in an answer to chain.head's request, or null when the answer is not a head. */
export const parseHead = (chain: ChainAdapter, result: unknown): ChainHead | null => chain.head.parse(result);

/** The response hash of an answer under the family's comparison rules (null: too deep or too big). */
export function fingerprintAnswer(chain: ChainAdapter, method: string, result: unknown, options?: NormalizeOptions): string | null {
  return fingerprintWith(chain.normalize, method, result, options);
}

/** The answer normalised under the family's rules (throws ResultTooDeepError when too deep). */
export function normalizeAnswer(chain: ChainAdapter, method: string, result: unknown, options?: NormalizeOptions): unknown {
  return normalizeWith(chain.normalize, method, result, options);
}

/** Built-in catalog rows of every adapted family, in registry order. */
export const BUILTIN_CHAIN_PRESETS: readonly ChainPreset[] = Object.values(CHAINS).flatMap((c) => c.presets.chains);
export const BUILTIN_WORKLOAD_PRESETS: readonly WorkloadPreset[] = Object.values(CHAINS).flatMap((c) => c.presets.workloads);
