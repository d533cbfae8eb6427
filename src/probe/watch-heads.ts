import type { AnswerEnvelope, ChainHead, HeadRead, HeadSubscription, SubscriptionMessage, SubscriptionState } from '../chains/types';
import { OutboundAddressRefusedError } from '../net/guarded-lookup';
import { BoundedQueue } from './bounded-queue';
import { openWsRpc, type WsCloseReason, type WsRpcConnection, type WsTarget } from './ws-client';

/*
 * Watching an endpoint's head: every new head it announces, with when it arrived on this process's
 * monotonic clock (process.hrtime.bigint(), so heads of several endpoints watched by one process
 * compare). Two ways: `subscribe` (the family's head subscription over the endpoint's WebSocket,
 * heads as the node pushes them) and `poll` (the family's head read over HTTP every interval; an
 * arrival time is then only known to within the interval).
 *
 * Events go through a bounded queue: a consumer that falls behind loses heads (counted in
 * `stats.dropped`), never memory. Connection changes are events too, so a later step can tell the
 * endpoint's silence (disconnected) from a head it never sent.
 */

export type HeadWatchEvent =
  | { kind: 'head'; number: bigint; hash: string | null; receivedAtMonotonicNs: bigint }
  | { kind: 'connected'; atMonotonicNs: bigint }
  | { kind: 'disconnected'; atMonotonicNs: bigint; reason: WsCloseReason | 'connect_failed' | 'subscribe_failed' };

export interface HeadWatchStats {
  /** Connections that ended after they were subscribed (the endpoint's, or a dead link found by ping). */
  disconnects: number;
  /** Subscriptions made again after a disconnect or a failed attempt. */
  reconnects: number;
  /** Attempts to connect or subscribe that failed. */
  failedAttempts: number;
  /** Events the consumer was too slow for. */
  dropped: number;
  /** Messages refused as not JSON, too deep, too many values or binary (the too-large close is a disconnect). */
  invalidMessages: number;
  /** Notifications of the subscription whose result is not a head, and poll answers that are not one. */
  notHeads: number;
  /** Polls that failed (poll only). */
  pollErrors: number;
}

export interface HeadWatch extends AsyncIterable<HeadWatchEvent> {
  readonly stats: Readonly<HeadWatchStats>;
  /** Resolves when the watch has stopped (its signal aborted) and everything is closed. */
  readonly done: Promise<void>;
}

export interface BackoffOptions {
  initialMs: number;
  maxMs: number;
}

const DEFAULT_BACKOFF: BackoffOptions = { initialMs: 250, maxMs: 10_000 };
/** Enough for minutes of one-second blocks while the consumer writes a batch to the database. */
const DEFAULT_MAX_QUEUED = 4_096;
/** A header is about 1 KiB (EVM with blob fields, ~700 bytes): 256 KiB is far more than any head. */
export const MAX_HEAD_MESSAGE_BYTES = 256 * 1024;
/**
 * Notifications that arrive before the subscription's id is known (same read as its answer): kept
 * as their text, never parsed, at most this many and MAX_EARLY_BYTES in all; later ones are dropped
 * (counted in notHeads). Kept parsed, 64 early notifications of 255 KB `[{},…]` held ~350 MB
 * (issue 30, H2); as text they hold at most MAX_EARLY_BYTES, and each is parsed when its turn comes.
 */
export const MAX_EARLY_NOTIFICATIONS = 64;
/** Four head messages at their cap: a real node sends at most a head or two before its answer. */
export const MAX_EARLY_BYTES = 4 * MAX_HEAD_MESSAGE_BYTES;

function newStats(): HeadWatchStats {
  return { disconnects: 0, reconnects: 0, failedAttempts: 0, dropped: 0, invalidMessages: 0, notHeads: 0, pollErrors: 0 };
}

const now = (): bigint => process.hrtime.bigint();

/** Waits `ms`, or less when `signal` aborts. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}

/** Exponential with full jitter, so many watches of one endpoint do not reconnect in step. */
export function backoffDelayMs(attempt: number, backoff: BackoffOptions, random: () => number = Math.random): number {
  const ceiling = Math.min(backoff.maxMs, backoff.initialMs * 2 ** Math.min(attempt, 30));
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}

