import {
  classifyMethodAnswer,
  evidenceOf,
  largestAccepted,
  namespacesOf,
  numbersIn,
  oldestHeld,
  ProfileBudgetSpent,
  type ArchiveCheck,
  type EndpointProfile,
  type HeightCheck,
  type ProfileAnswer,
  type ProfileCall,
  type SizeProbe,
} from '../../domain/endpoint-profile';
import type { ProfileDiscovery, ProfileDiscoveryInput } from '../types';

/*
 * The EVM endpoint profile (issue 35): methods and namespaces from a catalog of harmless calls,
 * archive depth by value, eth_getLogs range and result caps, and the `safe`/`finalized` tags.
 * Every call goes through the budgeted, paced `call` the engine hands over; nothing here calls a
 * state-changing method (no eth_sendRawTransaction/eth_sendTransaction, personal_*, miner_*, admin_*
 * writes, no debug_setHead or the like).
 */

const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000';
/** A topic no event has: a getLogs range probe filtered by it answers [] (bloom filters skip the blocks). */
const NEVER_TOPIC = `0x${'f'.repeat(64)}`;

/**
 * The catalog: one harmless, cheap call per method. "Cheap" means the node answers from one header,
 * the genesis block (which carries no transactions) or a counter, never from a scan or a re-execution
 * of a full block. Each is read-only; simulations (eth_call, eth_estimateGas, eth_createAccessList)
 * run an empty call to the zero address, which executes no code.
 */
export const EVM_PROFILE_CATALOG: readonly { method: string; params: unknown[] }[] = [
  { method: 'eth_chainId', params: [] },
  { method: 'eth_blockNumber', params: [] },
  { method: 'eth_syncing', params: [] },
  { method: 'eth_gasPrice', params: [] },
  { method: 'eth_maxPriorityFeePerGas', params: [] },
  { method: 'eth_blobBaseFee', params: [] },
  // One block of fee history with no percentiles: a header read.
  { method: 'eth_feeHistory', params: ['0x1', 'latest', []] },
  { method: 'eth_getBlockByNumber', params: ['0x0', false] },
  // Genesis has no transactions: an empty list, whatever the chain.
  { method: 'eth_getBlockReceipts', params: ['0x0'] },
  { method: 'eth_getBalance', params: [ZERO_ADDRESS, 'latest'] },
  { method: 'eth_getCode', params: [ZERO_ADDRESS, 'latest'] },
  { method: 'eth_getStorageAt', params: [ZERO_ADDRESS, '0x0', 'latest'] },
  // A proof of one account with no storage keys: a handful of trie nodes.
  { method: 'eth_getProof', params: [ZERO_ADDRESS, [], 'latest'] },
  { method: 'eth_call', params: [{ to: ZERO_ADDRESS, data: '0x' }, 'latest'] },
  { method: 'eth_estimateGas', params: [{ from: ZERO_ADDRESS, to: ZERO_ADDRESS, data: '0x' }] },
  { method: 'eth_createAccessList', params: [{ from: ZERO_ADDRESS, to: ZERO_ADDRESS, data: '0x' }, 'latest'] },
  { method: 'net_version', params: [] },
  { method: 'net_listening', params: [] },
  { method: 'net_peerCount', params: [] },
  { method: 'web3_clientVersion', params: [] },
  // The genesis header, RLP-encoded: one header read (geth, reth).
  { method: 'debug_getRawHeader', params: ['0x0'] },
  // The traces of genesis, which has no transactions: nothing is re-executed (erigon, nethermind, reth).
  { method: 'trace_block', params: ['0x0'] },
  // Two counters, never the pool's content (txpool_content may be megabytes).
  { method: 'txpool_status', params: [] },
  { method: 'erigon_blockNumber', params: [] },
  { method: 'ots_getApiLevel', params: [] },
  // Read-only; its answer is never kept (it names the node's enode and addresses), only whether it came.
  { method: 'admin_nodeInfo', params: [] },
];

