import { describe, expect, it } from 'vitest';
import { isCometHeadDependent, pinCometParams } from '../../../../src/chains/cometbft/head-dependence';
import { CHAINS, fingerprintAnswer } from '../../../../src/chains/registry';

const chain = CHAINS.cometbft;
const same = (method: string, a: unknown, b: unknown) => fingerprintAnswer(chain, method, a) === fingerprintAnswer(chain, method, b);

const status = (node: string, catchingUp: boolean, height = '13') => ({
  node_info: { id: node, moniker: node, listen_addr: `tcp://127.0.0.1:${node.length}`, network: 'rvs-local-1' },
  sync_info: { latest_block_hash: 'AA', latest_app_hash: 'BB', latest_block_height: height, latest_block_time: '2026-12-07T17:59:40Z', earliest_block_height: node === 'a' ? '1' : '50', earliest_block_time: node, catching_up: catchingUp },
  validator_info: { address: node, voting_power: node === 'a' ? '10' : '0' },
});
const commit = (canonical: boolean, signatures: unknown[], hash = 'CC') => ({ signed_header: { header: { height: '8', app_hash: 'DD' }, commit: { height: '8', round: 0, block_id: { hash }, signatures } }, canonical });

describe('what honest CometBFT nodes legitimately differ on is not compared', () => {
  it.each([
    { name: 'status: node_info, validator_info, catching_up, earliest_* of two nodes at one block', method: 'status', a: status('a', false), b: status('b', true), equal: true },
    { name: 'status at different blocks', method: 'status', a: status('a', false), b: status('a', false, '14'), equal: false },
    { name: 'commit at the latest height (seen commit) against the canonical one', method: 'commit', a: commit(false, [{ signature: 'x' }]), b: commit(true, [{ signature: 'y' }, { signature: 'z' }]), equal: true },
    { name: 'commit of another block', method: 'commit', a: commit(true, []), b: commit(true, [], 'EE'), equal: false },
    { name: 'net_info: peers by shape', method: 'net_info', a: { listening: true, n_peers: '1', peers: [] }, b: { listening: true, n_peers: '3', peers: [] }, equal: true },
    { name: 'num_unconfirmed_txs: mempool counts by shape', method: 'num_unconfirmed_txs', a: { n_txs: '0', total: '0', total_bytes: '0' }, b: { n_txs: '5', total: '5', total_bytes: '900' }, equal: true },
    { name: 'consensus_state: the node\'s round by shape', method: 'consensus_state', a: { round_state: { 'height/round/step': '9/0/1' } }, b: { round_state: { 'height/round/step': '10/0/6' } }, equal: true },
    { name: 'block: compared exactly', method: 'block', a: { block_id: { hash: 'AA' } }, b: { block_id: { hash: 'AB' } }, equal: false },
    { name: 'validators: compared exactly', method: 'validators', a: { block_height: '8', validators: [{ voting_power: '1' }] }, b: { block_height: '8', validators: [{ voting_power: '2' }] }, equal: false },
  ])('$name', ({ method, a, b, equal }) => {
    expect(same(method, a, b)).toBe(equal);
  });
});

describe('which calls follow the head, and how they are pinned for the re-check', () => {
  it.each([
    { method: 'status', params: [], dependent: true, pinned: null },
    { method: 'abci_info', params: [], dependent: true, pinned: null },
    { method: 'tx_search', params: ['tx.height>0', false, null, null, 'asc'], dependent: true, pinned: null },
    { method: 'block', params: [null], dependent: true, pinned: ['41'] },
    { method: 'block', params: ['12'], dependent: false, pinned: ['41'] },
    { method: 'commit', params: [null], dependent: true, pinned: ['41'] },
    { method: 'validators', params: [null, null, null], dependent: true, pinned: ['41', null, null] },
    { method: 'validators', params: ['12', null, null], dependent: false, pinned: ['41', null, null] },
    { method: 'abci_query', params: ['', '6e616d65', '0', false], dependent: true, pinned: ['', '6e616d65', '41', false] },
    { method: 'abci_query', params: ['', '6e616d65', '12', false], dependent: false, pinned: ['', '6e616d65', '41', false] },
    { method: 'genesis', params: [], dependent: false, pinned: null },
  ])('$method $params: head-dependent $dependent, pinned at 41 → $pinned', ({ method, params, dependent, pinned }) => {
    expect(isCometHeadDependent(method, params)).toBe(dependent);
    expect(pinCometParams(method, params, 41n)).toEqual(pinned);
  });

  it('method names are snake_case; the default workload is status', () => {
    expect(chain.methodName.pattern.test('block_results')).toBe(true);
    expect(chain.methodName.pattern.test('eth_blockNumber')).toBe(false);
    expect(chain.defaultMethods).toEqual([{ method: 'status', params: [], weight: 1 }]);
  });
});
