import { notificationsBySubscriptionId, type NotificationSubscription } from '../head-subscriptions';
import { PinContextError, type HeadRead, type PinCall, type PinContextRead } from '../types';

/** Solana's commitment levels (config.commitment on a Solana chain), from the least to the most agreed. */
export const COMMITMENT_LEVELS = ['processed', 'confirmed', 'finalized'] as const;
export type CommitmentLevel = (typeof COMMITMENT_LEVELS)[number];

export const isCommitmentLevel = (level: string): level is CommitmentLevel => (COMMITMENT_LEVELS as readonly string[]).includes(level);

/**
 * The head of a Solana node: the slot at a commitment level. Reads default to `finalized`: pinned
 * reads (getBlock at head − block_lag) need a slot every node keeps, and a processed or confirmed
 * slot can still be dropped by a fork; the head watch defaults to `confirmed` (WATCH_COMMITMENT). The slot names no block hash, and slots are not block heights:
 * skipped slots have no block.
 */
export const solanaHeadAt = (commitment: CommitmentLevel): HeadRead => ({
  method: 'getSlot',
  params: [{ commitment }],
  parse: (result) => headOf(slotOf(result)),
});

/** The level reads (and the pinned slot) default to when the suite names none. */
export const DEFAULT_COMMITMENT: CommitmentLevel = 'finalized';

/** The block height at a commitment level, read beside the slot (ChainAdapter.heightBesideHead): skipped slots make the two differ. */
export const solanaHeightAt = (commitment: CommitmentLevel) => async (call: PinCall): Promise<bigint | null> =>
  headOf(slotOf(await call('getBlockHeight', [{ commitment }])))?.number ?? null;

/**
 * The level the head watch (config.freshness) defaults to: `confirmed`, the slot a cluster's
 * supermajority voted on (about 400 ms behind processed). Finalized trails processed by ~32 slots
 * and moves in bursts of roots, which measures the node's vote view rather than how fresh its head is.
 */
export const WATCH_COMMITMENT: CommitmentLevel = 'confirmed';

const slotOf = (value: unknown): number | null => (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : null);
const headOf = (slot: number | null) => (slot === null ? null : { number: BigInt(slot), hash: null });

/**
 * `slotSubscribe` (content/docs/en/rpc/websocket/slotsubscribe.mdx): a `slotNotification` with
 * `{ parent, root, slot }` whenever the node processes a slot. It takes no commitment: the slots
 * are processed ones, pushed the moment the node has them; the watch at processed or confirmed
 * uses it (every endpoint is watched the same way, so the lag between them is what is measured).
 */
export const solanaSlotSubscription: NotificationSubscription = notificationsBySubscriptionId({
  subscribe: { method: 'slotSubscribe', params: [] },
  unsubscribe: 'slotUnsubscribe',
  notification: 'slotNotification',
  parse: (result) => headOf(result !== null && typeof result === 'object' && !Array.isArray(result) ? slotOf((result as { slot?: unknown }).slot) : null),
});

/** `rootSubscribe` (rootsubscribe.mdx): a `rootNotification` with the new root slot; the watch at finalized uses it. */
export const solanaRootSubscription: NotificationSubscription = notificationsBySubscriptionId({
  subscribe: { method: 'rootSubscribe', params: [] },
  unsubscribe: 'rootUnsubscribe',
  notification: 'rootNotification',
  parse: (result) => headOf(slotOf(result)),
});

export const solanaHead: HeadRead = solanaHeadAt(DEFAULT_COMMITMENT);

/** "{{commitment}}": the suite's commitment level (config.commitment, else finalized) as a string. */
export const COMMITMENT_TEMPLATE = '{{commitment}}';

/** A pinned slot as Solana params write it: a JSON number (getBlock); nothing pinned renders as null. */
export const renderSolanaSlot = (pinned: number | null): number | null => pinned;

/** "{{pinned_slot}}": the same slot, under the name Solana workloads read more naturally. */
export const PINNED_SLOT_TEMPLATE = '{{pinned_slot}}';

/** "{{pinned_signature}}": a finalized transaction's signature (getTransaction, getSignatureStatuses). */
export const PINNED_SIGNATURE = 'pinned_signature';

/** The vote program: every slot of every cluster has vote transactions, so it always has a newest one. */
export const VOTE_PROGRAM = 'Vote111111111111111111111111111111111111111';

const SIGNATURE = /^[1-9A-HJ-NP-Za-km-z]{64,90}$/;

/**
 * A finalized transaction's signature, read once at planning time from the endpoint the run is
 * pinned against: the vote program's newest finalized transaction (getSignaturesForAddress, limit
 * 1). A signature cannot be rendered from the slot, and the pinned slot itself may have been
 * skipped (no block, no transactions), so it is not read from getBlock.
 */
export const solanaPinContext: PinContextRead = {
  names: [PINNED_SIGNATURE],
  async read(call) {
    const answer = await call('getSignaturesForAddress', [VOTE_PROGRAM, { limit: 1, commitment: 'finalized' }]);
    const first: unknown = Array.isArray(answer) ? answer[0] : undefined;
    const signature = first !== null && typeof first === 'object' ? (first as { signature?: unknown }).signature : undefined;
    if (typeof signature !== 'string' || !SIGNATURE.test(signature)) throw new PinContextError('getSignaturesForAddress answered no transaction signature for the vote program');
    return { [PINNED_SIGNATURE]: signature };
  },
};