/**
 * Texts by which EVM nodes say the state of a block is not held (pruned or beyond their history),
 * geth v1.16's among them: "missing trie node …" (hash scheme), "header not found", "historical
 * state %x is not available", "state %#x is not available", "historical state has been pruned,
 * first: …" and "metadata is not found, N" (path scheme, below the kept state history,
 * triedb/pathdb), "required historical state unavailable" (tracers); "pruned" and "old data not
 * available" of other clients and providers. geth's "state histories haven't been fully indexed
 * yet" is not among them: the node is still indexing, which says nothing of its depth.
 */
const NOT_HELD_TEXT =
  /missing trie node|header not found|historical state|state [^ ]{0,80} ?is not available|state[^.]{0,40}unavailable|metadata is not found|pruned|pruning|old data not available|not available in (the )?database|unknown block|block not found/i;

/** Whether an answer says the state asked for is not held (an error with one of the not-held texts). */
export function isNotHeld(answer: ProfileAnswer): boolean {
  if (answer.kind === 'rpc_error') return NOT_HELD_TEXT.test(answer.message);
  if (answer.kind === 'http_error') return NOT_HELD_TEXT.test(answer.body);
  return false;
}

/** What a getLogs refusal names as its limit: the block range, the result count, or neither. */
export function logsLimitOf(message: string): 'range' | 'results' | 'other' {
  if (/results?|response size|too many logs|logs? (limit|count)/i.test(message)) return 'results';
  if (/range|blocks?|exceed|too (wide|large|big)/i.test(message)) return 'range';
  return 'other';
}

/** A rate limit, a timeout or a broken connection: says nothing about a size. */
function isTransient(answer: ProfileAnswer): boolean {
  if (answer.kind === 'transport') return true;
  if (answer.kind === 'http_error') return answer.status === 429 || answer.status >= 500;
  if (answer.kind === 'rpc_error') return answer.httpStatus === 429 || /rate.?limit|too many requests|capacity|try again later|timeout|timed out/i.test(answer.message);
  return false;
}

/** The caps a result refusal names ("more than 10000 results", "limit of 10000", "max 10000"), never the block numbers it suggests. */
export function resultCapsNamed(message: string): number[] {
  return [...message.matchAll(/(?:more than|limit(?: of)?|max(?:imum)?(?: of)?|exceeds?|at most)\s*:?\s*(\d{1,12})\b/gi)].map((m) => Number(m[1]));
}

const hex = (n: number) => `0x${n.toString(16)}`;

function quantity(value: unknown): number | null {
  if (typeof value !== 'string' || !/^0x[0-9a-f]{1,15}$/i.test(value)) return null;
  const n = Number(value);
  return Number.isSafeInteger(n) ? n : null;
}

const messageOf = (answer: ProfileAnswer) => evidenceOf(answer)?.message ?? '';

class Discovery {
  readonly profile: EndpointProfile;
  private readonly call: ProfileCall;
  private readonly reference: ProfileCall | null;

  constructor(private readonly input: ProfileDiscoveryInput) {
    this.call = input.call;
    this.reference = input.reference;
    this.profile = {
      family: 'evm',
      head: null,
      methods: {},
      namespaces: [],
      archive: { kind: 'unknown', oldest_correct_block: null, checked_blocks: [], evidence: [] },
      logs: { max_block_range: null, max_results: null, searched_up_to_blocks: null, evidence: [] },
      finality: {},
      subscriptions: null,
      requests_used: 0,
      reference_requests_used: 0,
      budget: input.budget,
      inconclusive_reasons: [],
    };
  }

  async run(): Promise<EndpointProfile> {
    const phases: [string, () => Promise<void>][] = [
      ['head', () => this.head()],
      ['methods', () => this.methods()],
      ['finality', () => this.finality()],
      ['archive', () => this.archive()],
      ['logs', () => this.logs()],
    ];
    for (const [name, phase] of phases) {
      try {
        await phase();
      } catch (error) {
        if (!(error instanceof ProfileBudgetSpent)) throw error;
        this.profile.inconclusive_reasons.push(`${name}: the request budget (${error.budget}) was spent`);
        if (name === 'head') break;
      }
    }
    this.profile.namespaces = namespacesOf(this.profile.methods);
    this.profile.inconclusive_reasons.push(
      'subscriptions: not discovered (needs a WebSocket connection; this discovery speaks HTTP only)',
    );
    const used = this.input.used();
    this.profile.requests_used = used.endpoint;
    this.profile.reference_requests_used = used.reference;
    return this.profile;
  }

