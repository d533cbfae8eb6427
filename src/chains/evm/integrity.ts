import { createMPT, createMPTFromProof } from '@ethereumjs/mpt';
import { decode } from '@ethereumjs/rlp';
import type { IntegrityCall, IntegrityContext, IntegrityFinding, IntegrityVerifier, PinCall } from '../types';
import {
  EMPTY_LIST_HASH,
  Malformed,
  Unprovable,
  data,
  headerHash,
  indexKey,
  keccak,
  list,
  logFields,
  quantity,
  receiptBytes,
  record,
  toHex,
  transactionBytes,
  withdrawalBytes,
} from './integrity-encoding';

/*
 * The EVM family's proofs (DESIGN.md §15, issue 34). A header is proven when its fields hash to
 * its hash and that hash is linked by parent hashes to the run's anchor (within
 * maxAnchorDistance); everything else is proven against a proven header's roots:
 *  - blocks: each transaction's hash and the transactionsRoot rebuilt from the transactions,
 *    the withdrawalsRoot from the withdrawals, sha3Uncles of a block without uncles;
 *  - receipts (eth_getTransactionReceipt, eth_getBlockReceipts): the receiptsRoot rebuilt from
 *    all the block's receipts (eth_getBlockReceipts), the answer compared with its own;
 *  - logs (eth_getLogs): each log found at its place in its block's proven receipts (that no
 *    log is missing is not proven);
 *  - account and storage reads: eth_getProof at the same block, its account and storage proofs
 *    walked from the header's stateRoot; code by its keccak against the account's codeHash.
 * Without an anchor the headers are only self-consistent (their fields hash to their hashes).
 * What an endpoint sends is untrusted: bounded, and a malformed answer or proof is a finding.
 */

/** A field of the answer is proven wrong; `path` names it, `message` what the proof showed. */
class Wrong extends Error {
  constructor(
    readonly path: string,
    message: string,
    readonly block: string | null = null,
  ) {
    super(message);
    this.name = 'Wrong';
  }
}

/** Most proof nodes read per proof (a path of the state trie is at most 64 nibbles deep). */
const MAX_PROOF_NODES = 64;
/** Longest proof node read, bytes (a full branch node is ~532). */
const MAX_PROOF_NODE_BYTES = 1024;
/** Most transactions, receipts or withdrawals of a block rebuilt into a trie. */
const MAX_BLOCK_ITEMS = 20_000;
/** Most logs of one eth_getLogs answer located, and distinct blocks they may span. */
const MAX_LOGS = 2_000;
const MAX_LOG_BLOCKS = 16;

const EMPTY_TRIE_ROOT = toHex(keccak(Uint8Array.from([0x80])));
const EMPTY_CODE_HASH = toHex(keccak(new Uint8Array()));

const STATE_READS = new Set(['eth_getBalance', 'eth_getTransactionCount', 'eth_getCode', 'eth_getStorageAt']);
const PROVABLE = new Set([
  'eth_getBlockByNumber',
  'eth_getBlockByHash',
  'eth_getTransactionByHash',
  'eth_getTransactionReceipt',
  'eth_getBlockReceipts',
  'eth_getLogs',
  ...STATE_READS,
]);

const EXECUTES = new Set(['eth_call', 'eth_estimateGas', 'eth_createAccessList', 'eth_simulateV1']);
const ESTIMATES = new Set(['eth_gasPrice', 'eth_maxPriorityFeePerGas', 'eth_blobBaseFee', 'eth_feeHistory']);
const NODE_STATE = new Set(['eth_blockNumber', 'eth_syncing', 'eth_chainId', 'net_version', 'net_peerCount', 'net_listening', 'web3_clientVersion']);

function notProvable(method: string): string | null {
  if (PROVABLE.has(method)) return null;
  if (EXECUTES.has(method) || method.startsWith('debug_trace') || method.startsWith('trace_')) {
    return `${method}: not provable without executing the EVM`;
  }
  if (ESTIMATES.has(method)) return `${method}: a node's estimate, which no commitment of the chain covers`;
  if (NODE_STATE.has(method)) return `${method}: describes the node, not state the chain commits to`;
  return `${method}: no commitment of the chain this verifier reads covers it`;
}

interface ProvenHeader {
  hash: string;
  number: bigint;
  parentHash: string;
  stateRoot: string;
  transactionsRoot: string;
  receiptsRoot: string;
  withdrawalsRoot: string | null;
}

const lower = (value: string) => value.toLowerCase();

/** The endpoint's answer to one call made for a proof; a call it fails or the budget refuses makes the answer not provable. */
async function ask(context: IntegrityContext, method: string, params: unknown[]): Promise<unknown> {
  try {
    return await context.call(method, params);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    // An error may quote what the endpoint client knows of the endpoint: keep no URL.
    throw new Unprovable(`${method} for the proof failed: ${reason.replace(/[a-z][a-z0-9+.-]*:\/\/\S+/gi, '<url>').slice(0, 200)}`);
  }
}

