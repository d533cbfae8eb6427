import type { ChainPreset, WorkloadPreset } from '../domain/catalog-presets';
import type { NormalizeOptions } from '../domain/correctness';
import type { PinnedContext, PinnedTemplates } from '../domain/workload';
import type { SampleOutcome } from '../domain/sample-outcome';
import type { EndpointProfile, ProfileCall } from '../domain/endpoint-profile';

/*
 * What differs by chain family (DESIGN.md §11, STYLE rule 15). Each family is one folder
 * src/chains/<family>/ exporting one ChainAdapter, registered in src/chains/registry.ts; the rest
 * of the service reaches a family's code only through the registry. The interface is drawn
 * against EVM (implemented), Bitcoin Core (height + best block hash from one getblockchaininfo;
 * JSON-RPC 1.0 answers), Solana (slots at a commitment level; a context slot in answers) and
 * CometBFT (height + hash from /status or `status`).
 */

/**
 * How answers are framed. `json-rpc-2.0`: `jsonrpc: "2.0"` and exactly one of result/error.
 * `json-rpc-1.0` as Bitcoin Core < 28 speaks it: every answer carries result, error and id
 * (one of the first two null), and an RPC error may come with HTTP 404 or 500.
 */
export type AnswerEnvelope = 'json-rpc-2.0' | 'json-rpc-1.0';

/** A chain head as a family reports it: a block number, height or slot, and its hash when the same answer names it. */
export interface ChainHead {
  number: bigint;
  hash: string | null;
}

/** One request that reads the head, and how to read its result (null: not a head). */
export interface HeadRead {
  method: string;
  params: unknown[];
  parse(result: unknown): ChainHead | null;
}

/** One call to the endpoint the run is pinned against; rejects when the call fails. */
export type PinCall = (method: string, params: unknown[]) => Promise<unknown>;

/**
 * Values a family reads once at planning time, after the head, from the same endpoint (the
 * reference, else the first candidate), and stores with the run: what a pinned read needs beyond
 * the pinned block itself (Bitcoin: the block's hash and a txid in it). Each value replaces the
 * "{{name}}" string in params, for every target and every retry alike.
 */
export interface PinContextRead {
  /** The names read; a workload naming one of their templates gets a pinned block and this read. */
  names: readonly string[];
  /** The values at `pinned`; throws PinContextError when an answer is not what the family expects. */
  read(call: PinCall, pinned: number): Promise<PinnedContext>;
}

/** An answer read for the pinned context was not what the family expects (the endpoint's fault). */
export class PinContextError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PinContextError';
  }
}

/** A message the WebSocket connection offers a head subscription: its top-level members, bounded (ws-client.ts). */
export interface SubscriptionMessage {
  id?: unknown;
  method?: unknown;
  params?: unknown;
  result?: unknown;
  error?: unknown;
}

/**
 * The subscription as far as it has got on one connection: the id its subscribe request was sent
 * with, and once answered (`answered`) the request's result (eth_subscribe: the subscription id).
 */
export interface SubscriptionState {
  requestId: number;
  answered: boolean;
  result: unknown;
}

/**
 * What a message is to a head subscription. `head`: one of its events, naming a head. `not_head`:
 * one of its events that names no head (counted). `not_mine`: left to the connection (an answer
 * to a request in flight, another method's notification; an answer matching no request is counted
 * there as unmatched). `later`: may be one of its events, but the subscription is not answered yet
 * and the message cannot tell: asked again once it is (kept as text, bounded: watch-heads.ts).
 */
export type HeadMatch = { kind: 'head'; head: ChainHead } | { kind: 'not_head' } | { kind: 'not_mine' } | { kind: 'later' };

/**
 * How a family's node pushes new heads over a WebSocket, as hooks the family implements
 * (STYLE rule 17): the subscribe request, whether its answer says it took, the request that
 * cancels it, and `match`, which the connection offers every message before matching it to a
 * request in flight, so a family whose events come as answers (CometBFT: the subscribe request's
 * id, no `method`) reads them as well as one whose events are notifications (eth_subscription).
 * Helpers for the usual shapes: src/chains/head-subscriptions.ts.
 */
