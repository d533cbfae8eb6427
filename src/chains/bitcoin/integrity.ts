import type { IntegrityCall, IntegrityContext, IntegrityFinding, IntegrityVerifier, PinCall } from '../types';
import { isRecord } from '../../domain/json-shape';
import {
  HEADER_BYTES,
  headerHash,
  hex256,
  isHashHex,
  parseHeader,
  powFunctionOf,
  powValue,
  serializeHeader,
  targetOf,
  ZERO_HASH,
  type BlockHeader,
} from './block-header';
import { NotProvable, ProvenWrong } from './integrity-findings';
import { merkleBranch, merkleRoot, rootFromBranch } from './merkle';
import { proveDecodedTransaction, proveRawTransaction, splitRawTransactions } from './transaction-proof';

/*
 * The Bitcoin family's integrity verifier (DESIGN.md §15). A block hash is the double SHA-256 of
 * its 80-byte header, which commits to its parent (`previousblockhash`), to its transactions
 * (`merkleroot`, over their txids) and carries its own difficulty (`bits`), met under the chain's
 * proof-of-work function (block-header.ts powFunctionOf: scrypt for Litecoin and Dogecoin). So:
 *
 * - a header answer is proven when the header rebuilt from its fields hashes to the block asked
 *   for, meets its target, and that hash is linked by parent hashes to the run's anchor (each
 *   header on the way fetched from the endpoint with getblockheader and itself hashed and
 *   checked); with no anchor (self-consistency), when it agrees with the endpoint's own header at
 *   that hash and, for a read by height, the endpoint's own chain at that height;
 * - a block answer is proven when its header is, and its txids (or its transactions, each proven
 *   against its own hex) build its merkle root;
 * - a transaction answer is proven when its bytes hash to the txid asked for and, with a block,
 *   when a merkle branch from that txid leads to the block's (proven) merkle root.
 *
 * What no commitment covers (the UTXO set, mempools, fee estimates, the node's own state) is not
 * provable, and says why.
 *
 * `bits` is the header's own claim: it is not held to the chain's difficulty schedule (retargets,
 * the network's proof-of-work limit; a catalog slug does not say mainnet from regtest). The
 * anchor link is what rules out a side chain of easy headers; with no anchor, the work check only
 * shows that the header is one the claimed difficulty admits.
 */

const PROVABLE = new Set(['getblockheader', 'getblock', 'getblockhash', 'getrawtransaction']);

const NOT_PROVABLE: Readonly<Record<string, string>> = {
  gettxout: 'no commitment covers the UTXO set (Bitcoin headers commit to transactions, not to unspent outputs)',
  gettxoutsetinfo: 'no commitment covers the UTXO set (Bitcoin headers commit to transactions, not to unspent outputs)',
  getmempoolinfo: "the mempool is the node's own and no block commits to it",
  getrawmempool: "the mempool is the node's own and no block commits to it",
  getmempoolentry: "the mempool is the node's own and no block commits to it",
  estimatesmartfee: "fee estimates are the node's own and no block commits to them",
  estimatefee: "fee estimates are the node's own and no block commits to them",
  getblockchaininfo: "the node's view of its chain (its tip, sync progress): a head read, judged by freshness; no commitment covers it",
  getblockcount: "the node's tip height: a head read, judged by freshness; no commitment covers it",
  getbestblockhash: "the node's tip: a head read, judged by freshness; no commitment covers it",
  getnetworkinfo: "the node's own network state; no commitment covers it",
  getpeerinfo: "the node's own peers; no commitment covers them",
  getconnectioncount: "the node's own peers; no commitment covers them",
  getblockstats: 'block statistics need the spent outputs (fees) that no header of the block commits to',
  getchaintips: "the forks the node has seen; no commitment covers them",
  getdifficulty: "the tip's difficulty: a head read; no commitment covers it",
};

/** Longest `tx` list of a getblock answer read (a 4 MB block of the smallest transactions holds fewer). */
export const MAX_BLOCK_TRANSACTIONS = 100_000;