function memoMap<V>(context: IntegrityContext, key: string): Map<string, V> {
  let map = context.memo.get(key) as Map<string, V> | undefined;
  if (map === undefined) {
    map = new Map();
    context.memo.set(key, map);
  }
  return map;
}

/** The header fields of a block answer whose fields hash to its `hash` (else Wrong). */
function selfConsistentHeader(block: Record<string, unknown>, path: string): ProvenHeader {
  const hash = toHex(data(block.hash, `${path}.hash`, 32));
  const computed = headerHash(block, path);
  const number = quantity(block.number, `${path}.number`);
  if (computed !== hash) {
    throw new Wrong(path === '$' ? '$.hash' : path, `block ${number}: its header fields hash to ${computed}, not to its hash ${hash} (a header field was changed)`, number.toString());
  }
  return {
    hash,
    number,
    parentHash: toHex(data(block.parentHash, `${path}.parentHash`, 32)),
    stateRoot: toHex(data(block.stateRoot, `${path}.stateRoot`, 32)),
    transactionsRoot: toHex(data(block.transactionsRoot, `${path}.transactionsRoot`, 32)),
    receiptsRoot: toHex(data(block.receiptsRoot, `${path}.receiptsRoot`, 32)),
    withdrawalsRoot: block.withdrawalsRoot === undefined || block.withdrawalsRoot === null ? null : toHex(data(block.withdrawalsRoot, `${path}.withdrawalsRoot`, 32)),
  };
}

/** The header of the block with `hash`, fetched and self-consistent (memoised). */
async function headerByHash(context: IntegrityContext, hash: string): Promise<ProvenHeader> {
  const headers = memoMap<ProvenHeader>(context, 'evm:headers');
  const known = headers.get(lower(hash));
  if (known !== undefined) return known;
  const answer = await ask(context, 'eth_getBlockByHash', [hash, false]);
  if (answer === null) throw new Unprovable(`the endpoint does not know block ${hash}`);
  const header = selfConsistentHeader(record(answer, `(block ${hash})`), `(block ${hash})`);
  if (header.hash !== lower(hash)) throw new Wrong(`(block ${hash})`, `asked for block ${hash}, the endpoint answered block ${header.hash}`);
  headers.set(header.hash, header);
  return header;
}

/**
 * Links a self-consistent header to the anchor by parent hashes: the anchor's ancestors are read
 * down from it, a descendant's down to it. `evm:canon` holds the hashes proven on the anchor's chain.
 */
async function linkToAnchor(context: IntegrityContext, header: ProvenHeader): Promise<void> {
  const anchor = context.anchor;
  if (anchor === null) return;
  const canon = memoMap<string>(context, 'evm:canon');
  canon.set(anchor.number.toString(), lower(anchor.hash));
  const distance = header.number > anchor.number ? header.number - anchor.number : anchor.number - header.number;
  if (distance > BigInt(context.maxAnchorDistance)) {
    throw new Unprovable(`block ${header.number} is ${distance} blocks from the anchor (block ${anchor.number}), more than the ${context.maxAnchorDistance} linked`);
  }
  const against = (expected: string) => {
    if (expected !== header.hash) {
      throw new Wrong('$.hash', `block ${header.number} is ${header.hash}; the chain linked to the anchor (${anchor.source}, block ${anchor.number} ${anchor.hash}) has ${expected} there`, header.number.toString());
    }
  };
  const known = canon.get(header.number.toString());
  if (known !== undefined) return against(known);
  if (header.number < anchor.number) {
    // Down from the lowest proven ancestor of the anchor above this block.
    let number = header.number + 1n;
    while (!canon.has(number.toString())) number += 1n;
    let hash = canon.get(number.toString()) as string;
    while (number > header.number) {
      const above = await headerByHash(context, hash);
      hash = above.parentHash;
      number -= 1n;
      canon.set(number.toString(), hash);
    }
    return against(hash);
  }
  // Down from this block to the anchor's chain.
  const path: ProvenHeader[] = [header];
  let current = header;
  for (;;) {
    const expected = canon.get((current.number - 1n).toString());
    if (expected !== undefined) {
      if (expected !== current.parentHash) {
        throw new Wrong('$.parentHash', `block ${header.number}'s ancestry reaches block ${current.number - 1n} at ${current.parentHash}, the chain linked to the anchor (${anchor.source}) has ${expected} there`, header.number.toString());
      }
      break;
    }
    const parent = await headerByHash(context, current.parentHash);
    if (parent.number !== current.number - 1n) throw new Wrong('$.parentHash', `block ${current.number}'s parent ${parent.hash} is numbered ${parent.number}`, header.number.toString());
    path.push(parent);
    current = parent;
  }
  for (const proven of path) canon.set(proven.number.toString(), proven.hash);
}

