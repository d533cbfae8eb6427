/**
 * npm run bench:integrity — what the EVM integrity verifier (src/chains/evm/integrity.ts, issue 34)
 * costs per core, on a synthetic chain served from memory (no I/O beyond printing): header hashes/s
 * (a Prague header rehashed from its JSON fields), receipts-root rebuilds/s (a block of
 * BENCH_INTEGRITY_RECEIPTS receipts, default 200, two logs each, verified through
 * eth_getBlockReceipts) and account proofs/s (eth_getBalance proven by eth_getProof against a
 * state trie of BENCH_INTEGRITY_ACCOUNTS accounts, default 10,000). Single-threaded: the figures
 * are per core. Not measured here: the extra wall time of a whole run (network round trips dominate it).
 */
import { createBlockHeaderFromRPC } from '@ethereumjs/block';
import { Common, Hardfork, Mainnet } from '@ethereumjs/common';
import { createMerkleProof, createMPT } from '@ethereumjs/mpt';
import { encode } from '@ethereumjs/rlp';
import { keccak_256 as keccak } from '@noble/hashes/sha3';
import { CHAINS } from '../src/chains/registry';
import type { IntegrityContext, IntegrityVerifier, PinCall } from '../src/chains/types';

const evmIntegrity = CHAINS.evm?.integrity as IntegrityVerifier;
const common = new Common({ chain: Mainnet, hardfork: Hardfork.Prague });
const toHex = (bytes: Uint8Array) => `0x${Buffer.from(bytes).toString('hex')}`;
const EMPTY_TRIE_ROOT = toHex(keccak(Uint8Array.from([0x80])));
/** The hash @ethereumjs/block gives the header (the verifier recomputes it on its own). */
const headerHash = (block: Record<string, unknown>) => toHex(createBlockHeaderFromRPC(block as never, { common, skipConsensusFormatValidation: true }).hash());
const int = (hex: string) => (BigInt(hex) === 0n ? new Uint8Array() : Uint8Array.from(Buffer.from(BigInt(hex).toString(16).padStart(2 * Math.ceil(BigInt(hex).toString(16).length / 2), '0'), 'hex')));
const bytes = (hex: string) => Uint8Array.from(Buffer.from(hex.slice(2), 'hex'));

const RECEIPTS = Number(process.env.BENCH_INTEGRITY_RECEIPTS ?? 200);
const ACCOUNTS = Number(process.env.BENCH_INTEGRITY_ACCOUNTS ?? 10_000);
const h32 = (n: number) => `0x${n.toString(16).padStart(64, '0')}`;
const address = (n: number) => `0x${n.toString(16).padStart(40, '0')}`;

function header(fields: { stateRoot?: string; receiptsRoot?: string; number?: number } = {}): Record<string, unknown> {
  const block: Record<string, unknown> = {
    parentHash: h32(1),
    sha3Uncles: '0x1dcc4de8dec75d7aab85b567b6ccd41ad312451b948a7413f0a142fd40d49347',
    miner: address(2),
    stateRoot: fields.stateRoot ?? h32(3),
    transactionsRoot: EMPTY_TRIE_ROOT,
    receiptsRoot: fields.receiptsRoot ?? h32(5),
    logsBloom: `0x${'00'.repeat(256)}`,
    difficulty: '0x0',
    number: `0x${(fields.number ?? 1000).toString(16)}`,
    gasLimit: '0x1c9c380',
    gasUsed: '0x5208',
    timestamp: '0x65f1b2c3',
    extraData: '0x',
    mixHash: h32(6),
    nonce: '0x0000000000000000',
    baseFeePerGas: '0x7',
    withdrawalsRoot: h32(7),
    blobGasUsed: '0x0',
    excessBlobGas: '0x0',
    parentBeaconBlockRoot: h32(8),
    requestsHash: h32(9),
  };
  return { ...block, hash: headerHash(block) };
}

function context(call: PinCall): IntegrityContext {
  return { call, anchor: null, maxAnchorDistance: 256, chain: { slug: null }, memo: new Map() };
}