  private async head(): Promise<void> {
    const answer = await this.call('eth_blockNumber', []);
    const head = answer.kind === 'result' ? quantity(answer.result) : null;
    if (head === null) this.profile.inconclusive_reasons.push(`head: eth_blockNumber answered no block number (${messageOf(answer) || 'a result that is no quantity'})`);
    this.profile.head = head;
  }

  private async methods(): Promise<void> {
    for (const { method } of EVM_PROFILE_CATALOG) this.profile.methods[method] = { support: 'error', evidence: null };
    for (const { method, params } of EVM_PROFILE_CATALOG) {
      const answer = await this.call(method, params);
      this.profile.methods[method] = { support: classifyMethodAnswer(answer), evidence: evidenceOf(answer) };
    }
    const unknown = Object.entries(this.profile.methods).filter(([, m]) => m.support === 'error').length;
    if (unknown > 0) this.profile.inconclusive_reasons.push(`methods: ${unknown} of ${EVM_PROFILE_CATALOG.length} answered an error that says nothing of the method`);
  }

  private async finality(): Promise<void> {
    const head = this.profile.head;
    for (const tag of ['safe', 'finalized']) {
      const answer = await this.call('eth_getBlockByNumber', [tag, false]);
      const number = answer.kind === 'result' && answer.result !== null && typeof answer.result === 'object' ? quantity((answer.result as { number?: unknown }).number) : null;
      this.profile.finality[tag] = {
        supported: number !== null,
        lag_blocks: number !== null && head !== null ? Math.max(0, head - number) : null,
        evidence: evidenceOf(answer),
      };
    }
  }

  /**
   * Archive depth by value. The truth at height t comes from the chain itself: the first
   * transaction of the first non-empty block b > t names its sender S and nonce k, so S's nonce at
   * every height t..b-1 is exactly k (empty blocks change no nonce). The endpoint's
   * eth_getTransactionCount(S, t) must answer k (blocks b ≤ t + 6 are looked at); an answer equal to S's latest nonce instead is the
   * latest state served for history. With a reference, the transaction is read from the reference.
   */
  private async archive(): Promise<void> {
    const head = this.profile.head;
    const archive = this.profile.archive;
    if (head === null || head < 1) {
      this.profile.inconclusive_reasons.push('archive: no head above genesis to check history below');
      return;
    }
    // The top: the newest height below a block with a transaction (dev chains seal empty blocks).
    let top: number | null = null;
    for (let b = head; b >= Math.max(1, head - 7) && top === null; b -= 1) {
      const tx = await this.firstTransaction(b);
      if (tx !== null && typeof tx !== 'string') top = b - 1;
    }
    if (top === null) {
      this.profile.inconclusive_reasons.push(`archive: no transaction in the ${Math.min(8, head)} newest blocks to check history by`);
      return;
    }
    let latestAnswered = false;
    const check = async (t: number): Promise<HeightCheck> => {
      const outcome = await this.checkHeight(t, head);
      archive.evidence.push(outcome);
      if (outcome.outcome === 'wrong' && outcome.detail.startsWith('the latest value')) latestAnswered = true;
      return outcome.outcome;
    };
    const found = await oldestHeld(check, { floor: 0, top, maxChecks: 40 });
    archive.checked_blocks = found.checked;
    if (found.oldest === null) {
      archive.kind = latestAnswered ? 'latest_for_history' : 'unknown';
      if (!latestAnswered) this.profile.inconclusive_reasons.push(`archive: the state at block ${top}, below the head's newest transaction, was not answered correctly`);
      return;
    }
    archive.oldest_correct_block = found.oldest;
    if (!found.exact) {
      archive.kind = 'unknown';
      this.profile.inconclusive_reasons.push(`archive: the search stopped${found.stoppedAt === null ? '' : ` at block ${found.stoppedAt}`} without an exact depth (held at least from ${found.oldest})`);
      return;
    }
    archive.kind = found.oldest === 0 ? 'full' : 'window';
  }