/** A proven header of the block an answer names by a block parameter (number or hash; a tag is not provable). */
async function headerAt(context: IntegrityContext, block: unknown): Promise<ProvenHeader> {
  let header: ProvenHeader;
  if (typeof block === 'string' && /^0x[0-9a-fA-F]{64}$/.test(block)) {
    header = await headerByHash(context, block);
  } else if (typeof block === 'object' && block !== null && typeof (block as Record<string, unknown>).blockHash === 'string') {
    header = await headerByHash(context, (block as Record<string, unknown>).blockHash as string);
  } else if (typeof block === 'string' && /^0x[0-9a-fA-F]{1,16}$/.test(block)) {
    const answer = await ask(context, 'eth_getBlockByNumber', [block, false]);
    if (answer === null) throw new Unprovable(`the endpoint does not know block ${BigInt(block)}`);
    header = selfConsistentHeader(record(answer, `(block ${BigInt(block)})`), `(block ${BigInt(block)})`);
    if (header.number !== BigInt(block)) throw new Wrong(`(block ${BigInt(block)})`, `asked for block ${BigInt(block)}, the endpoint answered block ${header.number}`);
    memoMap<ProvenHeader>(context, 'evm:headers').set(header.hash, header);
  } else {
    throw new Unprovable(`read at ${JSON.stringify(block)?.slice(0, 80)}: the block the answer was read at is not named`);
  }
  await linkToAnchor(context, header);
  return header;
}

/** The root of the trie of `items` keyed by their index (transactions, receipts, withdrawals). */
async function orderedTrieRoot(items: readonly Uint8Array[]): Promise<string> {
  const trie = await createMPT();
  for (const [index, item] of items.entries()) await trie.put(indexKey(index), item);
  return toHex(trie.root());
}

/** The value at `key` in the trie with `root`, by a proof (null: proven absent). Throws Wrong when the proof does not hold. */
async function provenValue(root: string, key: Uint8Array, proof: unknown, path: string, block: string): Promise<Uint8Array | null> {
  const nodes = list(proof, path, MAX_PROOF_NODES).map((node, i) => {
    const bytes = data(node, `${path}[${i}]`);
    if (bytes.length > MAX_PROOF_NODE_BYTES) throw new Unprovable(`${path}[${i}] is ${bytes.length} bytes, longer than any trie node`);
    return bytes;
  });
  if (nodes.length === 0) {
    if (root === EMPTY_TRIE_ROOT) return null;
    throw new Wrong(path, `an empty proof, but the trie's root ${root} is not the empty trie's`, block);
  }
  const [first] = nodes as [Uint8Array, ...Uint8Array[]];
  if (toHex(keccak(first)) !== root) throw new Wrong(path, `the proof's first node does not hash to the root ${root}`, block);
  try {
    const trie = await createMPTFromProof(nodes);
    return await trie.get(key, true);
  } catch {
    throw new Wrong(path, `the proof does not lead from the root ${root} to the key ${toHex(key)}`, block);
  }
}

interface Account {
  nonce: bigint;
  balance: bigint;
  storageRoot: string;
  codeHash: string;
}

const bytesInt = (bytes: Uint8Array) => (bytes.length === 0 ? 0n : BigInt(toHex(bytes)));

function decodeAccount(value: Uint8Array | null, block: string): Account {
  if (value === null) return { nonce: 0n, balance: 0n, storageRoot: EMPTY_TRIE_ROOT, codeHash: EMPTY_CODE_HASH };
  let fields: unknown;
  try {
    fields = decode(value);
  } catch {
    fields = null;
  }
  if (!Array.isArray(fields) || fields.length !== 4 || !fields.every((field) => field instanceof Uint8Array)) {
    throw new Wrong('eth_getProof.accountProof', 'the proven leaf is not an account', block);
  }
  const [nonce, balance, storageRoot, codeHash] = fields as [Uint8Array, Uint8Array, Uint8Array, Uint8Array];
  return { nonce: bytesInt(nonce), balance: bytesInt(balance), storageRoot: toHex(storageRoot), codeHash: toHex(codeHash) };
}

const formatWei = (value: bigint) => `${value} wei`;