/** Longest raw block read, in hex digits: 4 MB, the largest block of the family's chains (Bitcoin's weight limit), twice over. */
export const MAX_BLOCK_HEX = 16_000_000;

const MEMO = {
  header: (hash: string) => `bitcoin:header:${hash}`,
  linked: 'bitcoin:linked',
  txids: (hash: string) => `bitcoin:txids:${hash}`,
};

/** The chain linked to the anchor so far: hash by height, from `lowest` up. */
interface LinkedChain {
  byHeight: Map<bigint, string>;
  lowest: bigint;
}

function failureMessage(error: unknown): string {
  return error instanceof Error ? error.message.slice(0, 300) : 'unknown error';
}

/** One call for a proof; a refused or failed call makes the answer not provable (the call's error text is not repeated: it may name the endpoint). */
async function fetchProof(context: IntegrityContext, method: string, params: unknown[], why: string): Promise<unknown> {
  try {
    return await context.call(method, params);
  } catch {
    throw new NotProvable(`the endpoint did not answer ${method} ${params.map((p) => JSON.stringify(p)).join(' ')} (${why}), or the run's budget of extra requests is spent`);
  }
}

/** Throws ProvenWrong at `path` unless `bytes` (a header) meets its own `bits` under the chain's proof of work. */
async function requireWork(bytes: Buffer, header: BlockHeader, context: IntegrityContext, path: string): Promise<void> {
  const target = targetOf(header.bits);
  const bitsHex = header.bits.toString(16).padStart(8, '0');
  if (target === null) throw new ProvenWrong(path, `bits ${bitsHex} encode no valid target (zero, negative or above 2^256)`);
  const pow = powFunctionOf(context.chain.slug);
  // Dogecoin's merged-mined (AuxPoW) headers carry their work in a parent chain's block, which the
  // RPC header does not include: their own hash need not meet the target.
  if (pow === 'scrypt' && context.chain.slug?.startsWith('dogecoin') === true && (header.version & 0x100) !== 0) {
    if (context.anchor === null) throw new NotProvable('a merged-mined (AuxPoW) Dogecoin header proves its work in a parent block the RPC header does not carry, and no anchor links it');
    return;
  }
  const value = await powValue(bytes, pow);
  if (value > target) {
    // A Litecoin or Dogecoin chain added under another slug is proven under sha256d, and its honest headers miss their targets: say how to fix it.
    const hint = pow === 'sha256d' ? ` (proof of work is sha256d for the chain "${context.chain.slug ?? '?'}"; a Litecoin or Dogecoin chain proves its work with scrypt: give its slug the prefix litecoin- or dogecoin-)` : '';
    throw new ProvenWrong(path, `the header's ${pow} proof-of-work hash ${hex256(value)} is above the target ${hex256(target)} its bits ${bitsHex} set${hint}`);
  }
}

/**
 * The header of block `hash` fetched from the endpoint (getblockheader non-verbose), hashed and
 * its work checked; memoised per run and endpoint.
 */
async function fetchedHeader(hash: string, context: IntegrityContext, why: string): Promise<BlockHeader> {
  const key = MEMO.header(hash);
  const known = context.memo.get(key) as BlockHeader | undefined;
  if (known !== undefined) return known;
  const answer = await fetchProof(context, 'getblockheader', [hash, false], why);
  const path = `getblockheader ${hash}`;
  if (typeof answer !== 'string' || answer.length !== 2 * HEADER_BYTES || !/^[0-9a-f]+$/i.test(answer)) {
    throw new ProvenWrong(`$ (${path}, fetched ${why})`, `the endpoint's header of block ${hash} is not ${HEADER_BYTES} bytes of hex`);
  }
  const bytes = Buffer.from(answer, 'hex');
  const actual = headerHash(bytes);
  if (actual !== hash) throw new ProvenWrong(`$ (${path}, fetched ${why})`, `the endpoint's header of block ${hash} hashes to ${actual}`);
  const header = parseHeader(bytes);
  await requireWork(bytes, header, context, `$.bits (${path}, fetched ${why})`);
  context.memo.set(key, header);
  return header;
}

