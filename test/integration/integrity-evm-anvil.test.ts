import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evmIntegrity } from '../../src/chains/evm/integrity';
import type { IntegrityAnchor, IntegrityCall, IntegrityContext, IntegrityFinding, PinCall } from '../../src/chains/types';
import { startAnvil, type AnvilNode } from '../helpers/anvil';

/*
 * The EVM verifier (issue 34, DESIGN.md §15) against a REAL node: anvil, with blocks holding
 * transactions of three types, a contract creation that writes storage and emits a log. Each
 * provable answer is proven against the anchor; an answer (or the proof material behind it)
 * changed in one place between anvil and the verifier is found wrong, and the finding names
 * the method's field and what the proof showed.
 */

// SSTORE(0, 42); MSTORE(0, 7); LOG1(0, 32, topic 0xaa); RETURN one byte of code.
const INIT_CODE = '0x602a600055600760005260aa60206000a16001601ff3';

let anvil: AnvilNode;
let from: string;
let to: string;
let contract: string;
let txHashes: string[];
let txBlock: string;
let txBlockHash: string;
let anchor: IntegrityAnchor;

async function receipt(hash: string): Promise<Record<string, string>> {
  for (let i = 0; i < 200; i += 1) {
    const answer = (await anvil.rpc('eth_getTransactionReceipt', [hash])) as Record<string, string> | null;
    if (answer !== null) return answer;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`no receipt for ${hash}`);
}

beforeAll(async () => {
  anvil = await startAnvil({ blockTimeS: 1 });
  [from, to] = (await anvil.rpc('eth_accounts')) as [string, string];
  txHashes = [
    (await anvil.rpc('eth_sendTransaction', [{ from, to, value: '0x1234', gasPrice: '0x77359400', type: '0x0' }])) as string,
    (await anvil.rpc('eth_sendTransaction', [{ from, to, value: '0x10', gasPrice: '0x77359400', accessList: [{ address: to, storageKeys: [`0x${'0'.repeat(63)}1`] }], type: '0x1' }])) as string,
    (await anvil.rpc('eth_sendTransaction', [{ from, data: INIT_CODE, maxFeePerGas: '0x77359400', maxPriorityFeePerGas: '0x1', type: '0x2' }])) as string,
  ];
  const receipts = await Promise.all(txHashes.map(receipt));
  contract = receipts[2]?.contractAddress as string;
  txBlock = receipts[2]?.blockNumber as string;
  txBlockHash = receipts[2]?.blockHash as string;
  // Two more blocks, so the anchor is above the transactions' block.
  const head = BigInt(txBlock) + 2n;
  for (let i = 0; i < 100 && BigInt((await anvil.rpc('eth_blockNumber')) as string) < head; i += 1) await new Promise((resolve) => setTimeout(resolve, 100));
  const block = (await anvil.rpc('eth_getBlockByNumber', [`0x${head.toString(16)}`, false])) as { hash: string };
  anchor = { number: head, hash: block.hash, source: 'reference' };
}, 60_000);

afterAll(async () => {
  await anvil?.close();
});

type Tamper = (method: string, params: unknown[], result: unknown) => unknown;

function context(options: { tamper?: Tamper; anchor?: IntegrityAnchor | null; maxAnchorDistance?: number } = {}): IntegrityContext & { calls: string[] } {
  const calls: string[] = [];
  const call: PinCall = async (method, params) => {
    calls.push(method);
    const result = await anvil.rpc(method, params);
    return options.tamper ? options.tamper(method, params, structuredClone(result)) : result;
  };
  return { call, anchor: options.anchor === undefined ? anchor : options.anchor, maxAnchorDistance: options.maxAnchorDistance ?? 64, chain: { slug: null }, memo: new Map(), calls };
}

/** The call asked of anvil, its answer passed through `tamper` (the same tamper the proof's calls meet), verified. */
async function verify(call: IntegrityCall, ctx = context()): Promise<IntegrityFinding> {
  const answer = await ctx.call(call.method, call.params);
  return evmIntegrity.verify(call, answer, ctx);
}