async function verifyStateRead(call: IntegrityCall, answer: unknown, context: IntegrityContext): Promise<string> {
  const [addressParam] = call.params;
  const address = data(addressParam, 'params[0]', 20);
  const blockParam = call.method === 'eth_getStorageAt' ? call.params[2] : call.params[1];
  const header = await headerAt(context, blockParam);
  const block = header.number.toString();
  const slotParam = call.method === 'eth_getStorageAt' ? quantity(call.params[1], 'params[1]') : null;
  const slotKey = slotParam === null ? null : `0x${slotParam.toString(16).padStart(64, '0')}`;
  const proofAnswer = record(await ask(context, 'eth_getProof', [toHex(address), slotKey === null ? [] : [slotKey], header.hash]), 'eth_getProof');
  const account = decodeAccount(await provenValue(header.stateRoot, keccak(address), proofAnswer.accountProof, 'eth_getProof.accountProof', block), block);
  const against = `the account proof against stateRoot ${header.stateRoot} of block ${block}`;
  switch (call.method) {
    case 'eth_getBalance': {
      const answered = quantity(answer, '$');
      if (answered !== account.balance) throw new Wrong('$', `answered ${formatWei(answered)}, ${against} says ${formatWei(account.balance)}`, block);
      return block;
    }
    case 'eth_getTransactionCount': {
      const answered = quantity(answer, '$');
      if (answered !== account.nonce) throw new Wrong('$', `answered nonce ${answered}, ${against} says ${account.nonce}`, block);
      return block;
    }
    case 'eth_getCode': {
      const hash = toHex(keccak(data(answer, '$')));
      if (hash !== account.codeHash) throw new Wrong('$', `the answered code hashes to ${hash}, ${against} says codeHash ${account.codeHash}`, block);
      return block;
    }
    default: {
      const entries = list(proofAnswer.storageProof, 'eth_getProof.storageProof', 1);
      if (entries.length !== 1) throw new Unprovable('eth_getProof answered no storage proof');
      const entry = record(entries[0], 'eth_getProof.storageProof[0]');
      const key = keccak(data(slotKey, 'params[1]', 32));
      const value = await provenValue(account.storageRoot, key, entry.proof, 'eth_getProof.storageProof[0].proof', block);
      let proven = 0n;
      if (value !== null) {
        let word: unknown;
        try {
          word = decode(value);
        } catch {
          word = null;
        }
        if (!(word instanceof Uint8Array) || word.length > 32) throw new Wrong('eth_getProof.storageProof[0].proof', 'the proven leaf is not a storage word', block);
        proven = bytesInt(word);
      }
      const answeredBytes = data(answer, '$');
      if (answeredBytes.length > 32) throw new Wrong('$', 'the answer is longer than a storage word', block);
      const answered = bytesInt(answeredBytes);
      if (answered !== proven) {
        throw new Wrong('$', `answered 0x${answered.toString(16)} at slot ${slotKey}, the storage proof against storageRoot ${account.storageRoot} of block ${block} says 0x${proven.toString(16)}`, block);
      }
      return block;
    }
  }
}

/** A block answer proven: its header, then its transactions, withdrawals and (absent) uncles against the header. */
async function verifyBlock(call: IntegrityCall, answer: unknown, context: IntegrityContext): Promise<string> {
  if (answer === null) throw new Unprovable(`${call.method}: the endpoint answered no block (an absence is not provable)`);
  const block = record(answer, '$');
  const header = selfConsistentHeader(block, '$');
  const number = header.number.toString();
  const asked = call.params[0];
  if (call.method === 'eth_getBlockByNumber' && typeof asked === 'string' && /^0x[0-9a-fA-F]+$/.test(asked) && BigInt(asked) !== header.number) {
    throw new Wrong('$.number', `asked for block ${BigInt(asked)}, answered block ${header.number}`, number);
  }
  if (call.method === 'eth_getBlockByHash' && typeof asked === 'string' && lower(asked) !== header.hash) {
    throw new Wrong('$.hash', `asked for block ${asked}, answered block ${header.hash}`, number);
  }
  await linkToAnchor(context, header);
  memoMap<ProvenHeader>(context, 'evm:headers').set(header.hash, header);

  const transactions = list(block.transactions, '$.transactions', MAX_BLOCK_ITEMS);
  if (transactions.every((tx) => typeof tx === 'string')) {
    const proven = await provenTransactions(context, header);
    if (proven.length !== transactions.length) throw new Wrong('$.transactions', `answered ${transactions.length} transaction hashes, the block's transactionsRoot commits to ${proven.length} transactions`, number);
    for (const [index, tx] of transactions.entries()) {
      const hash = toHex(data(tx, `$.transactions[${index}]`, 32));
      const expected = proven[index]?.hash;
      if (hash !== expected) throw new Wrong(`$.transactions[${index}]`, `answered ${hash}, the transaction at ${index} under transactionsRoot ${header.transactionsRoot} is ${expected}`, number);
    }
  } else {
    await checkTransactions(transactions, header, '$.transactions');
  }

  if (block.withdrawals !== undefined && block.withdrawals !== null) {
    const withdrawals = list(block.withdrawals, '$.withdrawals', MAX_BLOCK_ITEMS).map((entry, i) => withdrawalBytes(record(entry, `$.withdrawals[${i}]`), `$.withdrawals[${i}]`));
    const root = await orderedTrieRoot(withdrawals);
    if (root !== header.withdrawalsRoot) throw new Wrong('$.withdrawals', `the withdrawals rebuild a trie with root ${root}, the header's withdrawalsRoot is ${header.withdrawalsRoot}`, number);
  }
  if (Array.isArray(block.uncles) && block.uncles.length === 0 && toHex(data(block.sha3Uncles, '$.sha3Uncles', 32)) !== EMPTY_LIST_HASH) {
    throw new Wrong('$.uncles', `answered no uncles, the header's sha3Uncles ${toHex(data(block.sha3Uncles, '$.sha3Uncles', 32))} commits to some`, number);
  }
  return number;
}

