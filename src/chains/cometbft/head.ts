import { PinContextError, type ChainHead, type HeadMatch, type HeadRead, type HeadSubscription, type PinContextRead, type RpcErrorAnswer, type RpcErrorOutcome } from '../types';

/*
 * CometBFT's head: the latest block's height and hash from one `status` (sync_info), pinned reads by
 * height (JSON-RPC params as a decimal string, as CometBFT writes int64), and new heads from the
 * WebSocket `subscribe` to NewBlock events, which come as answers carrying the subscribe request's
 * id and no `method`.
 */

/** The largest height a head may have: a Postgres bigint, as heads are stored. */
const MAX_HEIGHT = 2n ** 63n - 1n;
const HEIGHT = /^(0|[1-9][0-9]{0,18})$/;
/** Block hashes: SHA-256, upper-case hex as CometBFT writes them (lower-cased as heads are stored). */
const BLOCK_HASH = /^[0-9A-Fa-f]{64}$/;

/** A height as CometBFT writes it (int64 as a decimal string), or null. */
export function cometHeight(value: unknown): bigint | null {
  if (typeof value !== 'string' || !HEIGHT.test(value)) return null;
  const height = BigInt(value);
  return height <= MAX_HEIGHT ? height : null;
}

const isRecord = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

/** `status` → sync_info.latest_block_height + latest_block_hash: one read, so both name the same block. */
export const cometHead: HeadRead = {
  method: 'status',
  params: [],
  parse(result) {
    const sync = isRecord(result) ? result.sync_info : undefined;
    if (!isRecord(sync)) return null;
    const height = cometHeight(sync.latest_block_height);
    const hash = sync.latest_block_hash;
    if (height === null || typeof hash !== 'string' || !BLOCK_HASH.test(hash)) return null;
    return { number: height, hash: hash.toLowerCase() };
  },
};

/** A pinned height as CometBFT params write it: a decimal string; nothing pinned is null (the latest). */
export const renderCometHeight = (pinned: number | null): string | null => (pinned === null ? null : String(pinned));

/** "{{pinned_height}}": the same height, under the name CometBFT workloads read more naturally. */
export const PINNED_HEIGHT_TEMPLATE = '{{pinned_height}}';

export const NEW_BLOCK_QUERY = "tm.event='NewBlock'";
const NEW_BLOCK_TYPE = 'tendermint/event/NewBlock';

/** The head a NewBlock event names: `data.value.block.header.height` and `data.value.block_id.hash`; null: none. */
export function newBlockHead(result: unknown): ChainHead | null {
  if (!isRecord(result) || !isRecord(result.data)) return null;
  const { type, value } = result.data;
  if (type !== NEW_BLOCK_TYPE || !isRecord(value) || !isRecord(value.block) || !isRecord(value.block.header) || !isRecord(value.block_id)) return null;
  const height = cometHeight(value.block.header.height);
  const hash = value.block_id.hash;
  if (height === null || typeof hash !== 'string' || !BLOCK_HASH.test(hash)) return null;
  return { number: height, hash: hash.toLowerCase() };
}

const NOT_MINE: HeadMatch = { kind: 'not_mine' };

/**
 * `subscribe ["tm.event='NewBlock'"]` (rpc/core/events.go): answered `{}`, then every event is an
 * answer with the subscribe request's id, `result: { query, data: { type, value }, events }`. An
 * event may race the `{}` answer, so a message with the request's id is read as an event by its
 * `query` — the subscribe answer names none — whether the subscribe was answered yet or not.
 * `unsubscribe` takes the same query.
 */
export const cometHeadSubscription: HeadSubscription = {
  subscribe: { method: 'subscribe', params: [NEW_BLOCK_QUERY] },
  accepted: (result) => isRecord(result),
  cancel: () => ({ method: 'unsubscribe', params: [NEW_BLOCK_QUERY] }),
  match(message, state) {
    if (message.id !== state.requestId || message.method !== undefined) return NOT_MINE;
    if (!isRecord(message.result) || message.result.query !== NEW_BLOCK_QUERY) return NOT_MINE;
    const head = newBlockHead(message.result);
    return head === null ? { kind: 'not_head' } : { kind: 'head', head };
  },
};

/** CometBFT's text for a height above the node's latest block (rpc/core/env.go getHeight). */
const ABOVE_LATEST = /^height \d{1,20} must be less than or equal to the current blockchain height \d{1,20}$/;

/** "height H is not available, lowest height is B": the node pruned or never had that block (history depth). */
export const BELOW_HISTORY = /^height \d{1,20} is not available, lowest height is \d{1,20}$/;

/**
 * Every CometBFT RPC error is -32603 "Internal error" with the reason in `data`: a height above the
 * node's latest block is a node that has not reached it yet (`behind`, never a wrong answer); a
 * height below its lowest block is beyond its history (`history_depth`: not comparable, never a
 * mismatch). Only short texts are read.
 */
export function cometRpcErrorOutcome(error: RpcErrorAnswer): RpcErrorOutcome {
  if (typeof error.data !== 'string' || error.data.length > 160) return 'rpc_error';
  return ABOVE_LATEST.test(error.data) ? 'behind' : BELOW_HISTORY.test(error.data) ? 'history_depth' : 'rpc_error';
}

/** "{{pinned_block_hash}}": the pinned block's hash in hex, as CometBFT writes it (header_by_hash takes hex). */
export const PINNED_BLOCK_HASH = 'pinned_block_hash';
/** "{{pinned_block_hash_base64}}": the same bytes in base64 (block_by_hash decodes its bytes param so). */
export const PINNED_BLOCK_HASH_BASE64 = 'pinned_block_hash_base64';

/**
 * The pinned block's hash, re-read once at planning time from the endpoint the run is pinned against
 * (`blockchain [H, H]`: the block's meta, far smaller than the block), for reads by hash
 * (`header_by_hash`, `block_by_hash`). The two decode their param differently (rpc/core/blocks.go):
 * header_by_hash takes HexBytes (hex), block_by_hash plain bytes (base64 in JSON), so both forms are kept.
 */
export const cometPinContext: PinContextRead = {
  names: [PINNED_BLOCK_HASH, PINNED_BLOCK_HASH_BASE64],
  async read(call, pinned) {
    const answer = await call('blockchain', [String(pinned), String(pinned)]);
    const metas = isRecord(answer) && Array.isArray(answer.block_metas) ? answer.block_metas : [];
    const meta: unknown = metas[0];
    const blockId = isRecord(meta) ? meta.block_id : undefined;
    const hash = isRecord(blockId) ? blockId.hash : undefined;
    const height = isRecord(meta) && isRecord(meta.header) ? cometHeight(meta.header.height) : null;
    if (typeof hash !== 'string' || !BLOCK_HASH.test(hash) || height !== BigInt(pinned)) throw new PinContextError(`blockchain ${pinned} ${pinned} answered no block meta of that height`);
    return { [PINNED_BLOCK_HASH]: hash.toUpperCase(), [PINNED_BLOCK_HASH_BASE64]: Buffer.from(hash, 'hex').toString('base64') };
  },
};