  /** Block b's first transaction's sender and nonce, from the reference when there is one (null: no transaction; a string: why not read). */
  private readonly transactions = new Map<number, { sender: string; nonce: number } | null | string>();
  private async firstTransaction(b: number): Promise<{ sender: string; nonce: number } | null | string> {
    const known = this.transactions.get(b);
    if (known !== undefined) return known;
    const tx = await (this.reference ?? this.call)('eth_getTransactionByBlockNumberAndIndex', [hex(b), '0x0']);
    let found: { sender: string; nonce: number } | null | string;
    if (tx.kind !== 'result') found = `block ${b}'s first transaction not read: ${messageOf(tx)}`;
    else if (tx.result === null) found = null;
    else {
      const body = tx.result as { from?: unknown; nonce?: unknown };
      const nonce = quantity(body.nonce);
      found = typeof body.from === 'string' && /^0x[0-9a-f]{40}$/i.test(body.from) && nonce !== null ? { sender: body.from, nonce } : `block ${b}'s first transaction has no sender and nonce`;
    }
    this.transactions.set(b, found);
    return found;
  }

  private async checkHeight(t: number, head: number): Promise<ArchiveCheck> {
    let sender: string | null = null;
    let nonce: number | null = null;
    for (let b = t + 1; b <= Math.min(head, t + 6); b += 1) {
      const tx = await this.firstTransaction(b);
      if (typeof tx === 'string') return { height: t, outcome: 'error', detail: tx };
      if (tx === null) continue;
      ({ sender, nonce } = tx);
      break;
    }
    if (sender === null || nonce === null) {
      return this.checkByAccounts(t);
    }
    const answer = await this.call('eth_getTransactionCount', [sender, hex(t)]);
    if (answer.kind !== 'result') {
      return { height: t, outcome: isNotHeld(answer) ? 'not_held' : 'error', detail: messageOf(answer) };
    }
    const said = quantity(answer.result);
    if (said === nonce && nonce === 0) return this.checkFunded(t, sender);
    if (said === nonce) return { height: t, outcome: 'correct', detail: `nonce ${nonce} of ${sender}` };
    const latest = await this.call('eth_getTransactionCount', [sender, 'latest']);
    const latestNonce = latest.kind === 'result' ? quantity(latest.result) : null;
    if (said !== null && latestNonce !== null && said === latestNonce && latestNonce !== nonce) {
      return { height: t, outcome: 'wrong', detail: `the latest value: nonce ${said} of ${sender} where the chain says ${nonce}` };
    }
    return { height: t, outcome: 'wrong', detail: `nonce ${String(said)} of ${sender} where the chain says ${nonce}` };
  }

  /**
   * Nonce 0 is also what an empty (pruned, zero-filled) state answers for every account; the sender
   * then paid for its transaction, so its balance at t is not 0 (chains without gas fees would
   * read as wrong here).
   */
  private async checkFunded(t: number, sender: string): Promise<ArchiveCheck> {
    const balance = await this.call('eth_getBalance', [sender, hex(t)]);
    if (balance.kind !== 'result') return { height: t, outcome: isNotHeld(balance) ? 'not_held' : 'error', detail: messageOf(balance) };
    const value = typeof balance.result === 'string' && /^0x[0-9a-f]+$/i.test(balance.result) ? BigInt(balance.result) : null;
    if (value === null) return { height: t, outcome: 'error', detail: 'eth_getBalance answered no quantity' };
    return value > 0n
      ? { height: t, outcome: 'correct', detail: `nonce 0 and a funded balance of ${sender}` }
      : { height: t, outcome: 'wrong', detail: `nonce 0 and balance 0 of ${sender}, which paid for a later transaction: an empty state` };
  }

