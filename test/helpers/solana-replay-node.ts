import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import path from 'node:path';
import { WebSocketServer, type WebSocket } from 'ws';

/*
 * A Solana JSON-RPC node for tests, on 127.0.0.1, answering from the request/response examples
 * published in Solana's RPC documentation (test/fixtures/solana/rpc-examples.json). No validator
 * can run on these machines; this node stands in for one with what a verifier cares about:
 *  - a slot clock (one slot every `slotMs`, optional skipped slots, a lag in slots), read at a
 *    commitment level (processed = the clock's slot, confirmed and finalized a configurable depth
 *    below it; every read defaults to finalized, as Solana's RPC does);
 *  - `context: { slot, apiVersion }` in the answers that carry one, the slot at the asked
 *    commitment;
 *  - `minContextSlot` above that slot answered with -32016 "Minimum context slot has not been
 *    reached", as a node behind the asker does;
 *  - accounts (getBalance, getAccountInfo, getMultipleAccounts) served from the accounts the
 *    examples show, their data rendered in the asked encoding; the other methods answer their
 *    example for the example's params;
 *  - for the solana-standard preset (the fixture's `preset`, stand-ins that are NOT from the
 *    documentation): the native program accounts it reads, a block at every finalized slot built
 *    from the getBlock example, and getTransaction / getSignatureStatuses for the signature the
 *    getSignaturesForAddress example names;
 *  - a lying variant (lamports altered, an account dropped) and an honest one that returns
 *    getProgramAccounts in another order (its order is undefined);
 *  - a WebSocket on the same port (`wsUrl`) answering the same calls, and `slotSubscribe` /
 *    `rootSubscribe` as the published pages show them (content/docs/en/rpc/websocket/
 *    slotsubscribe.mdx, rootsubscribe.mdx; the examples are in the fixture's `websocket`): the
 *    subscription id as the result, then `slotNotification` with `{ parent, root, slot }` for
 *    every processed slot the clock reaches (skipped slots never notified), `rootNotification`
 *    with the new root (the finalized slot) whenever it moves; `slotUnsubscribe` /
 *    `rootUnsubscribe` answer true.
 */

type Json = Record<string, unknown>;
export type Commitment = 'processed' | 'confirmed' | 'finalized';

export interface RecordedExample {
  page: string;
  params: unknown[];
  result: unknown;
}

const FIXTURE = JSON.parse(readFileSync(path.join(__dirname, '..', 'fixtures', 'solana', 'rpc-examples.json'), 'utf8')) as {
  examples: Record<string, RecordedExample>;
  websocket: Record<string, unknown>;
  preset: { accounts: Record<string, Record<string, unknown>> };
};

export const SOLANA_EXAMPLES: Readonly<Record<string, RecordedExample>> = FIXTURE.examples;

/** The published subscription examples (slotSubscribe, rootSubscribe, …): request params, result and notification. */
export const SOLANA_WS_EXAMPLES = FIXTURE.websocket as Readonly<Record<string, { page: string; params: unknown[]; result: unknown; notification?: Record<string, unknown> }>>;

/** The signature the getSignaturesForAddress example names: the one a solana-standard run pins (the vote program's newest). */
const LISTED_SIGNATURE = (SOLANA_EXAMPLES.getSignaturesForAddress!.result as { signature: string; slot: number; confirmationStatus: string }[])[0]!;

const BASE58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';

/** Base-58 of our own bytes (a synthesized blockhash): never used to read anything. */
function base58(bytes: Uint8Array): string {
  let n = BigInt(`0x${Buffer.from(bytes).toString('hex') || '0'}`);
  let out = '';
  while (n > 0n) {
    out = BASE58[Number(n % 58n)] + out;
    n /= 58n;
  }
  for (const b of bytes) {
    if (b !== 0) break;
    out = `1${out}`;
  }
  return out;
}

/** A blockhash for a synthesized block: 32 bytes derived from the slot, the same on every replay node. */
const blockhashOf = (slot: number): string => base58(createHash('sha256').update(`replay-block-${slot}`).digest());

export interface EpochSchedule {
  slotsPerEpoch: number;
  firstNormalEpoch: number;
  firstNormalSlot: number;
}