/** Full transactions checked: each hash is the keccak of its encoding, and they rebuild the transactionsRoot. */
async function checkTransactions(transactions: readonly unknown[], header: ProvenHeader, path: string): Promise<{ hash: string; bytes: Uint8Array }[]> {
  const number = header.number.toString();
  const encoded = transactions.map((entry, index) => {
    const at = `${path}[${index}]`;
    const tx = record(entry, at);
    const bytes = transactionBytes(tx, at);
    const hash = toHex(keccak(bytes));
    const answered = toHex(data(tx.hash, `${at}.hash`, 32));
    if (hash !== answered) throw new Wrong(at, `the transaction's fields hash to ${hash}, not to its hash ${answered} (a field was changed)`, number);
    return { hash, bytes };
  });
  const root = await orderedTrieRoot(encoded.map((tx) => tx.bytes));
  if (root !== header.transactionsRoot) throw new Wrong(path, `the transactions rebuild a trie with root ${root}, the header's transactionsRoot is ${header.transactionsRoot}`, number);
  return encoded;
}

/** The transactions of a proven block, fetched in full and proven against its transactionsRoot (memoised). */
async function provenTransactions(context: IntegrityContext, header: ProvenHeader): Promise<{ hash: string; bytes: Uint8Array }[]> {
  const memo = memoMap<{ hash: string; bytes: Uint8Array }[]>(context, 'evm:transactions');
  const known = memo.get(header.hash);
  if (known !== undefined) return known;
  const answer = record(await ask(context, 'eth_getBlockByHash', [header.hash, true]), `(block ${header.hash})`);
  const full = selfConsistentHeader(answer, `(block ${header.hash})`);
  if (full.hash !== header.hash) throw new Wrong(`(block ${header.hash})`, `asked for block ${header.hash}, the endpoint answered block ${full.hash}`, header.number.toString());
  const proven = await checkTransactions(list(answer.transactions, `(block ${header.hash}).transactions`, MAX_BLOCK_ITEMS), header, `(block ${header.hash}).transactions`);
  memo.set(header.hash, proven);
  return proven;
}

async function verifyTransaction(answer: unknown, context: IntegrityContext): Promise<string> {
  if (answer === null) throw new Unprovable('eth_getTransactionByHash: the endpoint answered no transaction (an absence is not provable)');
  const tx = record(answer, '$');
  if (tx.blockHash === null || tx.blockHash === undefined) throw new Unprovable('eth_getTransactionByHash: a pending transaction is in no block');
  const header = await headerAt(context, toHex(data(tx.blockHash, '$.blockHash', 32)));
  const number = header.number.toString();
  const index = Number(quantity(tx.transactionIndex, '$.transactionIndex'));
  const proven = await provenTransactions(context, header);
  const bytes = transactionBytes(tx, '$');
  const hash = toHex(data(tx.hash, '$.hash', 32));
  const expected = proven[index];
  if (expected === undefined) throw new Wrong('$.transactionIndex', `block ${number} has ${proven.length} transactions, the answer says index ${index}`, number);
  if (toHex(keccak(bytes)) !== expected.hash || hash !== expected.hash) {
    throw new Wrong('$', `the answered transaction (hash ${hash}) is not the one at index ${index} under transactionsRoot ${header.transactionsRoot} (${expected.hash})`, number);
  }
  if (quantity(tx.blockNumber, '$.blockNumber') !== header.number) throw new Wrong('$.blockNumber', `answered block ${quantity(tx.blockNumber, '$.blockNumber')}, the transaction is in block ${number}`, number);
  return number;
}