const calls = (): [string, IntegrityCall][] => [
  ['block by number, full transactions', { method: 'eth_getBlockByNumber', params: [txBlock, true] }],
  ['block by number, transaction hashes', { method: 'eth_getBlockByNumber', params: [txBlock, false] }],
  ['block by hash', { method: 'eth_getBlockByHash', params: [txBlockHash, true] }],
  ['the anchor block', { method: 'eth_getBlockByNumber', params: [`0x${anchor.number.toString(16)}`, false] }],
  ['genesis, below the anchor', { method: 'eth_getBlockByNumber', params: ['0x0', false] }],
  ['legacy transaction', { method: 'eth_getTransactionByHash', params: [txHashes[0]] }],
  ['access-list transaction', { method: 'eth_getTransactionByHash', params: [txHashes[1]] }],
  ['fee-market transaction', { method: 'eth_getTransactionByHash', params: [txHashes[2]] }],
  ['receipt with a log', { method: 'eth_getTransactionReceipt', params: [txHashes[2]] }],
  ['block receipts', { method: 'eth_getBlockReceipts', params: [txBlock] }],
  ['logs', { method: 'eth_getLogs', params: [{ fromBlock: txBlock, toBlock: txBlock }] }],
  ['logs by topic over a range', { method: 'eth_getLogs', params: [{ fromBlock: '0x0', toBlock: txBlock, topics: [`0x${'0'.repeat(62)}aa`] }] }],
  ['logs by block hash and address', { method: 'eth_getLogs', params: [{ blockHash: txBlockHash, address: [contract] }] }],
  ['no logs from an address that emitted none', { method: 'eth_getLogs', params: [{ fromBlock: txBlock, toBlock: txBlock, address: to }] }],
  ['balance', { method: 'eth_getBalance', params: [to, txBlock] }],
  ['balance of an absent account', { method: 'eth_getBalance', params: [`0x${'ab'.repeat(20)}`, txBlock] }],
  ['nonce', { method: 'eth_getTransactionCount', params: [from, txBlock] }],
  ['code', { method: 'eth_getCode', params: [contract, txBlock] }],
  ['storage word', { method: 'eth_getStorageAt', params: [contract, '0x0', txBlock] }],
  ['empty storage word', { method: 'eth_getStorageAt', params: [contract, '0x5', txBlock] }],
];