export interface SolanaReplayOptions {
  /** Slot (processed) at `genesisMs`; the clock counts from there. */
  startSlot?: number;
  /** Wall-clock ms at which the clock reads `startSlot`: two nodes given the same value are at the same slot. */
  genesisMs?: number;
  slotMs?: number;
  /** A clock that does not tick: the processed slot is always this one. */
  frozenSlot?: number;
  /** Slots this node is behind the clock. */
  lagSlots?: number;
  /** Every slot divisible by this is skipped (no block): the head stays on the slot before, block height does not grow. 0: none. */
  skipEvery?: number;
  /** How far below the processed slot each commitment level is. */
  depth?: { confirmed: number; finalized: number };
  /** `context.apiVersion`; null: contexts carry the slot only (as older nodes answer). */
  apiVersion?: string | null;
  /** Processed slot − block height when no slot was skipped. */
  heightGap?: number;
  epochSchedule?: EpochSchedule;
  transactionCount?: number;
  /** Accounts appended to every getProgramAccounts answer (the example has one; ordering needs more). */
  extraProgramAccounts?: { pubkey: string; account: Json }[];
  /** Honest: getProgramAccounts and getTokenAccountsByOwner answered in reverse order. */
  shuffleProgramAccounts?: boolean;
  /** A lying node: lamports changed by this much in every account and balance it answers. */
  lamportsDelta?: number;
  /** A lying node: the last account of every account list dropped (null in getMultipleAccounts). */
  dropAccount?: boolean;
  /**
   * A node whose ledger starts here (an honest node with less history): getBlock below it answers
   * -32001 "Block {slot} cleaned up, does not exist on node. First available block: {first}" as
   * agave does, and getSignaturesForAddress leaves out signatures below it (a shorter list).
   */
  firstAvailableBlock?: number;
}

export interface SolanaReplayNode {
  url: string;
  /** The same node over WebSocket (calls and subscriptions). */
  wsUrl: string;
  /** Every request received, in order. */
  requests: { method: string; params: unknown[] }[];
  /** This node's slot at a commitment level now. */
  slotAt(commitment?: Commitment): number;
  close(): Promise<void>;
}

const DEFAULTS = {
  startSlot: 341_197_100,
  slotMs: 400,
  lagSlots: 0,
  skipEvery: 0,
  depth: { confirmed: 1, finalized: 32 },
  apiVersion: '2.0.15' as string | null,
  heightGap: 1,
  epochSchedule: { slotsPerEpoch: 8192, firstNormalEpoch: 27, firstNormalSlot: 163_808 },
  transactionCount: 22_661_093,
};

class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

function isRecord(value: unknown): value is Json {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** The params with commitment and minContextSlot left out of config objects, and empty trailing configs dropped: what picks an example. */
function exampleKey(params: unknown[]): string {
  const stripped = params.map((p) => (isRecord(p) ? Object.fromEntries(Object.entries(p).filter(([k]) => k !== 'commitment' && k !== 'minContextSlot')) : p));
  while (stripped.length > 0 && isRecord(stripped[stripped.length - 1]) && Object.keys(stripped[stripped.length - 1] as Json).length === 0) stripped.pop();
  return JSON.stringify(stripped, (_k, v: unknown) => (isRecord(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : 1))) : v));
}

/** Where each method takes its config object (commitment, minContextSlot, encoding). */
const CONFIG_INDEX: Readonly<Record<string, number>> = {
  getSlot: 0,
  getBlockHeight: 0,
  getEpochInfo: 0,
  getLatestBlockhash: 0,
  getBalance: 1,
  getAccountInfo: 1,
  getMultipleAccounts: 1,
  getProgramAccounts: 1,
  getSignaturesForAddress: 1,
  getSignatureStatuses: 1,
  getTokenAccountsByOwner: 2,
  getBlock: 1,
  getTransaction: 1,
};

/** The accounts the examples show, by pubkey, with their data as raw bytes (all of them are empty). */
function exampleAccounts(): Map<string, Json> {
  const accounts = new Map<string, Json>(Object.entries(FIXTURE.preset.accounts));
  const multiple = SOLANA_EXAMPLES.getMultipleAccounts!;
  const keys = multiple.params[0] as string[];
  const values = (multiple.result as { value: Json[] }).value;
  keys.forEach((key, i) => accounts.set(key, values[i]!));
  return accounts;
}

/** Account data in an encoding; the examples' accounts hold no data, which every encoding writes as "" (jsonParsed falls back to base64). */
function renderAccount(account: Json, encoding: string): Json {
  const data = account.data as [string, string];
  if (data[0] !== '') throw new RpcError(-32602, 'the replay node only re-encodes empty account data');
  return { ...account, data: ['', encoding === 'jsonParsed' ? 'base64' : encoding] };
}