  /** No transaction near t: the callers' accounts, compared by balance with the reference (none: no check). */
  private async checkByAccounts(t: number): Promise<ArchiveCheck> {
    const account = this.input.accounts[0];
    if (this.reference === null || account === undefined) {
      return { height: t, outcome: 'error', detail: 'no transaction within 6 blocks above and no reference account to check by' };
    }
    const truth = await this.reference('eth_getBalance', [account, hex(t)]);
    if (truth.kind !== 'result') return { height: t, outcome: 'error', detail: `reference: ${messageOf(truth)}` };
    const answer = await this.call('eth_getBalance', [account, hex(t)]);
    if (answer.kind !== 'result') return { height: t, outcome: isNotHeld(answer) ? 'not_held' : 'error', detail: messageOf(answer) };
    return answer.result === truth.result
      ? { height: t, outcome: 'correct', detail: `balance of ${account}` }
      : { height: t, outcome: 'wrong', detail: `balance of ${account} differs from the reference's` };
  }

  private async logs(): Promise<void> {
    const head = this.profile.head;
    const logs = this.profile.logs;
    if (head === null) return;
    const chainLength = head + 1;
    const maxRange = Math.min(chainLength, 1_000_000);
    logs.searched_up_to_blocks = maxRange;
    let lastRefusal = '';
    const keep = (answer: ProfileAnswer, limit: 'range' | 'results' | 'other') => {
      const evidence = evidenceOf(answer);
      if (evidence !== null && logs.evidence.length < 4 && !logs.evidence.some((e) => e.message === evidence.message && e.limit === limit)) logs.evidence.push({ ...evidence, limit });
    };
    const hints = () => numbersIn(lastRefusal).flatMap((n) => [n, n + 1]);

    // The range cap: ranges ending at the head, filtered by a topic no log has (answers are []).
    const range = await largestAccepted(
      async (size): Promise<SizeProbe> => {
        const answer = await this.call('eth_getLogs', [{ fromBlock: hex(head - size + 1), toBlock: hex(head), topics: [NEVER_TOPIC] }]);
        if (answer.kind === 'result') return Array.isArray(answer.result) ? 'accepted' : 'inconclusive';
        if (isTransient(answer)) {
          keep(answer, 'other');
          return 'inconclusive';
        }
        lastRefusal = messageOf(answer);
        keep(answer, logsLimitOf(lastRefusal) === 'results' ? 'results' : 'range');
        return 'refused';
      },
      { start: Math.min(128, maxRange), max: maxRange, maxProbes: 30, hints },
    );
    if (!range.exact) this.profile.inconclusive_reasons.push(`logs: the block range cap was not found exactly (accepted ${String(range.largest)}, refused ${String(range.smallestRefused)})`);
    logs.max_block_range = range.smallestRefused === null ? null : range.largest;
    if (range.largest === null) return;

    // The result cap: every log of ranges ending at the head, growing until a refusal or MAX_COUNTED logs.
    const MAX_COUNTED = 20_000;
    let mostAccepted = 0;
    let resultRefusal: string | null = null;
    lastRefusal = '';
    const results = await largestAccepted(
      async (size): Promise<SizeProbe> => {
        const answer = await this.call('eth_getLogs', [{ fromBlock: hex(head - size + 1), toBlock: hex(head) }]);
        if (answer.kind === 'result') {
          if (!Array.isArray(answer.result)) return 'inconclusive';
          mostAccepted = Math.max(mostAccepted, answer.result.length);
          return answer.result.length >= MAX_COUNTED ? 'inconclusive' : 'accepted';
        }
        if (isTransient(answer) || logsLimitOf(messageOf(answer)) !== 'results') {
          keep(answer, isTransient(answer) ? 'other' : logsLimitOf(messageOf(answer)));
          return 'inconclusive';
        }
        lastRefusal = resultRefusal = messageOf(answer);
        keep(answer, 'results');
        return 'refused';
      },
      { start: 1, max: range.largest, maxProbes: 30, hints: () => [] },
    );
    if (resultRefusal === null) return;
    const named = resultCapsNamed(resultRefusal).filter((n) => n >= mostAccepted);
    logs.max_results = named.length > 0 ? Math.min(...named) : mostAccepted;
    if (!results.exact) this.profile.inconclusive_reasons.push(`logs: the result cap rests on the endpoint's text and ${mostAccepted} results accepted, not an exact search`);
  }
}

export const evmProfile: ProfileDiscovery = {
  discover: (input) => new Discovery(input).run(),
};