/** The stats as of now: counts of the connection still open are added to those of the closed ones. */
function watchOf(queue: BoundedQueue<HeadWatchEvent>, stats: HeadWatchStats, done: Promise<void>, current: () => WsRpcConnection | null = () => null): HeadWatch {
  return {
    get stats() {
      return { ...stats, dropped: queue.dropped, invalidMessages: stats.invalidMessages + (current()?.stats.invalidMessages ?? 0) };
    },
    done,
    [Symbol.asyncIterator]: () => queue[Symbol.asyncIterator](),
  };
}

export interface SubscribeOptions {
  target: WsTarget;
  subscription: HeadSubscription;
  envelope: AnswerEnvelope;
  allowPrivateTargets: boolean;
  signal: AbortSignal;
  backoff?: BackoffOptions;
  maxQueued?: number;
  maxMessageBytes?: number;
  pingIntervalMs?: number;
  /** Extra certificate authority to trust for wss (tests, private PKI). */
  ca?: string;
}

/**
 * Subscribes to the endpoint's new heads over its WebSocket until `signal` aborts, connecting again
 * with backoff whenever the connection fails or ends. An address the outbound policy refuses ends
 * the watch: the iteration throws OutboundAddressRefusedError (retrying cannot change the policy).
 */
export function watchHeads(options: SubscribeOptions): HeadWatch {
  const queue = new BoundedQueue<HeadWatchEvent>(options.maxQueued ?? DEFAULT_MAX_QUEUED);
  const stats = newStats();
  const live: { connection: WsRpcConnection | null } = { connection: null };
  const done = runSubscription(options, queue, stats, live).then(
    () => queue.end(),
    (error: unknown) => queue.fail(error),
  );
  return watchOf(queue, stats, done, () => live.connection);
}

async function runSubscription(
  options: SubscribeOptions,
  queue: BoundedQueue<HeadWatchEvent>,
  stats: HeadWatchStats,
  live: { connection: WsRpcConnection | null },
): Promise<void> {
  const { signal, subscription } = options;
  const backoff = options.backoff ?? DEFAULT_BACKOFF;
  let attempt = 0;
  let everSubscribed = false;
  while (!signal.aborted) {
    // Null until the subscribe request is sent: nothing before it is the subscription's.
    let state: SubscriptionState | null = null;
    const early: { text: string; at: bigint }[] = [];
    let earlyBytes = 0;
    /** The family's reading of a message; true when it was the subscription's. */
    const onSubscriptionMessage = (message: SubscriptionMessage, at: bigint, text: string | null): boolean => {
      if (state === null) return false;
      const match = subscription.match(message, state);
      switch (match.kind) {
        case 'not_mine':
          return false;
        case 'head':
          queue.push({ kind: 'head', number: match.head.number, hash: match.head.hash, receivedAtMonotonicNs: at });
          return true;
        case 'not_head':
          stats.notHeads++;
          return true;
        case 'later':
          if (text !== null && early.length < MAX_EARLY_NOTIFICATIONS && earlyBytes + text.length <= MAX_EARLY_BYTES) {
            early.push({ text, at });
            earlyBytes += text.length;
          } else stats.notHeads++;
          return true;
      }
    };
    let connection: WsRpcConnection;
    try {
      connection = await openWsRpc(options.target, {
        allowPrivateTargets: options.allowPrivateTargets,
        envelope: options.envelope,
        maxMessageBytes: options.maxMessageBytes ?? MAX_HEAD_MESSAGE_BYTES,
        ...(options.pingIntervalMs === undefined ? {} : { pingIntervalMs: options.pingIntervalMs }),
        ...(options.ca === undefined ? {} : { ca: options.ca }),
        onMessage: (message, at, text) => onSubscriptionMessage(message, at, text),
      });
    } catch (error) {
      if (error instanceof OutboundAddressRefusedError) throw error;
      stats.failedAttempts++;
      queue.push({ kind: 'disconnected', atMonotonicNs: now(), reason: 'connect_failed' }, true);
      await pause(backoffDelayMs(attempt++, backoff), signal);
      continue;
    }
    live.connection = connection;
    const stop = () => connection.close();
    signal.addEventListener('abort', stop, { once: true });
    const sent = connection.requestWithId(subscription.subscribe.method, subscription.subscribe.params);
    const subscribing: SubscriptionState = { requestId: sent.id, answered: false, result: undefined };
    state = subscribing;
    try {
      const result = await sent.result;
      if (!subscription.accepted(result)) throw new Error('the subscribe answer does not say the subscription took');
      subscribing.result = result;
      subscribing.answered = true;
    } catch {
      state = null;
      signal.removeEventListener('abort', stop);
      connection.close();
      await connection.closed;
      live.connection = null;
      stats.invalidMessages += connection.stats.invalidMessages;
      if (signal.aborted) break;
      stats.failedAttempts++;
      queue.push({ kind: 'disconnected', atMonotonicNs: now(), reason: 'subscribe_failed' }, true);
      await pause(backoffDelayMs(attempt++, backoff), signal);
      continue;
    }
    if (everSubscribed) stats.reconnects++;
    everSubscribed = true;
    attempt = 0;
    queue.push({ kind: 'connected', atMonotonicNs: now() }, true);
    earlyBytes = 0;
    // Within the parse cap: the connection checked each text before handing it over. Asked again
    // now the subscription is answered; one still not the subscription's is not counted.
    for (const { text, at } of early.splice(0)) onSubscriptionMessage(JSON.parse(text) as SubscriptionMessage, at, null);

    // Stopping asks the node to cancel the subscription first, briefly: the close follows anyway.
    signal.removeEventListener('abort', stop);
    const cancel = subscription.cancel(subscribing);
    const unsubscribeAndClose = () => {
      void connection
        .request(cancel.method, cancel.params, 1_000)
        .catch(() => undefined)
        .finally(() => connection.close());
    };
    if (signal.aborted) unsubscribeAndClose();
    else signal.addEventListener('abort', unsubscribeAndClose, { once: true });
    const closed = await connection.closed;
    signal.removeEventListener('abort', unsubscribeAndClose);
    live.connection = null;
    stats.invalidMessages += connection.stats.invalidMessages;
    if (signal.aborted) break;
    stats.disconnects++;
    queue.push({ kind: 'disconnected', atMonotonicNs: now(), reason: closed.reason }, true);
    await pause(backoffDelayMs(attempt++, backoff), signal);
  }
}

