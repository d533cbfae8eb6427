import { describe, expect, it } from 'vitest';
import type { NotificationSubscription } from '../../../../src/chains/head-subscriptions';
import { CHAINS } from '../../../../src/chains/registry';

const subscription = CHAINS.evm.headSubscription as NotificationSubscription;
const HASH = `0x${'Ab'.repeat(32)}`;

describe('EVM head subscription (eth_subscribe newHeads)', () => {
  it('subscribes to newHeads and reads number and hash from a header', () => {
    expect(subscription.subscribe).toEqual({ method: 'eth_subscribe', params: ['newHeads'] });
    expect(subscription.unsubscribe).toBe('eth_unsubscribe');
    expect(subscription.notification).toBe('eth_subscription');
    expect(subscription.parse({ number: '0x1b4', hash: HASH, parentHash: `0x${'00'.repeat(32)}`, timestamp: '0x1' })).toEqual({ number: 436n, hash: HASH.toLowerCase() });
  });

  it.each([
    ['null', null],
    ['a string', '0x1b4'],
    ['an array', [{ number: '0x1', hash: HASH }]],
    ['no hash', { number: '0x1' }],
    ['a short hash', { number: '0x1', hash: '0xabcd' }],
    ['a decimal number', { number: '12', hash: HASH }],
    ['a numeric number', { number: 12, hash: HASH }],
  ])('is not a head: %s', (_name, result) => {
    expect(subscription.parse(result)).toBeNull();
  });

});