function linkedChain(context: IntegrityContext): LinkedChain | null {
  const { anchor } = context;
  if (anchor === null) return null;
  let chain = context.memo.get(MEMO.linked) as LinkedChain | undefined;
  if (chain === undefined) {
    chain = { byHeight: new Map([[anchor.number, anchor.hash.toLowerCase()]]), lowest: anchor.number };
    context.memo.set(MEMO.linked, chain);
  }
  return chain;
}

/**
 * Proves block `hash` at `height` is on the anchor's chain: walks parent hashes from the anchor
 * down to it, or from it down to the anchor's chain, within maxAnchorDistance (headers fetched from
 * the endpoint, each hashed). `path` names the answered field the link proves.
 */
async function linkToAnchor(hash: string, height: bigint, context: IntegrityContext, path: string): Promise<void> {
  const chain = linkedChain(context);
  const anchor = context.anchor;
  if (chain === null || anchor === null) return;
  const distance = height > anchor.number ? height - anchor.number : anchor.number - height;
  if (distance > BigInt(context.maxAnchorDistance)) {
    throw new NotProvable(`block ${hash} at height ${height} is ${distance} blocks from the anchor (${anchor.number}), beyond the ${context.maxAnchorDistance} the run links`);
  }
  if (height < chain.lowest) {
    let current = chain.byHeight.get(chain.lowest) as string;
    for (let at = chain.lowest; at > height; at--) {
      const header = await fetchedHeader(current, context, `to link block ${hash} to the anchor`);
      current = header.previousblockhash;
      chain.byHeight.set(at - 1n, current);
      chain.lowest = at - 1n;
    }
  }
  const onChain = chain.byHeight.get(height);
  if (onChain !== undefined) {
    if (onChain !== hash) throw new ProvenWrong(path, `block ${hash} is not the anchor's block at height ${height}: the anchor's chain (${anchor.hash} at ${anchor.number}, linked by parent hashes) has ${onChain} there`);
    return;
  }
  // Above every linked height: walk down from the block to the first height the chain knows.
  const walked: [bigint, string][] = [];
  let current = hash;
  let at = height;
  while (!chain.byHeight.has(at)) {
    walked.push([at, current]);
    const header = await fetchedHeader(current, context, `to link block ${hash} to the anchor`);
    current = header.previousblockhash;
    at--;
  }
  const onChainThere = chain.byHeight.get(at) as string;
  if (onChainThere !== current) {
    throw new ProvenWrong(path, `block ${hash} (height ${height}) does not descend from the anchor: its ancestor at height ${at} is ${current}, the anchor's chain has ${onChainThere}`);
  }
  for (const [h, linked] of walked) chain.byHeight.set(h, linked);
}

function heightOf(value: unknown, path: string): bigint {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) throw new ProvenWrong(path, `answered ${JSON.stringify(value)}, not a block height`);
  return BigInt(value);
}

function uint32(value: unknown, path: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > 0xffffffff) throw new ProvenWrong(path, `answered ${JSON.stringify(value)}, not a 32-bit unsigned integer`);
  return value;
}

/** The header a verbose header or block answer describes, each field checked for its type. */
function headerFromFields(answer: Record<string, unknown>): BlockHeader {
  const { version, previousblockhash, merkleroot, bits } = answer;
  if (typeof version !== 'number' || !Number.isInteger(version) || version < -0x80000000 || version > 0x7fffffff) {
    throw new ProvenWrong('$.version', `answered ${JSON.stringify(version)}, not a 32-bit version`);
  }
  if (previousblockhash !== undefined && !isHashHex(previousblockhash)) throw new ProvenWrong('$.previousblockhash', 'not a block hash');
  if (!isHashHex(merkleroot)) throw new ProvenWrong('$.merkleroot', 'not a 32-byte hash');
  if (typeof bits !== 'string' || !/^[0-9a-f]{8}$/i.test(bits)) throw new ProvenWrong('$.bits', `answered ${JSON.stringify(bits)}, not 4 bytes of hex`);
  return {
    version,
    previousblockhash: (previousblockhash ?? ZERO_HASH).toLowerCase(),
    merkleroot: merkleroot.toLowerCase(),
    time: uint32(answer.time, '$.time'),
    bits: Number.parseInt(bits, 16),
    nonce: uint32(answer.nonce, '$.nonce'),
  };
}