export interface PollOptions {
  /** One request whose result the caller needs, over the endpoint's HTTP transport (JsonRpcClient.result). */
  read: (method: string, params: unknown[]) => Promise<unknown>;
  head: HeadRead;
  intervalMs: number;
  signal: AbortSignal;
  maxQueued?: number;
}

const sameHead = (a: ChainHead | null, b: ChainHead): boolean => a !== null && a.number === b.number && a.hash === b.hash;

/**
 * Asks the family's head read every `intervalMs` (at fixed instants from the start; a poll still
 * running at the next instant skips it rather than piling up) until `signal` aborts, and emits a
 * head whenever the answer differs from the last head emitted. Its arrival time is when that
 * answer came back: a head is known at most one interval (plus one answer) after the endpoint had it.
 */
export function pollHeads(options: PollOptions): HeadWatch {
  const queue = new BoundedQueue<HeadWatchEvent>(options.maxQueued ?? DEFAULT_MAX_QUEUED);
  const stats = newStats();
  const done = runPolls(options, queue, stats).then(
    () => queue.end(),
    (error: unknown) => queue.fail(error),
  );
  return watchOf(queue, stats, done);
}

async function runPolls(options: PollOptions, queue: BoundedQueue<HeadWatchEvent>, stats: HeadWatchStats): Promise<void> {
  const { signal, head: read, intervalMs } = options;
  const startMs = performance.now();
  let tick = 0;
  let last: ChainHead | null = null;
  while (!signal.aborted) {
    try {
      const result = await options.read(read.method, read.params);
      const at = now();
      const head = read.parse(result);
      if (head === null) stats.notHeads++;
      else if (!sameHead(last, head)) {
        last = head;
        queue.push({ kind: 'head', number: head.number, hash: head.hash, receivedAtMonotonicNs: at });
      }
    } catch (error) {
      if (error instanceof OutboundAddressRefusedError) throw error;
      stats.pollErrors++;
    }
    tick = Math.max(tick + 1, Math.ceil((performance.now() - startMs) / intervalMs));
    await pause(startMs + tick * intervalMs - performance.now(), signal);
  }
}
