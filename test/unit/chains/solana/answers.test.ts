import { describe, expect, it } from 'vitest';
import { solanaAdapter } from '../../../../src/chains/solana';
import { solanaHead, solanaPinContext } from '../../../../src/chains/solana/head';
import { fingerprintAnswer, normalizeAnswer, planRequests } from '../../../../src/chains/registry';
import { PinContextError } from '../../../../src/chains/types';

const same = (method: string, a: unknown, b: unknown) => fingerprintAnswer(solanaAdapter, method, a) === fingerprintAnswer(solanaAdapter, method, b);
const account = (lamports: number) => ({ data: ['', 'base64'], executable: false, lamports, owner: '11111111111111111111111111111111', rentEpoch: 361, space: 0 });

describe('solana answers', () => {
  it('compares an RpcResponse by its value, not the slot or version it was answered at', () => {
    expect(same('getBalance', { context: { apiVersion: '2.0.15', slot: 10 }, value: 5 }, { context: { apiVersion: '2.1.0', slot: 13 }, value: 5 })).toBe(true);
    expect(same('getBalance', { context: { slot: 10 }, value: 5 }, { context: { slot: 10 }, value: 6 })).toBe(false);
    expect(normalizeAnswer(solanaAdapter, 'getAccountInfo', { context: { slot: 1 }, value: account(7) })).toEqual({ value: account(7) });
    // A plain object that merely has a `context` member (no `value`) is not an RpcResponse.
    expect(normalizeAnswer(solanaAdapter, 'getX', { context: { slot: 1 }, other: 1 })).toEqual({ context: { slot: 1 }, other: 1 });
  });

  it('sorts getProgramAccounts and getTokenAccountsByOwner by pubkey, with or without a context', () => {
    const a = { pubkey: 'A', account: account(1) };
    const b = { pubkey: 'B', account: account(2) };
    expect(same('getProgramAccounts', [a, b], [b, a])).toBe(true);
    expect(same('getProgramAccounts', { context: { slot: 1 }, value: [a, b] }, { context: { slot: 2 }, value: [b, a] })).toBe(true);
    expect(same('getTokenAccountsByOwner', { context: { slot: 1 }, value: [a, b] }, { context: { slot: 1 }, value: [b, a] })).toBe(true);
    expect(same('getTokenAccountsByOwner', { context: { slot: 1 }, value: [a, b] }, { context: { slot: 1 }, value: [a] })).toBe(false);
    // Other lists keep their order: getMultipleAccounts answers in the order asked.
    expect(same('getMultipleAccounts', { context: { slot: 1 }, value: [account(1), account(2)] }, { context: { slot: 1 }, value: [account(2), account(1)] })).toBe(false);
  });

  it('compares the node’s own view by shape', () => {
    const blockhash = (hash: string, height: number) => ({ context: { slot: 1 }, value: { blockhash: hash, lastValidBlockHeight: height } });
    expect(same('getLatestBlockhash', blockhash('EkSnNWid2cvwEVnVx9aBqawnmiCNiDgp3gUdkDPTKN1N', 3090), blockhash('3Eq21vXNB5s86c62bVuUfTeaMif1N2kUqRPBmGRJhyTA', 4000))).toBe(true);
    expect(same('getLatestBlockhash', blockhash('x', 1), { context: { slot: 1 }, value: { blockhash: 'x' } })).toBe(false);
    expect(same('getVersion', { 'feature-set': 2891131721, 'solana-core': '1.16.7' }, { 'feature-set': 1, 'solana-core': '2.0.15' })).toBe(true);
    expect(same('getHealth', 'ok', 'behind')).toBe(true);
    expect(same('getRecentPrioritizationFees', [{ slot: 1, prioritizationFee: 0 }], [{ slot: 2, prioritizationFee: 5 }, { slot: 3, prioritizationFee: 0 }])).toBe(true);
  });

  it('ignores signature confirmations counted from each node’s tip, not the status itself', () => {
    const status = (confirmations: number | null, confirmationStatus: string) => ({ context: { slot: 1 }, value: [{ slot: 48, confirmations, err: null, status: { Ok: null }, confirmationStatus }, null] });
    expect(same('getSignatureStatuses', status(3, 'confirmed'), status(5, 'confirmed'))).toBe(true);
    expect(same('getSignatureStatuses', status(3, 'confirmed'), status(null, 'finalized'))).toBe(false);
  });

  it('compares finalized blocks and transactions exactly', () => {
    expect(same('getBlock', { blockhash: 'a', transactions: [1] }, { blockhash: 'a', transactions: [1, 2] })).toBe(false);
    expect(solanaAdapter.isHeadDependent('getBlock', [430, {}])).toBe(false);
    expect(solanaAdapter.isHeadDependent('getTransaction', ['sig', 'json'])).toBe(false);
  });
});

