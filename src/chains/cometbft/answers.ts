import { removeIgnoredPaths, type NormalizeOptions } from '../../domain/correctness';
import { shapeOf } from '../../domain/json-shape';

/*
 * CometBFT answers compared by meaning. Heights and amounts come as decimal strings and hashes as
 * upper-case hex from every node alike, so values need no re-encoding. What honest nodes disagree
 * on is removed per method (every entry documented in docs/chains.md); answers describing the
 * node itself (its peers, its mempool, its consensus round) are compared by shape only.
 */

/** Paths removed from a method's result before comparison (dot paths relative to the result, `*` every element). */
export const COMET_IGNORE_PATHS: Readonly<Record<string, readonly string[]>> = {
  // The node itself (id, moniker, listen address, version), its own validator key (a full node's has
  // no power), whether it is catching up, and what it has pruned: the latest block is compared.
  status: ['node_info', 'validator_info', 'sync_info.catching_up', 'sync_info.earliest_block_hash', 'sync_info.earliest_app_hash', 'sync_info.earliest_block_height', 'sync_info.earliest_block_time'],
  // The latest block's commit is each node's seen commit (the precommits it gathered, `canonical:
  // false`) until the next block carries the canonical one, whose signatures are then compared in
  // that block's `last_commit`.
  commit: ['canonical', 'signed_header.commit.signatures'],
};

/** Methods whose answer is the node's own view: compared by shape (member names and JSON types) only. */
export const COMET_SHAPE_METHODS: ReadonlySet<string> = new Set(['net_info', 'consensus_state', 'dump_consensus_state', 'num_unconfirmed_txs', 'unconfirmed_txs', 'health']);

/** The CometBFT normalisation of a result known to be at most MAX_RESULT_DEPTH deep (the adapter's `normalize`). */
export function normalizeCometResult(method: string, result: unknown, options: NormalizeOptions): unknown {
  const value = removeIgnoredPaths(result, [...(COMET_IGNORE_PATHS[method] ?? []), ...(options.ignorePaths ?? [])]);
  return COMET_SHAPE_METHODS.has(method) ? shapeOf(value) : value;
}