function requestedHash(call: IntegrityCall): string {
  const [hash] = call.params;
  if (!isHashHex(hash)) throw new NotProvable(`${call.method} was not asked for a block hash`);
  return hash.toLowerCase();
}

/**
 * Proves the header of block `hash` (height `height` as the answer claims, null when it names
 * none), given as its serialized bytes: its hash, its work, and its place in the anchor's chain
 * (or, with no anchor, the endpoint's own header at that hash).
 */
async function proveHeader(bytes: Buffer, hash: string, height: bigint | null, context: IntegrityContext, paths: { hash: string; height: string }): Promise<void> {
  const actual = headerHash(bytes);
  if (actual !== hash) throw new ProvenWrong(paths.hash, `the header rebuilt from the answer hashes to ${actual}, not to block ${hash}`);
  const header = parseHeader(bytes);
  await requireWork(bytes, header, context, '$.bits');
  context.memo.set(MEMO.header(hash), header);
  if (context.anchor === null) {
    // Self-consistency: the endpoint's own header chain has this block at the height it claims.
    if (height !== null) {
      const atHeight = await fetchProof(context, 'getblockhash', [Number(height)], 'to check the block is on its own chain at that height');
      if (typeof atHeight !== 'string' || atHeight.toLowerCase() !== hash) {
        throw new ProvenWrong(paths.height, `block ${hash} claims height ${height}, but the endpoint's own chain answers ${JSON.stringify(atHeight).slice(0, 80)} at that height`);
      }
    }
    return;
  }
  if (height === null) throw new NotProvable(`the answer does not say which height block ${hash} is at, so it cannot be linked to the anchor`);
  await linkToAnchor(hash, height, context, paths.height);
}

/**
 * A raw header (getblockheader false, the first 80 bytes of a raw block) names no height: it is
 * proven by its hash (the block asked for) and its work, and linked to the anchor at the height the
 * endpoint's own verbose header gives it.
 */
async function proveRawHeader(bytes: Buffer, hash: string, context: IntegrityContext): Promise<void> {
  await proveHeader(bytes, hash, null, context, { hash: '$', height: '$' }).catch(async (error: unknown) => {
    if (!(error instanceof NotProvable) || context.anchor === null) throw error;
    const described = await fetchProof(context, 'getblockheader', [hash, true], 'to learn the height of the block asked for');
    const height = isRecord(described) ? heightOf(described.height, '$.height (getblockheader verbose, fetched for its height)') : null;
    if (height === null) throw new NotProvable(`the endpoint's verbose header of ${hash} names no height`);
    await linkToAnchor(hash, height, context, '$');
  });
}

async function verifyHeaderAnswer(call: IntegrityCall, answer: unknown, context: IntegrityContext): Promise<string> {
  const hash = requestedHash(call);
  const verbose = call.params[1] ?? true;
  if (verbose === false || verbose === 0) {
    if (typeof answer !== 'string' || answer.length !== 2 * HEADER_BYTES || !/^[0-9a-f]+$/i.test(answer)) throw new ProvenWrong('$', `a header is ${HEADER_BYTES} bytes of hex`);
    await proveRawHeader(Buffer.from(answer, 'hex'), hash, context);
    return hash;
  }
  if (!isRecord(answer)) throw new ProvenWrong('$', 'a verbose header is an object');
  await verifyVerboseHeader(hash, answer, context);
  return hash;
}