describe('solana head dependence and re-check pinning', () => {
  it('tip reads, state reads and the node’s own view follow the head', () => {
    for (const method of ['getSlot', 'getBlockHeight', 'getEpochInfo', 'getBalance', 'getAccountInfo', 'getMultipleAccounts', 'getProgramAccounts', 'getTokenAccountsByOwner', 'getSignaturesForAddress', 'getSignatureStatuses', 'getLatestBlockhash', 'getHealth']) {
      expect(solanaAdapter.isHeadDependent(method, []), method).toBe(true);
    }
    expect(solanaAdapter.isHeadDependent('getGenesisHash', [])).toBe(false);
  });

  it('re-asks a state read with minContextSlot in its config object, added or replaced, without touching the input', () => {
    const params = ['vines1vzrYbzLMRdu58ou5XTby4qAqVRLmqo36NKPTg', { encoding: 'base64', minContextSlot: 3 }];
    expect(solanaAdapter.pinForRecheck('getAccountInfo', params, 1234n)).toEqual(['vines1vzrYbzLMRdu58ou5XTby4qAqVRLmqo36NKPTg', { encoding: 'base64', minContextSlot: 1234 }]);
    expect(params[1]).toEqual({ encoding: 'base64', minContextSlot: 3 });
    expect(solanaAdapter.pinForRecheck('getBalance', ['pk'], 7)).toEqual(['pk', { minContextSlot: 7 }]);
    expect(solanaAdapter.pinForRecheck('getTokenAccountsByOwner', ['owner', { programId: 'p' }], 7)).toEqual(['owner', { programId: 'p' }, { minContextSlot: 7 }]);
    expect(solanaAdapter.pinForRecheck('getLatestBlockhash', undefined, 7)).toEqual([{ minContextSlot: 7 }]);
  });

  it('does not re-ask what minContextSlot cannot make comparable', () => {
    expect(solanaAdapter.pinForRecheck('getSlot', [{ commitment: 'finalized' }], 7)).toBeNull();
    expect(solanaAdapter.pinForRecheck('getEpochInfo', [], 7)).toBeNull();
    expect(solanaAdapter.pinForRecheck('getSignatureStatuses', [['sig']], 7)).toBeNull();
    expect(solanaAdapter.pinForRecheck('getBlock', [430], 7)).toBeNull();
    // Earlier params missing, a config position holding something else, a negative slot.
    expect(solanaAdapter.pinForRecheck('getTokenAccountsByOwner', ['owner'], 7)).toBeNull();
    expect(solanaAdapter.pinForRecheck('getBalance', ['pk', 'finalized'], 7)).toBeNull();
    expect(solanaAdapter.pinForRecheck('getBalance', ['pk'], -1)).toBeNull();
  });
});

describe('solana head, pinning and pinned context', () => {
  it('reads the finalized slot as the head', () => {
    expect(solanaHead).toMatchObject({ method: 'getSlot', params: [{ commitment: 'finalized' }] });
    expect(solanaHead.parse(341197053)).toEqual({ number: 341197053n, hash: null });
    for (const bad of [-1, 1.5, '1234', null]) expect(solanaHead.parse(bad)).toBeNull();
  });

  it('renders the pinned slot as a number, under {{pinned_block}} and {{pinned_slot}}, and the pinned signature from the context', () => {
    const workload = {
      methods: [
        { method: 'getBlock', params: ['{{pinned_slot}}', { maxSupportedTransactionVersion: 0 }], weight: 1 },
        { method: 'getBlocks', params: ['{{pinned_block}}'], weight: 1 },
        { method: 'getTransaction', params: ['{{pinned_signature}}'], weight: 1 },
      ],
    };
    const plan = planRequests(solanaAdapter, workload, 1, 5000, { pinned_signature: 'sig' });
    const calls = Array.from({ length: 30 }, (_, seq) => plan(seq));
    expect(calls.find((c) => c.method === 'getBlock')!.params).toEqual([5000, { maxSupportedTransactionVersion: 0 }]);
    expect(calls.find((c) => c.method === 'getBlocks')!.params).toEqual([5000]);
    expect(calls.find((c) => c.method === 'getTransaction')!.params).toEqual(['sig']);
  });

  it('reads the vote program’s newest finalized signature as the pinned signature', async () => {
    const signature = '5h6xBEauJ3PK6SWCZ1PGjBvj8vDdWG3KpwATGy1ARAXFSDwt8GFXM7W5Ncn16wmqokgpiKRLuS83KUxyZyv2sUYv';
    const asked: unknown[] = [];
    const read = await solanaPinContext.read(async (method, params) => {
      asked.push({ method, params });
      return [{ signature, slot: 114 }];
    }, 100);
    expect(read).toEqual({ pinned_signature: signature });
    expect(asked).toEqual([{ method: 'getSignaturesForAddress', params: ['Vote111111111111111111111111111111111111111', { limit: 1, commitment: 'finalized' }] }]);
    await expect(solanaPinContext.read(async () => [], 100)).rejects.toThrow(PinContextError);
  });

  it('takes camelCase method names only', () => {
    expect(solanaAdapter.methodName.pattern.test('getAccountInfo')).toBe(true);
    expect(solanaAdapter.methodName.pattern.test('eth_blockNumber')).toBe(false);
  });
});