export async function startSolanaReplayNode(options: SolanaReplayOptions = {}): Promise<SolanaReplayNode> {
  const o = { ...DEFAULTS, genesisMs: Date.now(), ...options };
  const accounts = exampleAccounts();
  const examples = new Map(Object.entries(SOLANA_EXAMPLES).map(([method, e]) => [`${method} ${exampleKey(e.params)}`, e]));
  const requests: SolanaReplayNode['requests'] = [];

  const isSkipped = (slot: number) => o.skipEvery > 0 && slot % o.skipEvery === 0;
  const clockSlot = () => (o.frozenSlot ?? o.startSlot + Math.floor((Date.now() - o.genesisMs) / o.slotMs)) - o.lagSlots;
  const slotAt = (commitment: Commitment = 'finalized') => {
    let slot = clockSlot() - (commitment === 'processed' ? 0 : o.depth[commitment]);
    while (isSkipped(slot)) slot--;
    return slot;
  };
  const heightAt = (slot: number) => slot - o.heightGap - (o.skipEvery > 0 ? Math.floor(slot / o.skipEvery) : 0);

  const context = (slot: number): Json => (o.apiVersion === null ? { slot } : { apiVersion: o.apiVersion, slot });
  const lie = (account: Json | null): Json | null =>
    account === null || !o.lamportsDelta ? account : { ...account, lamports: (account.lamports as number) + o.lamportsDelta };
  const dropLast = <T>(list: T[]): T[] => (o.dropAccount && list.length > 0 ? list.slice(0, -1) : list);
  const order = <T>(list: T[]): T[] => (o.shuffleProgramAccounts ? [...list].reverse() : list);
  const keyed = (list: { pubkey: string; account: Json }[]) => order(dropLast(list.map((e) => ({ ...e, account: lie(e.account)! }))));

  /**
   * A block at a finalized slot other than the example's: the example block's transactions, its
   * height and parent from the clock, a blockhash derived from the slot. Above the slot at the
   * asked commitment: -32004 (not available yet); a skipped slot: -32009.
   */
  function blockAt(requested: unknown, available: number, config: Json): Json {
    if (typeof requested !== 'number' || !Number.isSafeInteger(requested) || requested < 1) throw new RpcError(-32602, 'Invalid params: slot');
    if (requested > available) throw new RpcError(-32004, `Block not available for slot ${requested}`);
    if (isSkipped(requested)) throw new RpcError(-32009, `Slot ${requested} was skipped, or missing in long-term storage`);
    let parent = requested - 1;
    while (parent > 0 && isSkipped(parent)) parent--;
    const recorded = SOLANA_EXAMPLES.getBlock!.result as Json & { transactions: { transaction: { signatures: string[] } }[] };
    const details = typeof config.transactionDetails === 'string' ? config.transactionDetails : 'full';
    const body =
      details === 'signatures'
        ? { signatures: recorded.transactions.map((t) => t.transaction.signatures[0]) }
        : details === 'none'
          ? {}
          : { transactions: recorded.transactions };
    return {
      blockHeight: heightAt(requested),
      blockTime: null,
      blockhash: blockhashOf(requested),
      parentSlot: parent,
      previousBlockhash: blockhashOf(parent),
      ...body,
      ...(config.rewards === false ? {} : { rewards: [] }),
    };
  }

  function example(method: string, params: unknown[]): RecordedExample | undefined {
    return examples.get(`${method} ${exampleKey(params)}`);
  }

  function answer(method: string, params: unknown[]): unknown {
    const index = CONFIG_INDEX[method];
    const config = index !== undefined && isRecord(params[index]) ? params[index] : {};
    const commitment = (config.commitment ?? 'finalized') as Commitment;
    if (!['processed', 'confirmed', 'finalized'].includes(commitment)) throw new RpcError(-32602, `Invalid params: unknown commitment ${String(commitment)}`);
    const slot = slotAt(commitment);
    if (typeof config.minContextSlot === 'number' && config.minContextSlot > slot) {
      throw new RpcError(-32016, 'Minimum context slot has not been reached', { contextSlot: slot });
    }
    const encoding = typeof config.encoding === 'string' ? config.encoding : 'base64';
    switch (method) {
      case 'getSlot':
        return slot;
      case 'getBlockHeight':
        return heightAt(slot);
      case 'getEpochInfo': {
        const { slotsPerEpoch, firstNormalEpoch, firstNormalSlot } = o.epochSchedule;
        const since = slot - firstNormalSlot;
        return {
          absoluteSlot: slot,
          blockHeight: heightAt(slot),
          epoch: firstNormalEpoch + Math.floor(since / slotsPerEpoch),
          slotIndex: ((since % slotsPerEpoch) + slotsPerEpoch) % slotsPerEpoch,
          slotsInEpoch: slotsPerEpoch,
          transactionCount: o.transactionCount,
        };
      }
      case 'getBalance': {
        const account = lie(accounts.get(params[0] as string) ?? null);
        return { context: context(slot), value: account === null ? 0 : account.lamports };
      }
      case 'getAccountInfo': {
        const account = accounts.get(params[0] as string);
        return { context: context(slot), value: account ? lie(renderAccount(account, encoding)) : null };
      }
      case 'getMultipleAccounts': {
        const keys = Array.isArray(params[0]) ? (params[0] as string[]) : [];
        const value = keys.map((key) => {
          const account = accounts.get(key);
          return account ? lie(renderAccount(account, encoding)) : null;
        });
        if (o.dropAccount && value.length > 0) value[value.length - 1] = null;
        return { context: context(slot), value };
      }
      case 'getProgramAccounts': {
        const recorded = example(method, params);
        if (!recorded) return [];
        const list = keyed([...(recorded.result as { pubkey: string; account: Json }[]), ...(o.extraProgramAccounts ?? [])]);
        return config.withContext === true ? { context: context(slot), value: list } : list;
      }
      case 'getTokenAccountsByOwner': {
        const recorded = example(method, params);
        return { context: context(slot), value: recorded ? keyed((recorded.result as { value: { pubkey: string; account: Json }[] }).value) : [] };
      }
      case 'getSignaturesForAddress': {
        const recorded = SOLANA_EXAMPLES.getSignaturesForAddress!;
        if (params[0] !== recorded.params[0]) return [];
        const limit = typeof config.limit === 'number' ? config.limit : 1000;
        const kept = (recorded.result as { slot: number }[]).filter((s) => o.firstAvailableBlock === undefined || s.slot >= o.firstAvailableBlock);
        return kept.slice(0, limit);
      }
      case 'getSignatureStatuses': {
        const recorded = example(method, params);
        const statusOf = (sig: unknown) =>
          sig === (SOLANA_EXAMPLES.getSignatureStatuses!.params[0] as string[])[0]
            ? (SOLANA_EXAMPLES.getSignatureStatuses!.result as { value: unknown[] }).value[0]
            : sig === LISTED_SIGNATURE.signature
              ? { slot: LISTED_SIGNATURE.slot, confirmations: null, err: null, status: { Ok: null }, confirmationStatus: LISTED_SIGNATURE.confirmationStatus }
              : null;
        const value = recorded ? (recorded.result as { value: unknown[] }).value : (Array.isArray(params[0]) ? params[0] : []).map(statusOf);
        return { context: context(slot), value };
      }
      case 'getTransaction':
        return params[0] === SOLANA_EXAMPLES.getTransaction!.params[0] || params[0] === LISTED_SIGNATURE.signature ? SOLANA_EXAMPLES.getTransaction!.result : null;
      case 'getBlock': {
        if (o.firstAvailableBlock !== undefined && typeof params[0] === 'number' && params[0] < o.firstAvailableBlock) {
          throw new RpcError(-32001, `Block ${params[0]} cleaned up, does not exist on node. First available block: ${o.firstAvailableBlock}`);
        }
        const recorded = example(method, params);
        if (recorded) return recorded.result;
        return blockAt(params[0], slot, config);
      }
      case 'getLatestBlockhash':
        return { context: context(slot), value: (SOLANA_EXAMPLES.getLatestBlockhash!.result as { value: unknown }).value };
      case 'getVersion':
      case 'getHealth':
        return SOLANA_EXAMPLES[method]!.result;
      default:
        throw new RpcError(-32601, 'Method not found');
    }
  }

  function reply(request: unknown): Json {
    const { id = null, method, params } = isRecord(request) ? request : {};
    if (typeof method !== 'string') return { jsonrpc: '2.0', error: { code: -32600, message: 'Invalid request' }, id };
    const list = Array.isArray(params) ? params : [];
    requests.push({ method, params: list });
    try {
      return { jsonrpc: '2.0', result: answer(method, list), id };
    } catch (error) {
      if (!(error instanceof RpcError)) throw error;
      return { jsonrpc: '2.0', error: { code: error.code, message: error.message, ...(error.data === undefined ? {} : { data: error.data }) }, id };
    }
  }

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      let body: unknown;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32700, message: 'Parse error' }, id: null }));
        return;
      }
      const out = Array.isArray(body) ? body.map(reply) : reply(body);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(out));
    });
  });
  // Subscriptions: per socket, id → kind. Notifications are sent from one slot clock timer.
  const wss = new WebSocketServer({ server });
  const subscriptions = new Map<WebSocket, Map<number, 'slot' | 'root'>>();
  let nextSubscription = 0;
  const SUBSCRIBE: Readonly<Record<string, 'slot' | 'root'>> = { slotSubscribe: 'slot', rootSubscribe: 'root' };
  const UNSUBSCRIBE: Readonly<Record<string, 'slot' | 'root'>> = { slotUnsubscribe: 'slot', rootUnsubscribe: 'root' };
  function wsReply(socket: WebSocket, request: unknown): Json {
    const { id = null, method, params } = isRecord(request) ? request : {};
    const own = subscriptions.get(socket)!;
    if (typeof method === 'string' && SUBSCRIBE[method]) {
      requests.push({ method, params: Array.isArray(params) ? params : [] });
      const subscription = nextSubscription++;
      own.set(subscription, SUBSCRIBE[method]);
      return { jsonrpc: '2.0', result: subscription, id };
    }
    if (typeof method === 'string' && UNSUBSCRIBE[method]) {
      requests.push({ method, params: Array.isArray(params) ? params : [] });
      const subscription = Array.isArray(params) ? params[0] : undefined;
      if (typeof subscription !== 'number' || own.get(subscription) !== UNSUBSCRIBE[method]) {
        return { jsonrpc: '2.0', error: { code: -32602, message: 'Invalid subscription id.' }, id };
      }
      own.delete(subscription);
      return { jsonrpc: '2.0', result: true, id };
    }
    return reply(request);
  }
  wss.on('connection', (socket) => {
    subscriptions.set(socket, new Map());
    socket.on('close', () => subscriptions.delete(socket));
    socket.on('message', (data) => {
      let body: unknown;
      try {
        body = JSON.parse(String(data));
      } catch {
        socket.send(JSON.stringify({ jsonrpc: '2.0', error: { code: -32700, message: 'Parse error' }, id: null }));
        return;
      }
      socket.send(JSON.stringify(Array.isArray(body) ? body.map((r) => wsReply(socket, r)) : wsReply(socket, body)));
    });
  });
  const notify = (kind: 'slot' | 'root', result: unknown) => {
    for (const [socket, own] of subscriptions) {
      for (const [subscription, k] of own) {
        if (k === kind) socket.send(JSON.stringify({ jsonrpc: '2.0', method: `${kind}Notification`, params: { result, subscription } }));
      }
    }
  };
  let [lastSlot, lastRoot] = [slotAt('processed'), slotAt('finalized')];
  const clock = setInterval(() => {
    const [slot, root] = [slotAt('processed'), slotAt('finalized')];
    // Every processed slot reached since the last tick, in order (a late timer skips none).
    let parent = lastSlot;
    for (let s = lastSlot + 1; s <= slot; s++) {
      if (isSkipped(s)) continue;
      notify('slot', { parent, root: Math.min(root, s), slot: s });
      parent = s;
    }
    if (root > lastRoot) notify('root', root);
    [lastSlot, lastRoot] = [Math.max(lastSlot, slot), Math.max(lastRoot, root)];
  }, Math.max(5, Math.floor(o.slotMs / 8)));

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('replay node has no port');
  return {
    url: `http://127.0.0.1:${address.port}/`,
    wsUrl: `ws://127.0.0.1:${address.port}/`,
    requests,
    slotAt,
    close: () =>
      new Promise<void>((resolve) => {
        clearInterval(clock);
        for (const socket of wss.clients) socket.terminate();
        wss.close();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The replay nodes one test file starts: `start` them in its tests, `closeAll` in its afterAll. */
export function replayNodePool(): { start(options?: SolanaReplayOptions): Promise<SolanaReplayNode>; closeAll(): Promise<void> } {
  const nodes: SolanaReplayNode[] = [];
  return {
    async start(options = {}) {
      const node = await startSolanaReplayNode(options);
      nodes.push(node);
      return node;
    },
    async closeAll() {
      await Promise.all(nodes.splice(0).map((n) => n.close()));
    },
  };
}

const [EXAMPLE_PUBKEY_A, EXAMPLE_PUBKEY_B] = SOLANA_EXAMPLES.getMultipleAccounts!.params[0] as string[];
/** Reads of the two accounts getMultipleAccounts' published example names: answers that carry context.slot. */
export const EXAMPLE_ACCOUNT_READS = [
  { method: 'getBalance', params: [EXAMPLE_PUBKEY_A], weight: 1 },
  { method: 'getAccountInfo', params: [EXAMPLE_PUBKEY_A, { encoding: 'base64' }], weight: 1 },
  { method: 'getMultipleAccounts', params: [[EXAMPLE_PUBKEY_A, EXAMPLE_PUBKEY_B], { encoding: 'base64' }], weight: 1 },
];