/** All receipts of a proven block, rebuilt into its receiptsRoot (memoised). `answered`: receipts already in hand. */
async function provenReceipts(context: IntegrityContext, header: ProvenHeader, answered?: unknown): Promise<Record<string, unknown>[]> {
  const memo = memoMap<Record<string, unknown>[]>(context, 'evm:receipts');
  const known = memo.get(header.hash);
  if (known !== undefined && answered === undefined) return known;
  const path = answered === undefined ? `eth_getBlockReceipts(${header.hash})` : '$';
  const source = answered ?? (await ask(context, 'eth_getBlockReceipts', [header.hash]));
  if (source === null) throw new Unprovable(`eth_getBlockReceipts: the endpoint answered no receipts for block ${header.number}`);
  const receipts = list(source, path, MAX_BLOCK_ITEMS).map((entry, i) => record(entry, `${path}[${i}]`));
  const root = await orderedTrieRoot(receipts.map((receipt, i) => receiptBytes(receipt, `${path}[${i}]`)));
  if (root !== header.receiptsRoot) {
    throw new Wrong(path, `the block's receipts rebuild a trie with root ${root}, the header's receiptsRoot of block ${header.number} is ${header.receiptsRoot}`, header.number.toString());
  }
  memo.set(header.hash, receipts);
  return receipts;
}

/** The field of a receipt that differs from the proven one, by consensus meaning. */
function receiptDifference(answer: Record<string, unknown>, proven: Record<string, unknown>): string | null {
  const same = (a: () => unknown, b: () => unknown) => JSON.stringify(a(), (_, v: unknown) => (typeof v === 'bigint' ? v.toString() : v instanceof Uint8Array ? toHex(v) : v)) === JSON.stringify(b(), (_, v: unknown) => (typeof v === 'bigint' ? v.toString() : v instanceof Uint8Array ? toHex(v) : v));
  const optionalQuantity = (r: Record<string, unknown>, key: string) => () => (r[key] === undefined || r[key] === null ? null : quantity(r[key], `$.${key}`));
  for (const key of ['status', 'type', 'cumulativeGasUsed']) {
    if (!same(optionalQuantity(answer, key), optionalQuantity(proven, key))) return key;
  }
  if (!same(() => data(answer.logsBloom, '$.logsBloom', 256), () => data(proven.logsBloom, '$.logsBloom', 256))) return 'logsBloom';
  const logs = (r: Record<string, unknown>) => () => list(r.logs, '$.logs', 100_000).map((log, i) => logFields(record(log, `$.logs[${i}]`), `$.logs[${i}]`));
  if (!same(logs(answer), logs(proven))) return 'logs';
  if (!same(() => toHex(data(answer.transactionHash, '$.transactionHash', 32)), () => toHex(data(proven.transactionHash, '$.transactionHash', 32)))) return 'transactionHash';
  return null;
}

function describe(value: unknown): string {
  return JSON.stringify(value)?.slice(0, 120) ?? String(value);
}

async function verifyReceipt(answer: unknown, context: IntegrityContext): Promise<string> {
  if (answer === null) throw new Unprovable('eth_getTransactionReceipt: the endpoint answered no receipt (an absence is not provable)');
  const receipt = record(answer, '$');
  const header = await headerAt(context, toHex(data(receipt.blockHash, '$.blockHash', 32)));
  const number = header.number.toString();
  const receipts = await provenReceipts(context, header);
  const index = Number(quantity(receipt.transactionIndex, '$.transactionIndex'));
  const proven = receipts[index];
  if (proven === undefined) throw new Wrong('$.transactionIndex', `block ${number} has ${receipts.length} receipts, the answer says index ${index}`, number);
  const field = receiptDifference(receipt, proven);
  if (field !== null) {
    throw new Wrong(`$.${field}`, `answered ${field} ${describe(receipt[field])}, the receipt at index ${index} under receiptsRoot ${header.receiptsRoot} of block ${number} has ${describe(proven[field])}`, number);
  }
  return number;
}

async function verifyBlockReceipts(call: IntegrityCall, answer: unknown, context: IntegrityContext): Promise<string> {
  if (answer === null) throw new Unprovable('eth_getBlockReceipts: the endpoint answered no receipts (an absence is not provable)');
  const header = await headerAt(context, call.params[0]);
  await provenReceipts(context, header, answer);
  return header.number.toString();
}

/** What a log filter selects (eth_getLogs' first param); null: a filter whose selection this verifier does not read. */
interface LogFilter {
  /** The blocks the filter covers, by number (or one block by hash). */
  blocks: { from: bigint; to: bigint } | { hash: string };
  addresses: Set<string> | null;
  /** Per position: null (any topic) or the topics allowed there. */
  topics: (Set<string> | null)[];
}

