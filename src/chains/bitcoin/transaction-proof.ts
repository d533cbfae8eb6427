import { CompactSize, RawTx } from '@scure/btc-signer';
import { isRecord } from '../../domain/json-shape';
import { displayHex, sha256d } from './block-header';
import { NotProvable, ProvenWrong } from './integrity-findings';

/*
 * A transaction's own commitment: its txid is the double SHA-256 of its non-witness serialization,
 * its wtxid (`hash`) that of the whole serialization. The raw bytes are parsed by
 * @scure/btc-signer's RawTx coder (never by hand); a verbose answer's decoded fields are then
 * compared with what those bytes say.
 */

/**
 * Largest raw transaction read, in hex digits: a transaction fits in a block (4 MB of weight, so at
 * most 4 MB of bytes). A longer string is no transaction of any chain of the family.
 */
export const MAX_TRANSACTION_HEX = 8_000_000;
const HEX = /^(?:[0-9a-f]{2})*$/i;

type ParsedTx = ReturnType<typeof RawTx.decode>;

export interface ProvenTransaction {
  txid: string;
  wtxid: string;
  bytes: number;
  parsed: ParsedTx;
}

/** Parses and hashes a raw transaction; `path` names where it sits in the answer. */
export function proveRawTransaction(raw: unknown, path: string): ProvenTransaction {
  if (typeof raw !== 'string') throw new ProvenWrong(path, 'the raw transaction is not a hex string');
  if (raw.length > MAX_TRANSACTION_HEX) throw new ProvenWrong(path, `the raw transaction is ${raw.length.toLocaleString('en-US')} hex digits, longer than any transaction a block holds`);
  if (!HEX.test(raw)) throw new ProvenWrong(path, 'the raw transaction is not hex');
  const bytes = Buffer.from(raw, 'hex');
  refuseExtendedSerialization(bytes, path);
  let parsed: ParsedTx;
  try {
    parsed = RawTx.decode(bytes);
  } catch (error) {
    throw new ProvenWrong(path, `the raw transaction does not parse: ${parseFailure(error)}`);
  }
  return hashed(parsed, bytes);
}

const parseFailure = (error: unknown): string => (error instanceof Error ? error.message.slice(0, 200) : 'malformed');

/**
 * Marker 0x00 then a flag other than segwit's 0x01: an extended serialization (Litecoin's MWEB
 * flag 0x08) the parser does not read; honest, so not proven wrong.
 */
function refuseExtendedSerialization(bytes: Uint8Array, path: string): void {
  const flag = bytes[5];
  if (flag !== undefined && bytes[4] === 0x00 && flag !== 0x01) {
    throw new NotProvable(`${path}: a transaction serialized with flag 0x${flag.toString(16).padStart(2, '0')} (an extension such as Litecoin's MWEB), which the parser does not read`);
  }
}

function hashed(parsed: ParsedTx, bytes: Uint8Array): ProvenTransaction {
  const nonWitness = RawTx.encode({ ...parsed, segwitFlag: false, witnesses: undefined });
  return { txid: displayHex(sha256d(nonWitness)), wtxid: displayHex(sha256d(bytes)), bytes: bytes.length, parsed };
}

/**
 * The txids of the transactions a raw block lists after its header (a CompactSize count, then each
 * transaction), each parsed by the library's coders and its extent known by encoding it again (a
 * serialization the coder would not write byte for byte is refused); `rest`: bytes after the last.
 */
export function splitRawTransactions(bytes: Uint8Array, maxCount: number, path: string): { txids: string[]; rest: number } {
  let count: bigint;
  try {
    count = CompactSize.decode(bytes, { allowUnreadBytes: true });
  } catch (error) {
    throw new ProvenWrong(path, `the raw block's transaction count does not parse: ${parseFailure(error)}`);
  }
  if (count === 0n) throw new ProvenWrong(path, 'a block holds at least its coinbase transaction');
  if (count > BigInt(maxCount)) throw new NotProvable(`the raw block holds ${count} transactions, more than the ${maxCount} read`);
  let offset = CompactSize.encode(count).length;
  const txids: string[] = [];
  for (let i = 0; i < Number(count); i++) {
    const at = `${path} (transaction ${i})`;
    const rest = bytes.subarray(offset);
    refuseExtendedSerialization(rest, at);
    let parsed: ParsedTx;
    try {
      parsed = RawTx.decode(rest, { allowUnreadBytes: true });
    } catch (error) {
      throw new ProvenWrong(at, `the transaction does not parse: ${parseFailure(error)}`);
    }
    const encoded = RawTx.encode(parsed);
    if (!Buffer.from(encoded).equals(Buffer.from(rest.subarray(0, encoded.length)))) throw new ProvenWrong(at, 'the transaction is not in its canonical serialization');
    txids.push(hashed(parsed, encoded).txid);
    offset += encoded.length;
  }
  return { txids, rest: bytes.length - offset };
}

const toHex = (bytes: Uint8Array): string => Buffer.from(bytes).toString('hex');
const COINBASE_PREVOUT = '0'.repeat(64);
const COIN = 100_000_000n;