async function verifyVerboseHeader(hash: string, answer: Record<string, unknown>, context: IntegrityContext): Promise<void> {
  if (answer.hash !== hash) throw new ProvenWrong('$.hash', `asked for block ${hash}, answered ${JSON.stringify(answer.hash).slice(0, 80)}`);
  const header = headerFromFields(answer);
  const height = heightOf(answer.height, '$.height');
  const bytes = serializeHeader(header);
  await proveHeader(bytes, hash, height, context, { hash: '$ (version, previousblockhash, merkleroot, time, bits, nonce)', height: '$.height' });
}

/** getblock verbosity 0: the header (its first 80 bytes) proven, and the transactions split out of the rest building its merkle root. */
async function verifyRawBlockAnswer(hash: string, answer: unknown, context: IntegrityContext): Promise<string> {
  if (typeof answer !== 'string' || !/^(?:[0-9a-f]{2})*$/i.test(answer)) throw new ProvenWrong('$', 'a raw block is hex');
  if (answer.length > MAX_BLOCK_HEX) throw new NotProvable(`the raw block is ${answer.length.toLocaleString('en-US')} hex digits, more than the ${MAX_BLOCK_HEX.toLocaleString('en-US')} read`);
  const bytes = Buffer.from(answer, 'hex');
  if (bytes.length < HEADER_BYTES) throw new ProvenWrong('$', `a raw block starts with its ${HEADER_BYTES}-byte header`);
  const headerBytes = bytes.subarray(0, HEADER_BYTES);
  await proveRawHeader(headerBytes, hash, context);
  const { txids, rest } = splitRawTransactions(bytes.subarray(HEADER_BYTES), MAX_BLOCK_TRANSACTIONS, '$');
  if (rest > 0) {
    // Litecoin's MWEB blocks carry their extension block after the transactions.
    if (powFunctionOf(context.chain.slug) === 'scrypt') throw new NotProvable(`the raw block has ${rest} bytes after its transactions (an extension block such as Litecoin's MWEB), which are not read`);
    throw new ProvenWrong('$', `the raw block has ${rest} bytes after its last transaction`);
  }
  if (new Set(txids).size !== txids.length) throw new ProvenWrong('$', 'the block holds a transaction twice');
  const root = merkleRoot(txids);
  const { merkleroot } = parseHeader(headerBytes);
  if (root !== merkleroot) throw new ProvenWrong('$', `the block's ${txids.length} transactions build merkle root ${root}, not the proven header's ${merkleroot}`);
  context.memo.set(MEMO.txids(hash), txids);
  return hash;
}

async function verifyBlockAnswer(call: IntegrityCall, answer: unknown, context: IntegrityContext): Promise<string> {
  const hash = requestedHash(call);
  const verbosity = call.params[1] ?? 1;
  if (verbosity === 0 || verbosity === false) return verifyRawBlockAnswer(hash, answer, context);
  if (!isRecord(answer)) throw new ProvenWrong('$', 'a verbose block is an object');
  // btcd answers verbosity 2 with the transactions under `rawtx` (Core's old name) and no `tx`.
  const listed = answer.tx === undefined && Array.isArray(answer.rawtx) ? 'rawtx' : 'tx';
  const entries = answer[listed];
  if (!Array.isArray(entries) || entries.length === 0) throw new ProvenWrong(`$.${listed}`, 'a block lists at least its coinbase transaction');
  if (entries.length > MAX_BLOCK_TRANSACTIONS) throw new NotProvable(`the block lists ${entries.length} transactions, more than the ${MAX_BLOCK_TRANSACTIONS} read`);
  const txids = (entries as unknown[]).map((entry, i) => (typeof entry === 'string' ? entry : proveDecodedTransaction(entry, `$.${listed}[${i}]`).txid));
  txids.forEach((txid, i) => {
    if (!isHashHex(txid)) throw new ProvenWrong(`$.${listed}[${i}]`, 'not a txid');
  });
  const lower = txids.map((txid) => txid.toLowerCase());
  // Core refuses a block whose txid list repeats one (CVE-2012-2459: duplicated trailing
  // transactions leave the merkle root unchanged).
  if (new Set(lower).size !== lower.length) throw new ProvenWrong(`$.${listed}`, 'the block lists a transaction twice');
  if (answer.nTx !== undefined && answer.nTx !== lower.length) throw new ProvenWrong('$.nTx', `answered ${JSON.stringify(answer.nTx)}, the block lists ${lower.length} transactions`);
  const root = merkleRoot(lower);
  const fields = headerFromFields(answer);
  // Which side is wrong when txids and merkle root disagree: the header with the txids' root
  // hashing to the block asked for proves the answered merkleroot field is the altered one.
  if (fields.merkleroot !== root && answer.hash === hash && headerHash(serializeHeader({ ...fields, merkleroot: root })) === hash) {
    throw new ProvenWrong('$.merkleroot', `answered ${fields.merkleroot}, the block's ${lower.length} txids build merkle root ${root}, and the header with that root hashes to block ${hash}`);
  }
  await verifyVerboseHeader(hash, answer, context);
  if (fields.merkleroot !== root) throw new ProvenWrong(`$.${listed}`, `the block's ${lower.length} listed txids build merkle root ${root}, not the proven header's ${fields.merkleroot}`);
  context.memo.set(MEMO.txids(hash), lower);
  return hash;
}