function logFilter(param: unknown): LogFilter | null {
  if (typeof param !== 'object' || param === null || Array.isArray(param)) return null;
  const filter = param as Record<string, unknown>;
  const number = (value: unknown) => (typeof value === 'string' && /^0x[0-9a-fA-F]{1,16}$/.test(value) ? BigInt(value) : null);
  let blocks: LogFilter['blocks'];
  if (typeof filter.blockHash === 'string' && /^0x[0-9a-fA-F]{64}$/.test(filter.blockHash)) blocks = { hash: filter.blockHash.toLowerCase() };
  else {
    const [from, to] = [number(filter.fromBlock), number(filter.toBlock)];
    // A tag (latest, safe, …) or an absent bound: which blocks it covered is not known.
    if (from === null || to === null || to < from) return null;
    blocks = { from, to };
  }
  const lowerSet = (value: unknown): Set<string> | null | undefined => {
    if (value === null || value === undefined) return null;
    if (typeof value === 'string') return new Set([value.toLowerCase()]);
    if (Array.isArray(value) && value.every((v) => typeof v === 'string')) return value.length === 0 ? null : new Set((value as string[]).map((v) => v.toLowerCase()));
    return undefined;
  };
  const addresses = lowerSet(filter.address);
  if (addresses === undefined) return null;
  const topicsParam = filter.topics ?? [];
  if (!Array.isArray(topicsParam) || topicsParam.length > 4) return null;
  const topics = topicsParam.map(lowerSet);
  if (topics.some((t) => t === undefined)) return null;
  return { blocks, addresses, topics: topics as (Set<string> | null)[] };
}

function matchesFilter(filter: LogFilter, log: Record<string, unknown>): boolean {
  if (filter.addresses && !filter.addresses.has(String(log.address).toLowerCase())) return false;
  const topics = Array.isArray(log.topics) ? log.topics.map((t) => String(t).toLowerCase()) : [];
  return filter.topics.every((allowed, i) => allowed === null || (topics[i] !== undefined && allowed.has(topics[i])));
}

/**
 * For a filter over known blocks: every log of those blocks' proven receipts that the filter
 * selects is in the answer (none missing), and every answered log is one the filter selects.
 */
async function checkLogsComplete(filter: LogFilter, logs: readonly Record<string, unknown>[], context: IntegrityContext): Promise<void> {
  if ('from' in filter.blocks && filter.blocks.to - filter.blocks.from + 1n > BigInt(MAX_LOG_BLOCKS)) {
    // Membership is proven; completeness over so many blocks is not read.
    return;
  }
  const answered = new Set(logs.map((log, i) => `${toHex(data(log.blockHash, `$[${i}].blockHash`, 32))}:${Number(quantity(log.logIndex, `$[${i}].logIndex`))}`));
  for (const [i, log] of logs.entries()) {
    if (!matchesFilter(filter, log)) throw new Wrong(`$[${i}]`, `the log at index ${Number(quantity(log.logIndex, `$[${i}].logIndex`))} is not one the filter selects (address or topics)`, quantity(log.blockNumber, `$[${i}].blockNumber`).toString());
  }
  const headers: ProvenHeader[] = [];
  if ('hash' in filter.blocks) headers.push(await headerAt(context, filter.blocks.hash));
  else for (let n = filter.blocks.from; n <= filter.blocks.to; n += 1n) headers.push(await headerAt(context, `0x${n.toString(16)}`));
  for (const header of headers) {
    const receipts = await provenReceipts(context, header);
    const flat = receipts.flatMap((receipt) => list(receipt.logs, '$.logs', 100_000).map((log) => record(log, '$.logs[]')));
    for (const [logIndex, log] of flat.entries()) {
      if (matchesFilter(filter, log) && !answered.has(`${header.hash}:${logIndex}`)) {
        throw new Wrong('$', `the answer lacks the log at index ${logIndex} of block ${header.number} (emitted by ${String(log.address)}) that the filter selects, under receiptsRoot ${header.receiptsRoot}`, header.number.toString());
      }
    }
  }
  for (const [i, log] of logs.entries()) {
    const number = quantity(log.blockNumber, `$[${i}].blockNumber`);
    if (!headers.some((h) => h.number === number)) throw new Wrong(`$[${i}].blockNumber`, `the log is in block ${number}, outside the filter's blocks`, number.toString());
  }
}

