import { describe, expect, it } from 'vitest';
import type { NotificationSubscription } from '../../../../src/chains/head-subscriptions';
import { CHAINS } from '../../../../src/chains/registry';

const subscription = CHAINS.bitcoin.headSubscription as NotificationSubscription;
const HASH = 'Ab'.repeat(32);

describe("Bitcoin head subscription (btcd's notifyblocks)", () => {
  it('is scoped to the connection: notifyblocks, stopnotifyblocks, blockconnected [hash, height, time]', () => {
    expect(subscription).toMatchObject({ subscribe: { method: 'notifyblocks', params: [] }, unsubscribe: 'stopnotifyblocks', notification: 'blockconnected', scope: 'connection' });
    expect(subscription.parse([HASH, 436, 1_795_655_576])).toEqual({ number: 436n, hash: HASH.toLowerCase() });
  });

  it.each([
    ['an object', { hash: HASH, height: 1 }],
    ['null', null],
    ['height first (filteredblockconnected)', [4, '00000020a7d8', null]],
    ['a short hash', ['abcd', 1, 0]],
    ['a 0x hash', [`0x${HASH.slice(2)}`, 1, 0]],
    ['a string height', [HASH, '1', 0]],
    ['a negative height', [HASH, -1, 0]],
    ['a fractional height', [HASH, 1.5, 0]],
  ])('is not a head: %s', (_name, params) => {
    expect(subscription.parse(params)).toBeNull();
  });
});
