import { encode } from '@ethereumjs/rlp';
import { keccak_256 } from '@noble/hashes/sha3';
import { isRecord } from '../../domain/json-shape';

/*
 * The consensus encodings of what an EVM node answers over JSON-RPC (DESIGN.md §15): headers,
 * transactions, receipts and withdrawals rebuilt from the answer's fields, so their hashes and
 * trie roots can be recomputed and compared with the commitments the chain made. Pure: every
 * function reads untrusted JSON and throws Malformed (naming the field) on anything it cannot
 * read; none calls an endpoint.
 */

/** A field of an endpoint's answer that is not what the spec types it as (the path names it). */
export class Malformed extends Error {
  constructor(
    readonly path: string,
    message: string,
  ) {
    super(message);
    this.name = 'Malformed';
  }
}

/** An answer that is well formed but that no commitment covers (a transaction type the family does not know, …). */
export class Unprovable extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'Unprovable';
  }
}

/** Longest DATA field read, in bytes (a transaction's input, a header's extraData, …): 4 MiB. */
export const MAX_DATA_BYTES = 4 * 1024 * 1024;

const QUANTITY = /^0x[0-9a-fA-F]{1,64}$/;
const DATA = /^0x(?:[0-9a-fA-F]{2})*$/;

export function keccak(bytes: Uint8Array): Uint8Array {
  return keccak_256(bytes);
}

export function toHex(bytes: Uint8Array): string {
  return `0x${Buffer.from(bytes).toString('hex')}`;
}

/** A QUANTITY (at most 256 bits). */
export function quantity(value: unknown, path: string): bigint {
  if (typeof value !== 'string' || !QUANTITY.test(value)) throw new Malformed(path, `${path} is not a quantity`);
  return BigInt(value);
}

/** DATA of `length` bytes when given, else of any length up to MAX_DATA_BYTES. */
export function data(value: unknown, path: string, length?: number): Uint8Array {
  if (typeof value !== 'string' || value.length > 2 + 2 * MAX_DATA_BYTES || !DATA.test(value)) {
    throw new Malformed(path, `${path} is not hex data`);
  }
  const bytes = Uint8Array.from(Buffer.from(value.slice(2), 'hex'));
  if (length !== undefined && bytes.length !== length) throw new Malformed(path, `${path} is not ${length} bytes`);
  return bytes;
}

export function record(value: unknown, path: string): Record<string, unknown> {
  if (!isRecord(value)) throw new Malformed(path, `${path} is not an object`);
  return value;
}

export function list(value: unknown, path: string, max: number): unknown[] {
  if (!Array.isArray(value)) throw new Malformed(path, `${path} is not an array`);
  if (value.length > max) throw new Unprovable(`${path} has ${value.length} entries, more than the ${max} verified`);
  return value;
}

/** Minimal big-endian bytes of an integer (0: empty), as RLP writes integers. */
export function intBytes(value: bigint): Uint8Array {
  if (value === 0n) return new Uint8Array();
  let hex = value.toString(16);
  if (hex.length % 2 === 1) hex = `0${hex}`;
  return Uint8Array.from(Buffer.from(hex, 'hex'));
}

const int = (value: unknown, path: string) => intBytes(quantity(value, path));

/**
 * The header fields after the fifteen of the original header, in the order forks added them
 * (London: baseFeePerGas; Shanghai: withdrawalsRoot; Cancun: blobGasUsed, excessBlobGas,
 * parentBeaconBlockRoot; Prague: requestsHash). A fork's fields are present from it on: one
 * present after one absent is not a header of any fork.
 */
const FORK_FIELDS: readonly { key: string; kind: 'int' | 'hash' }[] = [
  { key: 'baseFeePerGas', kind: 'int' },
  { key: 'withdrawalsRoot', kind: 'hash' },
  { key: 'blobGasUsed', kind: 'int' },
  { key: 'excessBlobGas', kind: 'int' },
  { key: 'parentBeaconBlockRoot', kind: 'hash' },
  { key: 'requestsHash', kind: 'hash' },
];

