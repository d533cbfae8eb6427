/**
 * What became of one probe call (DESIGN §6): a sample's `outcome`. Only `ok` is a success.
 * `behind` is an RPC error the chain family says means "this node has not reached the state asked
 * for yet" (ChainAdapter.rpcErrorOutcome): the node's freshness failing, not a wrong answer.
 */
export const SAMPLE_OUTCOMES = ['ok', 'http_error', 'rpc_error', 'timeout', 'connection_error', 'invalid_response', 'behind'] as const;
export type SampleOutcome = (typeof SAMPLE_OUTCOMES)[number];

/** Why an rpc_error sample failed, where its family says more than the code (ChainAdapter.rpcErrorOutcome): stored as its `reason`. */
export const RPC_ERROR_REASONS = {
  historyDepth: "beyond the node's history",
} as const;
export type RpcErrorReason = (typeof RPC_ERROR_REASONS)[keyof typeof RPC_ERROR_REASONS];