describe('evmIntegrity against anvil', () => {
  it('proves every provable answer of an honest node against the anchor', async () => {
    for (const [name, call] of calls()) {
      const finding = await verify(call);
      expect({ name, finding }).toMatchObject({ name, finding: { kind: 'proven' } });
    }
    // The storage word the contract wrote is the one proven.
    expect(await anvil.rpc('eth_getStorageAt', [contract, '0x0', txBlock])).toBe(`0x${'0'.repeat(62)}2a`);
  });

  it('proves without an anchor (self-consistency) and memoises headers within a context', async () => {
    const ctx = context({ anchor: null });
    expect(await verify({ method: 'eth_getBalance', params: [to, txBlock] }, ctx)).toMatchObject({ kind: 'proven', block: String(BigInt(txBlock)) });
    const linked = context();
    await verify({ method: 'eth_getBalance', params: [to, txBlock] }, linked);
    const first = linked.calls.filter((method) => method === 'eth_getBlockByHash').length;
    expect(first).toBeGreaterThanOrEqual(2); // the anchor's ancestors, read down to the transactions' block
    await verify({ method: 'eth_getTransactionCount', params: [from, txBlock] }, linked);
    expect(linked.calls.filter((method) => method === 'eth_getBlockByHash').length).toBe(first);
  });

  const hexBump = (value: string) => `0x${(BigInt(value) + 1n).toString(16)}`;
  const tampered: [string, IntegrityCall | (() => IntegrityCall), Tamper, { path: string | RegExp; message: RegExp }][] = [
    [
      'a balance',
      () => ({ method: 'eth_getBalance', params: [to, txBlock] }),
      (method, _params, result) => (method === 'eth_getBalance' ? hexBump(result as string) : result),
      { path: '$', message: /answered \d+ wei, the account proof against stateRoot 0x[0-9a-f]{64} of block \d+ says \d+ wei/ },
    ],
    [
      'a storage word',
      () => ({ method: 'eth_getStorageAt', params: [contract, '0x0', txBlock] }),
      (method, _params, result) => (method === 'eth_getStorageAt' ? `0x${'0'.repeat(62)}2b` : result),
      { path: '$', message: /answered 0x2b at slot 0x0{64}, the storage proof .* says 0x2a/ },
    ],
    [
      'a receipt status (in every receipt answer)',
      () => ({ method: 'eth_getTransactionReceipt', params: [txHashes[2]] }),
      (method, _params, result) => {
        const flip = (r: Record<string, unknown>) => (r.transactionHash === txHashes[2] ? { ...r, status: '0x0' } : r);
        if (method === 'eth_getTransactionReceipt') return flip(result as Record<string, unknown>);
        if (method === 'eth_getBlockReceipts') return (result as Record<string, unknown>[]).map(flip);
        return result;
      },
      { path: /^eth_getBlockReceipts/, message: /receipts rebuild a trie with root 0x[0-9a-f]{64}, the header's receiptsRoot of block \d+ is/ },
    ],
    [
      'a receipt status (the answer only)',
      () => ({ method: 'eth_getTransactionReceipt', params: [txHashes[2]] }),
      (method, _params, result) => (method === 'eth_getTransactionReceipt' ? { ...(result as object), status: '0x0' } : result),
      { path: '$.status', message: /answered status "0x0", the receipt at index \d+ under receiptsRoot/ },
    ],
    [
      'a header timestamp',
      () => ({ method: 'eth_getBlockByNumber', params: [txBlock, false] }),
      (method, _params, result) => (method === 'eth_getBlockByNumber' ? { ...(result as object), timestamp: hexBump((result as { timestamp: string }).timestamp) } : result),
      { path: '$.hash', message: /header fields hash to 0x[0-9a-f]{64}, not to its hash/ },
    ],
    [
      'a transaction value in a full block',
      () => ({ method: 'eth_getBlockByNumber', params: [txBlock, true] }),
      (method, _params, result) => {
        if (method !== 'eth_getBlockByNumber') return result;
        const block = result as { transactions: Record<string, unknown>[] };
        block.transactions[0] = { ...block.transactions[0], value: '0x1' };
        return block;
      },
      { path: '$.transactions[0]', message: /fields hash to .* not to its hash/ },
    ],
    [
      'a log data word',
      () => ({ method: 'eth_getLogs', params: [{ fromBlock: txBlock, toBlock: txBlock }] }),
      (method, _params, result) => (method === 'eth_getLogs' ? (result as Record<string, unknown>[]).map((log) => ({ ...log, data: `0x${'0'.repeat(63)}8` })) : result),
      { path: '$[0].data', message: /answered data 0x0+8, the log at index 0 of block \d+ under receiptsRoot/ },
    ],
    [
      'a log left out (eth_getLogs answered empty)',
      () => ({ method: 'eth_getLogs', params: [{ fromBlock: txBlock, toBlock: txBlock }] }),
      (method, _params, result) => (method === 'eth_getLogs' ? [] : result),
      { path: '$', message: /the answer lacks the log at index 0 of block \d+ \(emitted by 0x[0-9a-f]{40}\) that the filter selects/ },
    ],
    [
      'a log the filter does not select',
      () => ({ method: 'eth_getLogs', params: [{ fromBlock: txBlock, toBlock: txBlock, topics: [`0x${'0'.repeat(62)}bb`] }] }),
      (method, params, result) => (method === 'eth_getLogs' && (params[0] as { topics?: unknown }).topics ? anvil.rpc('eth_getLogs', [{ fromBlock: txBlock, toBlock: txBlock }]) : result),
      { path: '$[0]', message: /is not one the filter selects/ },
    ],
    [
      'an account proof (a node changed)',
      () => ({ method: 'eth_getBalance', params: [to, txBlock] }),
      (method, _params, result) => {
        if (method !== 'eth_getProof') return result;
        const proof = result as { accountProof: string[] };
        proof.accountProof[0] = `${proof.accountProof[0]?.slice(0, -2)}00`;
        return proof;
      },
      { path: 'eth_getProof.accountProof', message: /first node does not hash to the root/ },
    ],
  ];

  for (const [name, call, tamper, expected] of tampered) {
    it(`finds ${name} changed wrong, and names it`, async () => {
      const finding = await verify(typeof call === 'function' ? call() : call, context({ tamper }));
      expect(finding.kind).toBe('wrong');
      if (finding.kind !== 'wrong') return;
      if (typeof expected.path === 'string') expect(finding.path).toBe(expected.path);
      else expect(finding.path).toMatch(expected.path);
      expect(finding.message).toMatch(expected.message);
      expect(finding.block).toBe(String(BigInt(txBlock)));
    });
  }

  it('finds a block whose hash is not the one linked to the anchor wrong', async () => {
    const other = (await anvil.rpc('eth_getBlockByNumber', ['0x1', false])) as { hash: string };
    const finding = await verify({ method: 'eth_getBlockByNumber', params: [txBlock, false] }, context({ anchor: { number: anchor.number, hash: other.hash, source: 'trusted_block' } }));
    expect(finding).toMatchObject({ kind: 'wrong' });
    expect(finding.kind === 'wrong' && finding.message).toMatch(/the chain linked to the anchor \(trusted_block/);
  });

  it('malformed, huge or unanswered proofs are findings, never a throw', async () => {
    const balance = () => ({ method: 'eth_getBalance', params: [to, txBlock] });
    const garbage: [Tamper, IntegrityFinding['kind']][] = [
      [(method, _p, result) => (method === 'eth_getProof' ? { accountProof: 'nope' } : result), 'wrong'],
      [(method, _p, result) => (method === 'eth_getProof' ? { accountProof: [`0x${'ff'.repeat(5000)}`] } : result), 'not_provable'],
      [(method, _p, result) => (method === 'eth_getProof' ? { accountProof: Array.from({ length: 1000 }, () => '0x00') } : result), 'not_provable'],
      [(method, _p, result) => (method === 'eth_getProof' ? null : result), 'wrong'],
      [(method, _p, result) => (method === 'eth_getProof' ? { accountProof: [] } : result), 'wrong'],
      [
        (method, _p, result) => {
          // A proof node repeated (a "cycle" by reference): it does not lead to the key.
          if (method !== 'eth_getProof') return result;
          const proof = result as { accountProof: string[] };
          return { accountProof: [proof.accountProof[0], proof.accountProof[0], proof.accountProof[0]] };
        },
        'wrong',
      ],
      [
        (method, _p, result) => {
          if (method === 'eth_getProof') throw new Error('budget spent calling https://key@secret.example/v3/abc');
          return result;
        },
        'not_provable',
      ],
    ];
    for (const [index, [tamper, kind]] of garbage.entries()) {
      const ctx = context({ tamper });
      const finding = await evmIntegrity.verify(balance(), await anvil.rpc('eth_getBalance', [to, txBlock]), ctx);
      expect({ index, finding }).toMatchObject({ index, finding: { kind } });
      expect(JSON.stringify(finding)).not.toContain('secret.example');
    }
  });

  it('a block beyond maxAnchorDistance, a block tag and unprovable methods are not provable', async () => {
    expect(await verify({ method: 'eth_getBlockByNumber', params: ['0x0', false] }, context({ maxAnchorDistance: 1 }))).toMatchObject({ kind: 'not_provable', reason: expect.stringMatching(/blocks from the anchor/) });
    expect(await verify({ method: 'eth_getBalance', params: [to, 'latest'] })).toMatchObject({ kind: 'not_provable', reason: expect.stringMatching(/"latest"/) });
    for (const method of ['eth_call', 'eth_estimateGas', 'eth_gasPrice', 'eth_blockNumber', 'eth_chainId', 'eth_fooBar']) {
      const reason = evmIntegrity.notProvable(method);
      expect(reason).toContain(method);
      expect(await evmIntegrity.verify({ method, params: [] }, '0x1', context())).toEqual({ kind: 'not_provable', reason });
    }
    expect(evmIntegrity.notProvable('eth_call')).toMatch(/executing the EVM/);
    expect(evmIntegrity.notProvable('eth_getBalance')).toBeNull();
  });
});