export interface HeadSubscription {
  subscribe: { method: string; params: unknown[] };
  /** Whether the subscribe request's result says the subscription took (eth_subscribe: an id). */
  accepted(result: unknown): boolean;
  /** The request that cancels the subscription, once answered. */
  cancel(state: SubscriptionState): { method: string; params: unknown[] };
  /** What a message on the subscription's connection is to it; must not throw (its input is a node's). */
  match(message: SubscriptionMessage, state: SubscriptionState): HeadMatch;
}

/**
 * How a family says whether a candidate's and the reference's answers to one call are comparable,
 * and when not, why (DESIGN.md §11): the correctness engine (db/samples-correctness.ts, the
 * re-check step, finalize) applies these to every pair, so a family whose answers need none of it
 * names plainComparison.
 */
export interface AnswerComparison {
  /**
   * Where in the chain an answer says it was read (Solana: `context.slot`), null when it names
   * none; stored with the sample as its answer context. Two ok answers that both name one are
   * compared only when it is the same: else both sides are re-asked at one context (pinForRecheck
   * with the higher one) until they answer there, and a pair never answered at one is
   * `not_comparable` (reason `context_slot`).
   */
  answerContext(result: unknown): number | null;
  /** Whether answers to `method` may name an answer context: the engine looks for pairs at different contexts only in workloads with such a method. */
  mayNameContext(method: string): boolean;
  /**
   * Whether `method` answers a list that a node with less history answers shorter (Solana:
   * getSignaturesForAddress, newest first, ends at the node's first available block). A differing
   * pair of such a method is re-asked of both sides in the re-check step, whether a head moved or
   * not, and judged there by isShorterHistory.
   */
  isHistoryList(method: string): boolean;
  /**
   * With both re-asked answers of a history list in hand: true when one, normalised, is a strict
   * prefix of the other (equal on the common part) — `not_comparable` (history depth); false —
   * any other difference, a mismatch.
   */
  isShorterHistory(method: string, candidate: unknown, reference: unknown): boolean;
}

/**
 * The levels of agreement a family's reads may be made at (Solana: its commitment levels), which a
 * suite names in `config.commitment`. The family owns their vocabulary and defaults: the shared
 * code passes the suite's name through.
 */
export interface ReadLevels {
  /** The names a suite may give; none (plainReadLevels): the family has no levels, and a suite naming one is refused. */
  names: readonly string[];
  /**
   * `adapter` (the family's) reading at `level` (one of `names`: its head read and its templates
   * at that level), or, when the suite names none, at the family's default for reads or for the
   * head watch (`use`); a family without levels answers `adapter` as it is.
   */
  at(adapter: ChainAdapter, level: string | undefined, use: 'reads' | 'watch'): ChainAdapter;
}

/**
 * An RPC error answer as the family reads it: its code (null when not an integer) and the node's
 * own `message` and `data`, unparsed (a family whose codes do not say why — CometBFT answers
 * every error -32603 and says why in `data` — reads the text; bounded by the answer's size cap).
 */
export interface RpcErrorAnswer {
  code: number | null;
  message: unknown;
  data: unknown;
}

/**
 * What an RPC error answer is (ChainAdapter.rpcErrorOutcome): a sample's outcome, or
 * `history_depth` — the node no longer holds, or never kept, the history asked for (Solana: a
 * block below its first available block; CometBFT: "height H is not available, lowest height is
 * B"): its ledger is shorter, not its answer wrong. Such a sample is stored `rpc_error` (a failed
 * call, as availability counts it) with the reason RPC_ERROR_REASONS.historyDepth, and a pair where
 * one side answers it and the other a value is `not_comparable` (reason `history_depth`): neither
 * match nor mismatch. Both sides failing stays `skipped`.
 */
export type RpcErrorOutcome = Extract<SampleOutcome, 'behind' | 'rpc_error'> | 'history_depth';

export interface WorkloadMethodDefault {
  method: string;
  params: unknown[];
  weight: number;
}