async function verifyBlockHashAnswer(call: IntegrityCall, answer: unknown, context: IntegrityContext): Promise<string> {
  const [heightParam] = call.params;
  if (typeof heightParam !== 'number' || !Number.isSafeInteger(heightParam) || heightParam < 0) throw new NotProvable('getblockhash was not asked for a height');
  if (!isHashHex(answer)) throw new ProvenWrong('$', `answered ${JSON.stringify(answer).slice(0, 80)}, not a block hash`);
  const hash = answer.toLowerCase();
  const height = BigInt(heightParam);
  if (context.anchor === null) {
    // Self-consistency: the endpoint's own header of that block is one (hashes, meets its target)
    // and says it is at that height.
    await fetchedHeader(hash, context, 'to check the answered block exists');
    const verbose = await fetchProof(context, 'getblockheader', [hash, true], 'to check the height the endpoint gives the block');
    if (!isRecord(verbose) || verbose.height !== heightParam) {
      throw new ProvenWrong('$', `answered block ${hash} for height ${heightParam}, but the endpoint's own header of that block says height ${JSON.stringify(isRecord(verbose) ? verbose.height : null)}`);
    }
    return hash;
  }
  await fetchedHeader(hash, context, 'to link the answered block to the anchor');
  await linkToAnchor(hash, height, context, '$');
  return hash;
}

/** The txids of block `hash` whose merkle root is proven against its proven header; memoised. */
async function provenTxids(hash: string, context: IntegrityContext): Promise<string[]> {
  const known = context.memo.get(MEMO.txids(hash)) as string[] | undefined;
  if (known !== undefined) return known;
  const block = await fetchProof(context, 'getblock', [hash, 1], 'to prove the transaction is in it');
  try {
    await verifyBlockAnswer({ method: 'getblock', params: [hash, 1] }, block, context);
  } catch (error) {
    if (error instanceof ProvenWrong) throw new ProvenWrong('$.blockhash', `the endpoint's block ${hash} (getblock, fetched to prove the transaction is in it) is wrong at ${error.path}: ${error.message}`);
    throw error;
  }
  return context.memo.get(MEMO.txids(hash)) as string[];
}