function coins(amount: bigint): string {
  const fraction = (amount % COIN).toString().padStart(8, '0').replace(/0+$/, '');
  return `${amount / COIN}${fraction === '' ? '' : `.${fraction}`}`;
}

/** An answered amount in coins (a JSON number with at most 8 decimals) as an integer count of the smallest unit, or null when it is not one. */
function amountOf(value: unknown): bigint | null {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) return null;
  const units = Math.round(value * 1e8);
  return Number.isSafeInteger(units) ? BigInt(units) : null;
}

function expectEqual(path: string, answered: unknown, actual: string | number, what: string): void {
  if (answered !== actual) throw new ProvenWrong(path, `answered ${JSON.stringify(answered)}, the raw transaction's ${what} is ${JSON.stringify(actual)}`);
}

/**
 * A verbose transaction (getrawtransaction verbose, an entry of getblock verbosity 2) proven
 * against its own `hex`: txid, wtxid, version, locktime, size, each input's prevout, script and
 * sequence (and witness), each output's value and scriptPubKey. Fields no serialization commits
 * to (`blockhash`, `confirmations`, `time`; Core 25+'s `prevout` and `fee`) are not checked here.
 */
export function proveDecodedTransaction(answer: unknown, path: string): ProvenTransaction {
  if (!isRecord(answer)) throw new ProvenWrong(path, 'a verbose transaction is an object');
  const proven = proveRawTransaction(answer.hex, `${path}.hex`);
  const { parsed } = proven;
  expectEqual(`${path}.txid`, answer.txid, proven.txid, 'txid (double SHA-256 of its non-witness serialization)');
  if (answer.hash !== undefined) expectEqual(`${path}.hash`, answer.hash, proven.wtxid, 'wtxid (double SHA-256 of its serialization)');
  if (answer.version !== undefined) expectEqual(`${path}.version`, answer.version, parsed.version, 'version');
  if (answer.locktime !== undefined) expectEqual(`${path}.locktime`, answer.locktime, parsed.lockTime, 'lock time');
  if (answer.size !== undefined) expectEqual(`${path}.size`, answer.size, proven.bytes, 'size in bytes');
  const { vin, vout } = answer;
  if (!Array.isArray(vin)) throw new ProvenWrong(`${path}.vin`, 'a verbose transaction lists its inputs');
  if (!Array.isArray(vout)) throw new ProvenWrong(`${path}.vout`, 'a verbose transaction lists its outputs');
  expectEqual(`${path}.vin`, vin.length, parsed.inputs.length, 'input count');
  expectEqual(`${path}.vout`, vout.length, parsed.outputs.length, 'output count');
  parsed.inputs.forEach((input, i) => {
    const at = `${path}.vin[${i}]`;
    const answered: unknown = vin[i];
    if (!isRecord(answered)) throw new ProvenWrong(at, 'an input is an object');
    const scriptSig = toHex(input.finalScriptSig);
    const prevout = toHex(input.txid);
    if (prevout === COINBASE_PREVOUT && input.index === 0xffffffff) {
      expectEqual(`${at}.coinbase`, answered.coinbase, scriptSig, 'coinbase script');
    } else {
      expectEqual(`${at}.txid`, answered.txid, prevout, 'spent txid');
      expectEqual(`${at}.vout`, answered.vout, input.index, 'spent output index');
      const answeredScript = isRecord(answered.scriptSig) ? answered.scriptSig.hex : undefined;
      expectEqual(`${at}.scriptSig.hex`, answeredScript, scriptSig, 'scriptSig');
    }
    expectEqual(`${at}.sequence`, answered.sequence, input.sequence, 'sequence');
    const witness = (parsed.witnesses?.[i] ?? []).map(toHex);
    const answeredWitness = answered.txinwitness ?? [];
    if (!Array.isArray(answeredWitness) || answeredWitness.length !== witness.length || answeredWitness.some((item, j) => item !== witness[j])) {
      throw new ProvenWrong(`${at}.txinwitness`, `answered ${JSON.stringify(answered.txinwitness ?? null).slice(0, 200)}, the raw transaction's witness is ${JSON.stringify(witness).slice(0, 200)}`);
    }
  });
  parsed.outputs.forEach((output, i) => {
    const at = `${path}.vout[${i}]`;
    const answered: unknown = vout[i];
    if (!isRecord(answered)) throw new ProvenWrong(at, 'an output is an object');
    const value = amountOf(answered.value);
    if (value !== output.amount) {
      throw new ProvenWrong(`${at}.value`, `answered ${JSON.stringify(answered.value)}, the raw transaction's output ${i} holds ${coins(output.amount)} (${output.amount} base units)`);
    }
    if (answered.n !== undefined) expectEqual(`${at}.n`, answered.n, i, 'output index');
    const answeredScript = isRecord(answered.scriptPubKey) ? answered.scriptPubKey.hex : undefined;
    expectEqual(`${at}.scriptPubKey.hex`, answeredScript, toHex(output.script), 'scriptPubKey');
  });
  return proven;
}
