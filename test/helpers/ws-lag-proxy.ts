import WebSocket, { WebSocketServer } from 'ws';

/*
 * A WebSocket proxy on 127.0.0.1 that the tests own, in front of a node's WebSocket (loopback
 * only): it forwards every message both ways and can delay what the node sends by a known amount,
 * drop every connection, or send its clients messages the node never sent (oversized, too deep,
 * a flood of notifications of the subscription it saw opened).
 */

export interface WsLagProxy {
  url: string;
  /** Delay, from now on, of every message from the node to the clients. */
  setDelayMs(ms: number): void;
  /** From now on, drops every nth subscription notification (eth_subscription) the node sends; 0 drops none. */
  setDropEveryNth(n: number): void;
  /**
   * While set, withholds every subscription notification (dropped, the socket kept open and every
   * other message forwarded): a subscription that silently stops, as a stalled node's does.
   */
  setHeld(held: boolean): void;
  /** Subscription notifications withheld or dropped so far. */
  notificationsDropped(): number;
  /** Ends every client connection at once (TCP destroyed, no close frame), as a crashing server does. */
  dropAll(): void;
  /** Sends `data` as one text message to every connected client. */
  inject(data: string): void;
  /** The id of the last subscription a client opened through the proxy (from the node's answer). */
  subscriptionId(): string | null;
  /** Connections accepted so far. */
  connections(): number;
  close(): Promise<void>;
}

export async function startWsLagProxy(upstreamUrl: string, options: { delayMs?: number; dropEveryNth?: number } = {}): Promise<WsLagProxy> {
  const host = new URL(upstreamUrl).hostname;
  if (host !== '127.0.0.1' && host !== '[::1]' && host !== 'localhost') throw new Error(`proxy upstream must be loopback, got ${host}`);
  let delayMs = options.delayMs ?? 0;
  let dropEveryNth = options.dropEveryNth ?? 0;
  let notifications = 0;
  let held = false;
  let droppedNotifications = 0;
  let accepted = 0;
  let subscription: string | null = null;
  const clients = new Set<WebSocket>();
  const server = new WebSocketServer({ host: '127.0.0.1', port: 0, maxPayload: 64 * 1024 * 1024, perMessageDeflate: false });
  server.on('connection', (client) => {
    accepted++;
    clients.add(client);
    const upstream = new WebSocket(upstreamUrl, { perMessageDeflate: false, maxPayload: 64 * 1024 * 1024 });
    const subscribeIds = new Set<unknown>();
    const early: string[] = [];
    const end = () => {
      clients.delete(client);
      client.terminate();
      upstream.terminate();
    };
    client.on('error', end);
    upstream.on('error', end);
    client.on('close', end);
    upstream.on('close', end);
    upstream.on('open', () => {
      for (const message of early.splice(0)) upstream.send(message);
    });
    client.on('message', (data) => {
      const text = data.toString();
      try {
        const request = JSON.parse(text) as { id?: unknown; method?: unknown };
        if (request.method === 'eth_subscribe') subscribeIds.add(request.id);
      } catch {
        // not JSON: forwarded as is
      }
      if (upstream.readyState === WebSocket.OPEN) upstream.send(text);
      else early.push(text);
    });
    upstream.on('message', (data) => {
      const text = data.toString();
      try {
        const answer = JSON.parse(text) as { id?: unknown; result?: unknown; method?: unknown };
        if (subscribeIds.has(answer.id) && typeof answer.result === 'string') subscription = answer.result;
        if (answer.method === 'eth_subscription' && (held || (dropEveryNth > 0 && ++notifications % dropEveryNth === 0))) {
          droppedNotifications++;
          return;
        }
      } catch {
        // not JSON: forwarded as is
      }
      const send = () => {
        if (client.readyState === WebSocket.OPEN) client.send(text);
      };
      if (delayMs > 0) setTimeout(send, delayMs);
      else send();
    });
  });
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `ws://127.0.0.1:${port}`,
    setDelayMs: (ms) => {
      delayMs = ms;
    },
    setDropEveryNth: (n) => {
      dropEveryNth = n;
    },
    setHeld: (value) => {
      held = value;
    },
    notificationsDropped: () => droppedNotifications,
    dropAll: () => {
      for (const client of clients) client.terminate();
    },
    inject: (data) => {
      for (const client of clients) if (client.readyState === WebSocket.OPEN) client.send(data);
    },
    subscriptionId: () => subscription,
    connections: () => accepted,
    close: () =>
      new Promise((resolve) => {
        for (const client of clients) client.terminate();
        server.close(() => resolve());
      }),
  };
}