/** The fields of a header, as its RLP list, from a block answer (eth_getBlockBy*). */
export function headerFields(block: Record<string, unknown>, path = '$'): Uint8Array[] {
  const fields: Uint8Array[] = [
    data(block.parentHash, `${path}.parentHash`, 32),
    data(block.sha3Uncles, `${path}.sha3Uncles`, 32),
    data(block.miner, `${path}.miner`, 20),
    data(block.stateRoot, `${path}.stateRoot`, 32),
    data(block.transactionsRoot, `${path}.transactionsRoot`, 32),
    data(block.receiptsRoot, `${path}.receiptsRoot`, 32),
    data(block.logsBloom, `${path}.logsBloom`, 256),
    int(block.difficulty, `${path}.difficulty`),
    int(block.number, `${path}.number`),
    int(block.gasLimit, `${path}.gasLimit`),
    int(block.gasUsed, `${path}.gasUsed`),
    int(block.timestamp, `${path}.timestamp`),
    data(block.extraData, `${path}.extraData`),
    data(block.mixHash, `${path}.mixHash`, 32),
    data(block.nonce, `${path}.nonce`, 8),
  ];
  let absent: string | null = null;
  for (const { key, kind } of FORK_FIELDS) {
    const value = block[key];
    if (value === undefined || value === null) {
      absent ??= key;
      continue;
    }
    if (absent !== null) throw new Malformed(`${path}.${key}`, `${path}.${key} is present but ${absent}, of an earlier fork, is not`);
    fields.push(kind === 'int' ? int(value, `${path}.${key}`) : data(value, `${path}.${key}`, 32));
  }
  return fields;
}

/** The hash a header's fields commit to: keccak of their RLP. */
export function headerHash(block: Record<string, unknown>, path = '$'): string {
  return toHex(keccak(encode(headerFields(block, path))));
}

/** keccak(rlp([])): sha3Uncles of a block without uncles. */
export const EMPTY_LIST_HASH = toHex(keccak(encode([])));

function accessList(value: unknown, path: string): unknown[] {
  return list(value ?? [], path, 10_000).map((entry, i) => {
    const item = record(entry, `${path}[${i}]`);
    return [
      data(item.address, `${path}[${i}].address`, 20),
      list(item.storageKeys, `${path}[${i}].storageKeys`, 100_000).map((key, j) => data(key, `${path}[${i}].storageKeys[${j}]`, 32)),
    ];
  });
}

/** `to` of a transaction: 20 bytes, or empty when it creates a contract. */
function recipient(value: unknown, path: string): Uint8Array {
  return value === null || value === undefined ? new Uint8Array() : data(value, path, 20);
}

/** yParity of a typed transaction: its `yParity`, else its `v` (0 or 1). */
function parity(tx: Record<string, unknown>, path: string): Uint8Array {
  return tx.yParity !== undefined ? int(tx.yParity, `${path}.yParity`) : int(tx.v, `${path}.v`);
}