/** A call of the run whose answer the integrity step verifies (DESIGN.md §15). */
export interface IntegrityCall {
  method: string;
  params: unknown[];
}

/**
 * The block the run trusts (DESIGN.md §15): the suite's or run's `integrity.trusted_block`, else
 * the reference's hash of the pinned block; null: self-consistency only (the candidate's answers
 * must agree with its own headers).
 */
export interface IntegrityAnchor {
  number: bigint;
  hash: string;
  source: 'trusted_block' | 'reference';
}

/** What the integrity step needs of the run while verifying one endpoint's answers. */
export interface IntegrityContext {
  /** One call to the endpoint under verification; counted against the run's budget of extra requests, rejects once it is spent or when the call fails. */
  call: PinCall;
  anchor: IntegrityAnchor | null;
  /** How many blocks a header may be from the anchor and still be linked to it by parent hashes. */
  maxAnchorDistance: number;
  /** The run's chain as the catalog names it (its slug): a family whose chains differ in their rules (Litecoin's scrypt proof of work beside Bitcoin's sha256d) reads which chain this is. */
  chain: { slug: string | null };
  /** The family's memo for this endpoint and run (headers already proven, …); the family owns its keys. */
  memo: Map<string, unknown>;
}

/**
 * What the integrity step learned of one answer. `wrong`: proven wrong, `path` names the field
 * (`$.balance`, `$.transactions[2]`), `message` what the proof showed ("answered 5 ETH, the account
 * proof against stateRoot 0x… says 3 ETH"). `not_provable`: why not (no commitment covers the
 * method, too far from the anchor, the endpoint would not answer a proof …).
 */
export type IntegrityFinding =
  | { kind: 'proven'; block: string | null }
  | { kind: 'wrong'; block: string | null; path: string; message: string }
  | { kind: 'not_provable'; reason: string };

/**
 * How a family proves its answers against the chain's own commitments (DESIGN.md §15). A family
 * without proofs over RPC has none (the check is `not_applicable`, naming the family).
 */
export interface IntegrityVerifier {
  /** Null when answers to `method` can be proven; else why not ("eth_call: not provable without executing the EVM"). */
  notProvable(method: string): string | null;
  /**
   * Verifies `answer` (the endpoint's answer to `call`, untrusted bytes) against headers linked to
   * the anchor, fetching what it needs through `context.call`. Never throws on what an endpoint
   * sent: a malformed answer or proof is `wrong` or `not_provable`.
   */
  verify(call: IntegrityCall, answer: unknown, context: IntegrityContext): Promise<IntegrityFinding>;
  /**
   * The hash of the block at `number` as the reference (a trusted endpoint) answers it, the run's
   * anchor when the suite names no trusted block; null when it has none. A family without it
   * anchors on a trusted block or its candidates' own headers only. Rejects when the call does.
   */
  anchorAt?(call: PinCall, number: bigint): Promise<string | null>;
}

