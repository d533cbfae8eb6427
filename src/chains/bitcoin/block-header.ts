import { createHash, scrypt } from 'node:crypto';

/*
 * The 80-byte Bitcoin-family block header (version, previous block hash, merkle root, time, bits,
 * nonce, all little-endian), its hash (double SHA-256, shown byte-reversed in hex) and its proof
 * of work under the chain's own function. Hashing is node:crypto's; nothing here is hand-written
 * crypto.
 */

export const HEADER_BYTES = 80;
const HASH_HEX = /^[0-9a-f]{64}$/i;

export interface BlockHeader {
  version: number;
  /** Display order (byte-reversed) hex, as RPC answers write it; all zeros for a genesis block. */
  previousblockhash: string;
  merkleroot: string;
  time: number;
  bits: number;
  nonce: number;
}

export const ZERO_HASH = '0'.repeat(64);

export function isHashHex(value: unknown): value is string {
  return typeof value === 'string' && HASH_HEX.test(value);
}

export function sha256d(bytes: Uint8Array): Buffer {
  return createHash('sha256').update(createHash('sha256').update(bytes).digest()).digest();
}

/** A hash as RPC answers write it (byte-reversed hex) from its internal byte order, and back. */
export const displayHex = (internal: Uint8Array): string => Buffer.from(internal).reverse().toString('hex');
export const internalBytes = (display: string): Buffer => Buffer.from(display, 'hex').reverse();

/** The serialized header (the bytes the block hash and the proof of work are computed over). */
export function serializeHeader(header: BlockHeader): Buffer {
  const bytes = Buffer.alloc(HEADER_BYTES);
  bytes.writeInt32LE(header.version, 0);
  internalBytes(header.previousblockhash).copy(bytes, 4);
  internalBytes(header.merkleroot).copy(bytes, 36);
  bytes.writeUInt32LE(header.time, 68);
  bytes.writeUInt32LE(header.bits, 72);
  bytes.writeUInt32LE(header.nonce, 76);
  return bytes;
}

export function parseHeader(bytes: Uint8Array): BlockHeader {
  if (bytes.length !== HEADER_BYTES) throw new Error(`a header is ${HEADER_BYTES} bytes, not ${bytes.length}`);
  const buffer = Buffer.from(bytes);
  return {
    version: buffer.readInt32LE(0),
    previousblockhash: displayHex(buffer.subarray(4, 36)),
    merkleroot: displayHex(buffer.subarray(36, 68)),
    time: buffer.readUInt32LE(68),
    bits: buffer.readUInt32LE(72),
    nonce: buffer.readUInt32LE(76),
  };
}

/** The block hash of a serialized header, as RPC answers write it. */
export const headerHash = (bytes: Uint8Array): string => displayHex(sha256d(bytes));

/**
 * The target `bits` encodes (Core's arith_uint256::SetCompact), or null when the encoding is one a
 * valid block cannot carry: negative, zero, or above 2^256.
 */
export function targetOf(bits: number): bigint | null {
  const exponent = bits >>> 24;
  const mantissa = bits & 0x007fffff;
  if ((bits & 0x00800000) !== 0 && mantissa !== 0) return null;
  const target = exponent <= 3 ? BigInt(mantissa >>> (8 * (3 - exponent))) : BigInt(mantissa) << BigInt(8 * (exponent - 3));
  if (target === 0n || target >= 1n << 256n) return null;
  return target;
}

/** The proof-of-work functions of the family's chains: each maps a serialized header to the 32 bytes compared (little-endian) against the target. */
export type PowFunction = 'sha256d' | 'scrypt';

/**
 * Which function a chain's work is proven under, by catalog slug: Bitcoin (and its test networks)
 * and btcd use the block hash itself; Litecoin and Dogecoin use scrypt (N=1024, r=1, p=1, the
 * header as both password and salt, 32 bytes), while their block hash stays the double SHA-256.
 * A slug not named here (a chain a tenant added: `regtest-…`) is proven under sha256d.
 *
 * | slug prefix | proof of work |
 * |---|---|
 * | `litecoin` (`litecoin`, `litecoin-testnet`, …) | scrypt |
 * | `dogecoin` (`dogecoin`, `dogecoin-testnet`, …) | scrypt |
 * | anything else (`bitcoin`, `bitcoin-testnet4`, `bitcoin-signet`, btcd chains, none) | sha256d |
 */
export const SCRYPT_SLUG_PREFIXES: readonly string[] = ['litecoin', 'dogecoin'];

export function powFunctionOf(slug: string | null): PowFunction {
  if (slug === null) return 'sha256d';
  return SCRYPT_SLUG_PREFIXES.some((prefix) => slug === prefix || slug.startsWith(`${prefix}-`)) ? 'scrypt' : 'sha256d';
}

const SCRYPT_OPTIONS = { N: 1024, r: 1, p: 1 };

/** The proof-of-work hash of a serialized header under `pow`, as a 256-bit number (little-endian bytes, as Core compares them). */
export async function powValue(bytes: Uint8Array, pow: PowFunction): Promise<bigint> {
  const digest =
    pow === 'sha256d'
      ? sha256d(bytes)
      : await new Promise<Buffer>((resolve, reject) => scrypt(bytes, bytes, 32, SCRYPT_OPTIONS, (error, key) => (error ? reject(error) : resolve(key))));
  return BigInt(`0x${displayHex(digest)}`);
}

/** The 64-hex-digit form of a 256-bit number, for messages. */
export const hex256 = (value: bigint): string => value.toString(16).padStart(64, '0');
