import { displayHex, internalBytes, sha256d } from './block-header';

/*
 * A block's merkle tree over its txids (Core's ComputeMerkleRoot): leaves in internal byte order,
 * each level pairs neighbours and hashes their concatenation with double SHA-256, an odd level
 * repeats its last node. Hashes in and out are display (byte-reversed) hex, as RPC answers write them.
 */

const pairHash = (left: Buffer, right: Buffer): Buffer => sha256d(Buffer.concat([left, right]));

function nextLevel(level: readonly Buffer[]): Buffer[] {
  const next: Buffer[] = [];
  for (let i = 0; i < level.length; i += 2) {
    const left = level[i] as Buffer;
    next.push(pairHash(left, level[i + 1] ?? left));
  }
  return next;
}

/** The merkle root of `txids` (display hex). */
export function merkleRoot(txids: readonly string[]): string {
  if (txids.length === 0) throw new Error('a block has at least its coinbase transaction');
  let level = txids.map(internalBytes);
  while (level.length > 1) level = nextLevel(level);
  return displayHex(level[0] as Buffer);
}

/** The sibling hashes from leaf `index` up to the root (display hex), as a merkle branch proves membership with. */
export function merkleBranch(txids: readonly string[], index: number): string[] {
  if (!Number.isSafeInteger(index) || index < 0 || index >= txids.length) throw new Error(`no leaf ${index} among ${txids.length}`);
  const branch: string[] = [];
  let level = txids.map(internalBytes);
  let position = index;
  while (level.length > 1) {
    branch.push(displayHex(level[position ^ 1] ?? (level[position] as Buffer)));
    level = nextLevel(level);
    position >>= 1;
  }
  return branch;
}

/** The root a merkle branch leads to from leaf `txid` at `index` (display hex). */
export function rootFromBranch(txid: string, index: number, branch: readonly string[]): string {
  let node = internalBytes(txid);
  let position = index;
  for (const sibling of branch) {
    node = (position & 1) === 1 ? pairHash(internalBytes(sibling), node) : pairHash(node, internalBytes(sibling));
    position >>= 1;
  }
  return displayHex(node);
}