function rate(label: string, count: number, ms: number): void {
  console.log(`${label.padEnd(28)} ${Math.round((count / ms) * 1000).toLocaleString('en-US').padStart(10)} /s   (${count} in ${ms.toFixed(0)} ms)`);
}

async function timed(count: number, body: (i: number) => Promise<void> | void): Promise<number> {
  const started = performance.now();
  for (let i = 0; i < count; i += 1) await body(i);
  return performance.now() - started;
}

async function main(): Promise<void> {
  // Header hashes: a block without transactions proven self-consistent (its hash rebuilt from its fields).
  const block: Record<string, unknown> = { ...header(), transactions: [], uncles: [] };
  const headers = 5_000;
  const headersMs = await timed(headers, async () => {
    const finding = await evmIntegrity.verify({ method: 'eth_getBlockByHash', params: [block.hash, false] }, block, context(async () => block));
    if (finding.kind !== 'proven') throw new Error(JSON.stringify(finding));
  });
  rate('blocks proven (header hash)', headers, headersMs);

  // Receipts-root rebuilds: one block's receipts through eth_getBlockReceipts.
  const receipts = Array.from({ length: RECEIPTS }, (_, i) => ({
    type: '0x2',
    status: '0x1',
    cumulativeGasUsed: `0x${((i + 1) * 50_000).toString(16)}`,
    logsBloom: `0x${'00'.repeat(256)}`,
    logs: [0, 1].map((j) => ({ address: address(100 + i), topics: [h32(i), h32(j)], data: h32(i * 2 + j) })),
    transactionHash: h32(10_000 + i),
    transactionIndex: `0x${i.toString(16)}`,
  }));
  const trie = await createMPT();
  for (const [i, r] of receipts.entries()) {
    const logs = r.logs.map((l) => [bytes(l.address), l.topics.map(bytes), bytes(l.data)]);
    await trie.put(encode(i), Uint8Array.from([2, ...encode([int(r.status), int(r.cumulativeGasUsed), bytes(r.logsBloom), logs] as never)]));
  }
  const receiptsBlock = header({ receiptsRoot: toHex(trie.root()) });
  const rebuilds = 50;
  const receiptsMs = await timed(rebuilds, async () => {
    const finding = await evmIntegrity.verify({ method: 'eth_getBlockReceipts', params: [receiptsBlock.hash] }, receipts, context(async () => receiptsBlock));
    if (finding.kind !== 'proven') throw new Error(JSON.stringify(finding));
  });
  rate(`receipts-root rebuilds (${RECEIPTS})`, rebuilds, receiptsMs);

  // Account proofs against a state trie.
  const state = await createMPT();
  for (let i = 0; i < ACCOUNTS; i += 1) {
    await state.put(keccak(Buffer.from(address(i).slice(2), 'hex')), encode([i, BigInt(i) * 10n ** 15n, keccak(Uint8Array.from([0x80])), keccak(new Uint8Array())]));
  }
  const stateBlock = header({ stateRoot: toHex(state.root()) });
  const proofs = 500;
  const answers = await Promise.all(
    Array.from({ length: proofs }, async (_, i) => {
      const n = (i * 7919) % ACCOUNTS;
      const proof = await createMerkleProof(state, keccak(Buffer.from(address(n).slice(2), 'hex')));
      return { address: address(n), balance: `0x${(BigInt(n) * 10n ** 15n).toString(16)}`, proof: proof.map(toHex) };
    }),
  );
  const shared = new Map<string, unknown>();
  const proofMs = await timed(proofs, async (i) => {
    const a = answers[i]!;
    const call: PinCall = async (method) => (method === 'eth_getProof' ? { accountProof: a.proof, storageProof: [] } : stateBlock);
    // One memo for all: the header is proven once, as within one endpoint's run.
    const finding = await evmIntegrity.verify({ method: 'eth_getBalance', params: [a.address, stateBlock.number] }, a.balance, { ...context(call), memo: shared });
    if (finding.kind !== 'proven') throw new Error(JSON.stringify(finding));
  });
  rate(`account proofs (${ACCOUNTS} accounts)`, proofs, proofMs);
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