/** The payload of a transaction as a block's transaction trie holds it (typed: type byte ‖ rlp). */
export function transactionBytes(tx: Record<string, unknown>, path = '$'): Uint8Array {
  const type = tx.type === undefined ? 0n : quantity(tx.type, `${path}.type`);
  const input = data(tx.input, `${path}.input`);
  const signature = [int(tx.r, `${path}.r`), int(tx.s, `${path}.s`)];
  if (type === 0n) {
    return encode([
      int(tx.nonce, `${path}.nonce`),
      int(tx.gasPrice, `${path}.gasPrice`),
      int(tx.gas, `${path}.gas`),
      recipient(tx.to, `${path}.to`),
      int(tx.value, `${path}.value`),
      input,
      int(tx.v, `${path}.v`),
      ...signature,
    ]);
  }
  const head = [int(tx.chainId, `${path}.chainId`), int(tx.nonce, `${path}.nonce`)];
  const body = [int(tx.gas, `${path}.gas`), recipient(tx.to, `${path}.to`), int(tx.value, `${path}.value`), input, accessList(tx.accessList, `${path}.accessList`)];
  const fees = () => [int(tx.maxPriorityFeePerGas, `${path}.maxPriorityFeePerGas`), int(tx.maxFeePerGas, `${path}.maxFeePerGas`)];
  let fields: unknown[];
  switch (type) {
    case 1n:
      fields = [...head, int(tx.gasPrice, `${path}.gasPrice`), ...body, parity(tx, path), ...signature];
      break;
    case 2n:
      fields = [...head, ...fees(), ...body, parity(tx, path), ...signature];
      break;
    case 3n:
      fields = [
        ...head,
        ...fees(),
        ...body,
        int(tx.maxFeePerBlobGas, `${path}.maxFeePerBlobGas`),
        list(tx.blobVersionedHashes, `${path}.blobVersionedHashes`, 4096).map((hash, i) => data(hash, `${path}.blobVersionedHashes[${i}]`, 32)),
        parity(tx, path),
        ...signature,
      ];
      break;
    case 4n:
      fields = [
        ...head,
        ...fees(),
        ...body,
        list(tx.authorizationList, `${path}.authorizationList`, 10_000).map((entry, i) => {
          const at = `${path}.authorizationList[${i}]`;
          const auth = record(entry, at);
          return [
            int(auth.chainId, `${at}.chainId`),
            data(auth.address, `${at}.address`, 20),
            int(auth.nonce, `${at}.nonce`),
            auth.yParity !== undefined ? int(auth.yParity, `${at}.yParity`) : int(auth.v, `${at}.v`),
            int(auth.r, `${at}.r`),
            int(auth.s, `${at}.s`),
          ];
        }),
        parity(tx, path),
        ...signature,
      ];
      break;
    default:
      throw new Unprovable(`${path}: transaction type 0x${type.toString(16)} has no known encoding`);
  }
  return Uint8Array.from([Number(type), ...encode(fields as never)]);
}

/** The payload of a receipt as a block's receipt trie holds it. */
export function receiptBytes(receipt: Record<string, unknown>, path = '$'): Uint8Array {
  const type = receipt.type === undefined || receipt.type === null ? 0n : quantity(receipt.type, `${path}.type`);
  if (type > 4n) throw new Unprovable(`${path}: receipt type 0x${type.toString(16)} has no known encoding`);
  // Byzantium on: the status (0: the empty string, 1: 0x01); before it: the post-state root.
  const outcome =
    receipt.status !== undefined && receipt.status !== null
      ? int(receipt.status, `${path}.status`)
      : data(receipt.root, `${path}.root`, 32);
  const logs = list(receipt.logs, `${path}.logs`, 100_000).map((entry, i) => logFields(record(entry, `${path}.logs[${i}]`), `${path}.logs[${i}]`));
  const payload = encode([outcome, int(receipt.cumulativeGasUsed, `${path}.cumulativeGasUsed`), data(receipt.logsBloom, `${path}.logsBloom`, 256), logs] as never);
  return type === 0n ? payload : Uint8Array.from([Number(type), ...payload]);
}

/** A log as receipts commit to it: [address, topics, data]. */
export function logFields(log: Record<string, unknown>, path: string): [Uint8Array, Uint8Array[], Uint8Array] {
  return [
    data(log.address, `${path}.address`, 20),
    list(log.topics, `${path}.topics`, 4).map((topic, j) => data(topic, `${path}.topics[${j}]`, 32)),
    data(log.data, `${path}.data`),
  ];
}

/** A withdrawal as the withdrawals trie holds it. */
export function withdrawalBytes(withdrawal: Record<string, unknown>, path: string): Uint8Array {
  return encode([
    int(withdrawal.index, `${path}.index`),
    int(withdrawal.validatorIndex, `${path}.validatorIndex`),
    data(withdrawal.address, `${path}.address`, 20),
    int(withdrawal.amount, `${path}.amount`),
  ]);
}

/** The key of item `index` in a block's transaction, receipt or withdrawal trie: rlp(index). */
export function indexKey(index: number): Uint8Array {
  return encode(index);
}
