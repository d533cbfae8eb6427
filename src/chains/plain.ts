import type { AnswerComparison, ChainAdapter, PinContextRead, ReadLevels, RpcErrorOutcome } from './types';

/*
 * The behaviour of a family whose answers need nothing beyond the shared engine: each ChainAdapter
 * hook a family without the matter implements by naming one of these (EVM, Bitcoin), so every
 * adapter is complete and shared code calls the hook rather than testing for its absence.
 */

/** No RPC error of the family means "not there yet": every one is a failed call. */
export const plainRpcErrorOutcome = (): RpcErrorOutcome => 'rpc_error';

/** The head is the block height: nothing is read beside it. */
export const plainHeightBesideHead = async (): Promise<bigint | null> => null;

/** Nothing is read beside the pinned block: no template names a value of it. */
export const plainPinContext: PinContextRead = { names: [], read: async () => ({}) };

/** Answers name no context and no error or list of the family says "shorter history": every pair is compared on its values. */
export const plainComparison: AnswerComparison = {
  answerContext: () => null,
  mayNameContext: () => false,
  isHistoryList: () => false,
  isShorterHistory: () => false,
};

/** No read levels: every read is the family's one kind, made by the adapter as it is. */
export const plainReadLevels: ReadLevels = { names: [], at: (adapter) => adapter };

/** Every plain hook at once: for a family that is plain on every matter (a test family). */
export const PLAIN_HOOKS = {
  rpcErrorOutcome: plainRpcErrorOutcome,
  heightBesideHead: plainHeightBesideHead,
  pinnedTemplates: {},
  pinContext: plainPinContext,
  comparison: plainComparison,
  readLevels: plainReadLevels,
} as const satisfies Partial<ChainAdapter>;