async function verifyTransactionAnswer(call: IntegrityCall, answer: unknown, context: IntegrityContext): Promise<string | null> {
  const [txidParam, verboseParam, blockhashParam] = call.params;
  if (!isHashHex(txidParam)) throw new NotProvable('getrawtransaction was not asked for a txid');
  const txid = txidParam.toLowerCase();
  const verbose = verboseParam === true || (typeof verboseParam === 'number' && verboseParam > 0);
  const proven = verbose ? proveDecodedTransaction(answer, '$') : proveRawTransaction(answer, '$');
  if (proven.txid !== txid) throw new ProvenWrong(verbose ? '$.hex' : '$', `asked for transaction ${txid}, the answered bytes are transaction ${proven.txid}`);
  const answeredBlock = verbose && isRecord(answer) ? answer.blockhash : undefined;
  const block = answeredBlock ?? blockhashParam;
  if (block === undefined || block === null) return null;
  if (!isHashHex(block)) throw new ProvenWrong('$.blockhash', `answered ${JSON.stringify(block).slice(0, 80)}, not a block hash`);
  const blockhash = block.toLowerCase();
  if (isHashHex(blockhashParam) && blockhashParam.toLowerCase() !== blockhash) throw new ProvenWrong('$.blockhash', `asked in block ${blockhashParam}, answered block ${blockhash}`);
  const txids = await provenTxids(blockhash, context);
  const index = txids.indexOf(txid);
  if (index < 0) throw new ProvenWrong('$.blockhash', `transaction ${txid} is not among the ${txids.length} transactions of block ${blockhash}, whose merkle root is proven`);
  const header = context.memo.get(MEMO.header(blockhash)) as BlockHeader;
  const branch = merkleBranch(txids, index);
  const root = rootFromBranch(txid, index, branch);
  if (root !== header.merkleroot) throw new ProvenWrong('$.blockhash', `the merkle branch of transaction ${txid} leads to ${root}, not to block ${blockhash}'s merkle root ${header.merkleroot}`);
  return blockhash;
}

async function verifyAnswer(call: IntegrityCall, answer: unknown, context: IntegrityContext): Promise<string | null> {
  switch (call.method) {
    case 'getblockheader':
      return verifyHeaderAnswer(call, answer, context);
    case 'getblock':
      return verifyBlockAnswer(call, answer, context);
    case 'getblockhash':
      return verifyBlockHashAnswer(call, answer, context);
    case 'getrawtransaction':
      return verifyTransactionAnswer(call, answer, context);
    default:
      throw new NotProvable(bitcoinNotProvable(call.method) ?? `${call.method}: not provable`);
  }
}

function bitcoinNotProvable(method: string): string | null {
  if (PROVABLE.has(method)) return null;
  return `${method}: ${NOT_PROVABLE[method] ?? 'no block commitment covers this method'}`;
}

/** The block an answer names, for findings that stop before the block is proven. */
function blockNamed(call: IntegrityCall, answer: unknown): string | null {
  if (call.method === 'getblockheader' || call.method === 'getblock') return isHashHex(call.params[0]) ? call.params[0].toLowerCase() : null;
  if (call.method === 'getblockhash') return isHashHex(answer) ? answer.toLowerCase() : null;
  if (call.method === 'getrawtransaction') {
    const named = isRecord(answer) ? answer.blockhash : call.params[2];
    return isHashHex(named) ? named.toLowerCase() : null;
  }
  return null;
}

/** The reference's hash of the block at height `number` (getblockhash), the run's anchor; null: it answers none. */
async function anchorAt(call: PinCall, number: bigint): Promise<string | null> {
  const hash = await call('getblockhash', [Number(number)]);
  return typeof hash === 'string' && /^[0-9a-f]{64}$/.test(hash) ? hash : null;
}

export const bitcoinIntegrity: IntegrityVerifier = {
  notProvable: bitcoinNotProvable,
  anchorAt,
  async verify(call, answer, context): Promise<IntegrityFinding> {
    try {
      return { kind: 'proven', block: await verifyAnswer(call, answer, context) };
    } catch (error) {
      if (error instanceof ProvenWrong) return { kind: 'wrong', block: blockNamed(call, answer), path: error.path, message: `${call.method}: ${error.message}` };
      if (error instanceof NotProvable) return { kind: 'not_provable', reason: error.reason };
      return { kind: 'not_provable', reason: `${call.method}: the verifier could not read the answer (${failureMessage(error)})` };
    }
  },
};
