import type { ChainHead, HeadMatch, HeadSubscription, SubscriptionMessage } from './types';

/*
 * The two shapes of head subscription whose events are JSON-RPC notifications (a `method`, no id),
 * as helpers a family builds its HeadSubscription from. A family whose events come some other way
 * (CometBFT: answers carrying the subscribe request's id) implements the hooks itself.
 */

/** A head subscription whose events are notifications of one method, with what they were built from. */
export interface NotificationSubscription extends HeadSubscription {
  unsubscribe: string;
  notification: string;
  scope: 'subscription' | 'connection';
  /** The head in a notification: its `result` (by subscription) or its whole `params` (by connection); null: not a head. */
  parse(result: unknown): ChainHead | null;
}

const NOT_MINE: HeadMatch = { kind: 'not_mine' };
const LATER: HeadMatch = { kind: 'later' };
const NOT_HEAD: HeadMatch = { kind: 'not_head' };

const headMatch = (head: ChainHead | null): HeadMatch => (head === null ? NOT_HEAD : { kind: 'head', head });

const isNotification = (message: SubscriptionMessage, method: string): boolean =>
  message.method === method && (message.id === undefined || message.id === null);

/**
 * eth_subscribe's way (Solana's slotSubscribe and rootSubscribe too): the request's result is a
 * subscription id, each event is `{ method: notification, params: { subscription, result } }`,
 * `parse` reads `result`, and the cancel is asked with `[id]`. An event naming another
 * subscription is not this one's; one arriving before the id is known is asked again once it is.
 */
export function notificationsBySubscriptionId(spec: {
  subscribe: { method: string; params: unknown[] };
  unsubscribe: string;
  notification: string;
  parse(result: unknown): ChainHead | null;
}): NotificationSubscription {
  return {
    ...spec,
    scope: 'subscription',
    accepted: (result) => typeof result === 'string' || typeof result === 'number',
    cancel: (state) => ({ method: spec.unsubscribe, params: [state.result] }),
    match(message, state) {
      if (!isNotification(message, spec.notification)) return NOT_MINE;
      if (!state.answered) return LATER;
      const { subscription, result } = (message.params ?? {}) as { subscription?: unknown; result?: unknown };
      if (subscription !== state.result) return NOT_MINE;
      return headMatch(spec.parse(result));
    },
  };
}

/**
 * btcd's notifyblocks way: the request answers no id (null), every notification of the method on
 * the connection is the subscription's, `parse` reads the whole `params` (positional), and the
 * cancel takes no params.
 */
export function notificationsByConnection(spec: {
  subscribe: { method: string; params: unknown[] };
  unsubscribe: string;
  notification: string;
  parse(params: unknown): ChainHead | null;
}): NotificationSubscription {
  return {
    ...spec,
    scope: 'connection',
    accepted: () => true,
    cancel: () => ({ method: spec.unsubscribe, params: [] }),
    match(message, state) {
      if (!isNotification(message, spec.notification)) return NOT_MINE;
      if (!state.answered) return LATER;
      return headMatch(spec.parse(message.params));
    },
  };
}
