import { describe, expect, it } from 'vitest';
import { cometHead, cometHeadSubscription, cometHeight, cometPinContext, cometRpcErrorOutcome, NEW_BLOCK_QUERY, renderCometHeight } from '../../../../src/chains/cometbft/head';
import { CHAINS } from '../../../../src/chains/registry';
import type { SubscriptionState } from '../../../../src/chains/types';

const HASH = 'AB'.repeat(32);
const status = (height: unknown, hash: unknown) => ({ node_info: { network: 'rvs-local-1' }, sync_info: { latest_block_height: height, latest_block_hash: hash, catching_up: false } });
const event = (height: unknown, hash: unknown, extra: Record<string, unknown> = {}) => ({
  query: NEW_BLOCK_QUERY,
  data: { type: 'tendermint/event/NewBlock', value: { block: { header: { chain_id: 'rvs-local-1', height } }, block_id: { hash, parts: { total: 1 } }, ...extra } },
  events: {},
});

describe('CometBFT heights and the head read (status)', () => {
  it.each([
    { value: '0', expected: 0n },
    { value: '13', expected: 13n },
    { value: '9223372036854775807', expected: 2n ** 63n - 1n },
    { value: '9223372036854775808', expected: null },
    { value: '013', expected: null },
    { value: '-1', expected: null },
    { value: 13, expected: null },
    { value: '1'.repeat(4_000), expected: null },
  ])('$value → $expected', ({ value, expected }) => {
    expect(cometHeight(value)).toBe(expected);
    expect(cometHead.parse(status(value, HASH))?.number ?? null).toBe(expected);
  });

  it('reads height and hash from one status (lower-cased hash); anything else is not a head', () => {
    expect(cometHead).toMatchObject({ method: 'status', params: [] });
    expect(cometHead.parse(status('13', HASH))).toEqual({ number: 13n, hash: HASH.toLowerCase() });
    for (const bad of [null, 'x', [], {}, { sync_info: null }, status('13', 'abcd'), status('13', null), status(null, HASH)]) expect(cometHead.parse(bad)).toBeNull();
  });

  it('renders a pinned height as CometBFT writes int64 (a decimal string); nothing pinned is null, the latest', () => {
    expect(renderCometHeight(42)).toBe('42');
    expect(renderCometHeight(null)).toBeNull();
    expect(CHAINS.cometbft.pinnedTemplates?.['{{pinned_height}}']?.(42)).toBe('42');
  });
});

describe('the NewBlock subscription: events are answers with the subscribe request\'s id and no method', () => {
  const sub = cometHeadSubscription;
  const answered: SubscriptionState = { requestId: 3, answered: true, result: {} };
  const waiting: SubscriptionState = { requestId: 3, answered: false, result: undefined };

  it('subscribes to NewBlock, takes the {} answer, cancels by the same query', () => {
    expect(sub.subscribe).toEqual({ method: 'subscribe', params: ["tm.event='NewBlock'"] });
    expect(sub.accepted({})).toBe(true);
    expect(sub.accepted(null)).toBe(false);
    expect(sub.cancel(answered)).toEqual({ method: 'unsubscribe', params: ["tm.event='NewBlock'"] });
  });

  it.each([
    { name: 'an event', message: { jsonrpc: '2.0', id: 3, result: event('7', HASH) }, state: answered, expected: { kind: 'head', head: { number: 7n, hash: HASH.toLowerCase() } } },
    { name: 'an event racing the {} answer', message: { jsonrpc: '2.0', id: 3, result: event('7', HASH) }, state: waiting, expected: { kind: 'head', head: { number: 7n, hash: HASH.toLowerCase() } } },
    { name: 'the {} answer itself', message: { jsonrpc: '2.0', id: 3, result: {} }, state: waiting, expected: { kind: 'not_mine' } },
    { name: 'an answer to another request', message: { jsonrpc: '2.0', id: 4, result: event('7', HASH) }, state: answered, expected: { kind: 'not_mine' } },
    { name: 'a notification', message: { jsonrpc: '2.0', method: 'x', params: event('7', HASH) }, state: answered, expected: { kind: 'not_mine' } },
    { name: 'the subscription cancelled by the node', message: { jsonrpc: '2.0', id: 3, error: { code: -32000, message: 'Server error', data: 'subscription was canceled' } }, state: answered, expected: { kind: 'not_mine' } },
    { name: 'an event without a hash', message: { jsonrpc: '2.0', id: 3, result: event('7', null) }, state: answered, expected: { kind: 'not_head' } },
    { name: 'an event with a numeric height', message: { jsonrpc: '2.0', id: 3, result: event(7, HASH) }, state: answered, expected: { kind: 'not_head' } },
    { name: 'an event of another type', message: { jsonrpc: '2.0', id: 3, result: { ...event('7', HASH), data: { type: 'tendermint/event/Tx', value: {} } } }, state: answered, expected: { kind: 'not_head' } },
  ])('$name', ({ message, state, expected }) => {
    expect(sub.match(message, state)).toEqual(expected);
  });
});

describe('errors told apart by their text (every CometBFT error is -32603)', () => {
  it.each([
    { data: 'height 999999 must be less than or equal to the current blockchain height 8', outcome: 'behind' },
    { data: 'height 3 is not available, lowest height is 100', outcome: 'history_depth' },
    { data: 'height must be greater than 0, but got -1', outcome: 'rpc_error' },
    { data: `height 1 must be less than or equal to the current blockchain height 8${' '.repeat(200)}`, outcome: 'rpc_error' },
    { data: `height 3 is not available, lowest height is 100 (and more)`, outcome: 'rpc_error' },
    { data: null, outcome: 'rpc_error' },
    { data: 42, outcome: 'rpc_error' },
  ])('$data → $outcome', ({ data, outcome }) => {
    expect(cometRpcErrorOutcome({ code: -32603, message: 'Internal error', data })).toBe(outcome);
  });
});

describe('the pinned block hash, re-read at planning time (pinned context)', () => {
  const meta = (height: unknown, hash: unknown) => ({ last_height: '20', block_metas: [{ block_id: { hash }, header: { height } }] });

  it('reads blockchain [H, H] and writes the hash in hex (header_by_hash) and base64 (block_by_hash)', async () => {
    const calls: unknown[] = [];
    const context = await cometPinContext.read(async (method, params) => {
      calls.push([method, params]);
      return meta('12', 'AB'.repeat(32));
    }, 12);
    expect(calls).toEqual([['blockchain', ['12', '12']]]);
    expect(context).toEqual({ pinned_block_hash: 'AB'.repeat(32), pinned_block_hash_base64: Buffer.from('AB'.repeat(32), 'hex').toString('base64') });
  });

  it.each([
    { name: 'another height', answer: meta('13', 'AB'.repeat(32)) },
    { name: 'no hash', answer: meta('12', null) },
    { name: 'a short hash', answer: meta('12', 'ABCD') },
    { name: 'no metas', answer: { block_metas: [] } },
    { name: 'null', answer: null },
  ])('refuses $name', async ({ answer }) => {
    await expect(cometPinContext.read(async () => answer, 12)).rejects.toThrow('answered no block meta of that height');
  });
});