async function verifyLogs(call: IntegrityCall, answer: unknown, context: IntegrityContext): Promise<string | null> {
  const logs = list(answer, '$', MAX_LOGS).map((entry, i) => record(entry, `$[${i}]`));
  const blocks = [...new Set(logs.map((log, i) => toHex(data(log.blockHash, `$[${i}].blockHash`, 32))))];
  if (blocks.length > MAX_LOG_BLOCKS) throw new Unprovable(`eth_getLogs: the logs span ${blocks.length} blocks, more than the ${MAX_LOG_BLOCKS} read`);
  const inBlock = new Map<string, { header: ProvenHeader; logs: { transactionIndex: number; transactionHash: unknown; log: Record<string, unknown> }[] }>();
  for (const hash of blocks) {
    const header = await headerAt(context, hash);
    const receipts = await provenReceipts(context, header);
    const flat = receipts.flatMap((receipt, transactionIndex) =>
      list(receipt.logs, '$.logs', 100_000).map((log) => ({ transactionIndex, transactionHash: receipt.transactionHash, log: record(log, '$.logs[]') })),
    );
    inBlock.set(hash, { header, logs: flat });
  }
  let first: string | null = null;
  for (const [i, log] of logs.entries()) {
    const { header, logs: flat } = inBlock.get(toHex(data(log.blockHash, `$[${i}].blockHash`, 32))) as { header: ProvenHeader; logs: { transactionIndex: number; log: Record<string, unknown> }[] };
    const number = header.number.toString();
    first ??= number;
    const logIndex = Number(quantity(log.logIndex, `$[${i}].logIndex`));
    const proven = flat[logIndex];
    if (proven === undefined) throw new Wrong(`$[${i}].logIndex`, `block ${number}'s receipts hold ${flat.length} logs, the answer says log index ${logIndex}`, number);
    const [address, topics, body] = logFields(log, `$[${i}]`);
    const [provenAddress, provenTopics, provenBody] = logFields(proven.log, `$[${i}]`);
    const against = `the log at index ${logIndex} of block ${number} under receiptsRoot ${header.receiptsRoot}`;
    if (toHex(address) !== toHex(provenAddress)) throw new Wrong(`$[${i}].address`, `answered ${toHex(address)}, ${against} was emitted by ${toHex(provenAddress)}`, number);
    if (topics.map(toHex).join() !== provenTopics.map(toHex).join()) throw new Wrong(`$[${i}].topics`, `answered topics ${topics.map(toHex).join(',')}, ${against} has ${provenTopics.map(toHex).join(',')}`, number);
    if (toHex(body) !== toHex(provenBody)) throw new Wrong(`$[${i}].data`, `answered data ${toHex(body).slice(0, 74)}, ${against} has ${toHex(provenBody).slice(0, 74)}`, number);
    if (Number(quantity(log.transactionIndex, `$[${i}].transactionIndex`)) !== proven.transactionIndex) {
      throw new Wrong(`$[${i}].transactionIndex`, `answered transaction ${Number(quantity(log.transactionIndex, `$[${i}].transactionIndex`))}, ${against} is of transaction ${proven.transactionIndex}`, number);
    }
  }
  const filter = logFilter(call.params[0]);
  if (filter !== null) await checkLogsComplete(filter, logs, context);
  return first;
}

async function verifyAnswer(call: IntegrityCall, answer: unknown, context: IntegrityContext): Promise<string | null> {
  if (STATE_READS.has(call.method)) return verifyStateRead(call, answer, context);
  switch (call.method) {
    case 'eth_getBlockByNumber':
    case 'eth_getBlockByHash':
      return verifyBlock(call, answer, context);
    case 'eth_getTransactionByHash':
      return verifyTransaction(answer, context);
    case 'eth_getTransactionReceipt':
      return verifyReceipt(answer, context);
    case 'eth_getBlockReceipts':
      return verifyBlockReceipts(call, answer, context);
    default:
      return verifyLogs(call, answer, context);
  }
}

/** The reference's hash of block `number`, its header self-consistent (null: it has no such block). */
async function anchorAt(call: PinCall, number: bigint): Promise<string | null> {
  const answer = await call('eth_getBlockByNumber', [`0x${number.toString(16)}`, false]);
  if (answer === null) return null;
  try {
    const header = selfConsistentHeader(record(answer, '$'), '$');
    return header.number === number ? header.hash : null;
  } catch {
    return null;
  }
}

export const evmIntegrity: IntegrityVerifier = {
  notProvable,
  anchorAt,
  async verify(call, answer, context): Promise<IntegrityFinding> {
    const reason = notProvable(call.method);
    if (reason !== null) return { kind: 'not_provable', reason };
    try {
      const block = await verifyAnswer(call, answer, context);
      return { kind: 'proven', block };
    } catch (error) {
      if (error instanceof Wrong) return { kind: 'wrong', block: error.block, path: error.path, message: error.message };
      if (error instanceof Malformed) return { kind: 'wrong', block: null, path: error.path, message: error.message };
      if (error instanceof Unprovable) return { kind: 'not_provable', reason: error.message };
      return { kind: 'not_provable', reason: `${call.method}: could not be verified (${error instanceof Error ? error.name : 'error'})` };
    }
  },
};