export interface ChainAdapter {
  /** The chain resource's `family` this adapter serves. */
  family: string;
  envelope: AnswerEnvelope;
  head: HeadRead;
  /**
   * The block height, read right after `head` from the same endpoint, when the head is not a
   * block height (Solana: the head is the slot; getBlockHeight at the same commitment), reported
   * beside it. Resolves null when the head is the height (no read: plainHeightBesideHead) or the
   * answer is not a height; rejects when the call does.
   */
  heightBesideHead(call: PinCall): Promise<bigint | null>;
  /** New heads pushed over a WebSocket; a family without it is watched by polling `head` only. */
  headSubscription?: HeadSubscription;
  /**
   * The shortest interval between two new heads an honest node of the family announces (its
   * fastest chains, with local and test networks that mine on demand), ms. It bounds what a head
   * watch stores per endpoint (domain/freshness.ts maxStoredHeads): more distinct heads than this
   * rate allows over the watch is a flood, whose excess is not stored.
   */
  fastestHeadIntervalMs: number;
  /**
   * The value that replaces a `{{pinned_block}}` string in a workload's params: the pinned
   * block/height/slot as the family writes it, or what to ask for when nothing is pinned.
   */
  renderPinned(pinned: number | null): unknown;
  /**
   * Other template strings the family replaces in params, each rendered from the same pinned
   * block (Bitcoin: "{{pinned_height}}"). A workload naming one gets a pinned block like one
   * naming `{{pinned_block}}`. None: `{}`.
   */
  pinnedTemplates: PinnedTemplates;
  /** Values read at planning time beside the pinned block (none, plainPinContext: every template renders from the block alone). */
  pinContext: PinContextRead;
  /** The answer may differ between two nodes asked at about the same time because the head moved. */
  isHeadDependent(method: string, params: unknown): boolean;
  /** The params of a head-dependent call pinned at `block` for a re-check; null when it cannot be pinned. */
  pinForRecheck(method: string, params: unknown, block: bigint | number): unknown[] | null;
  /**
   * The result with everything honest nodes may disagree on normalised away (value encodings,
   * orderings that carry no meaning, ignored paths). Called only on results at most
   * MAX_RESULT_DEPTH deep; must not modify its input.
   */
  normalize(method: string, result: unknown, options: NormalizeOptions): unknown;
  /** Whether two answers to one call can be compared at all, and if not why (AnswerComparison). */
  comparison: AnswerComparison;
  /** Method names a workload may use on this family (on top of the schema's bounds). */
  methodName: { pattern: RegExp; message: string };
  /** The workload methods a suite gets when it names none. */
  defaultMethods: readonly WorkloadMethodDefault[];
  /**
   * What an RPC error is: `behind` when it means the node has not yet reached the state asked for
   * (Solana: code -32016, a minContextSlot above its slot; CometBFT: "height H must be less than or
   * equal to the current blockchain height" in `data`), a freshness matter rather than a failed
   * call; `history_depth` when the data is beyond the node's history (RpcErrorOutcome); else
   * `rpc_error` (families without such errors: plainRpcErrorOutcome).
   * Reads a node's answer: must not throw.
   */
  rpcErrorOutcome(error: RpcErrorAnswer): RpcErrorOutcome;
  /** The levels a suite may read the family at (`config.commitment`), and the adapter at one (ReadLevels). */
  readLevels: ReadLevels;
  /** Proofs of answers against the chain's commitments (the `integrity` check); none: the check is not applicable. */
  integrity?: IntegrityVerifier;
  /**
   * What the family can discover about an endpoint within a request budget, with harmless calls
   * only (issue 35, DESIGN.md §16): methods and namespaces, archive depth by value, log limits,
   * finality tags. None: the family discovers nothing yet.
   */
  profile?: ProfileDiscovery;
  /** Built-in catalog rows of this family (the migrate step writes them: db/catalog.ts syncBuiltinPresets). */
  presets: { chains: readonly ChainPreset[]; workloads: readonly WorkloadPreset[] };
}

/** A registry: the adapters a process knows, by family. Functions take one so tests can add a family. */
export type ChainRegistry = Readonly<Partial<Record<string, ChainAdapter>>>;


export type { EndpointProfile, ProfileAnswer, ProfileCall } from '../domain/endpoint-profile';

/** What a family's discovery is handed (ProfileDiscovery.discover). */
export interface ProfileDiscoveryInput {
  /** The endpoint profiled: budgeted and paced by the engine (rejects with ProfileBudgetSpent once spent). */
  call: ProfileCall;
  /** A reference to check values against (its own budget); null: the endpoint is checked against its own chain. */
  reference: ProfileCall | null;
  /** Addresses (or the family's equivalents) whose state changes over the chain, to check history by; may be empty. */
  accounts: readonly string[];
  /** The budget `call` has, reported in the profile. */
  budget: number;
  /** Calls made so far on the endpoint and the reference (the engine counts them). */
  used(): { endpoint: number; reference: number };
}

/** A family's discovery of an endpoint's profile. Never throws for what the endpoint answers: what it could not learn is in `inconclusive_reasons`. */
export interface ProfileDiscovery {
  discover(input: ProfileDiscoveryInput): Promise<EndpointProfile>;
}
