import type { LookupFunction } from 'node:net';
import net from 'node:net';
import tls from 'node:tls';
import { Http1ResponseParser, type HttpResponse } from './http1-response-parser';

/**
 * A keep-alive HTTP/1.1 client for one origin, built for the probe's hot path: up to `size`
 * connections, one request at a time on each (never pipelined), whole requests written with one
 * socket write, responses framed by Http1ResponseParser. Only what probing JSON-RPC needs: no
 * redirects (a 3xx is a response like any other), no compression, no proxies, no retries.
 * docs/performance.md says why it exists: per request it costs less CPU than undici's Client.
 */

export type HttpClientErrorCode =
  | 'RVS_CONNECT_TIMEOUT'
  | 'RVS_HEADERS_TIMEOUT'
  | 'RVS_BODY_TIMEOUT'
  | 'RVS_CONNECTION_CLOSED'
  | 'RVS_CLIENT_CLOSED';

export class HttpClientError extends Error {
  constructor(
    readonly code: HttpClientErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'HttpClientError';
  }
}

export interface Http1PoolOptions {
  /** http: or https: origin. The host is connected to through `lookup` (a hostname) or directly (an IP literal). */
  origin: URL;
  size: number;
  /** Bounds a whole request, from sending it (connecting first, if need be) to its last byte. */
  timeoutMs: number;
  maxResponseBytes: number;
  lookup: LookupFunction;
  /** A certificate authority to trust for https besides Node's bundled roots (tests, a private CA). */
  ca?: string;
}

export interface ResponseListener {
  onResponse(response: HttpResponse): void;
  /** The request failed: a socket error, a timeout, a closed connection, or an HttpParseError. */
  onError(error: Error): void;
}

/** An idle connection is not reused within this long of the server's announced keep-alive timeout. */
const KEEP_ALIVE_MARGIN_MS = 1_000;
/** An idle connection is closed after this long without a request (unless the server said less). */
const IDLE_TIMEOUT_MS = 30_000;

export class Http1Pool {
  private readonly all = new Set<Connection>();
  private readonly idle: Connection[] = [];
  private readonly waiting: { request: string; listener: ResponseListener; resent: boolean }[] = [];
  private waitingHead = 0;
  /** Connections that completed a response this turn of the event loop, handed on at its end. */
  private settling: Connection[] = [];
  private settleScheduled = false;
  private closed: Promise<void> | null = null;
  private drained: (() => void) | null = null;

  constructor(readonly options: Http1PoolOptions) {
    if (!(options.size >= 1)) throw new Error('an Http1Pool needs at least one connection');
  }

  /** Sends `request` (a complete HTTP/1.1 request: head and body) on the first free connection. */
  send(request: string, listener: ResponseListener): void {
    if (this.closed !== null) return listener.onError(new HttpClientError('RVS_CLIENT_CLOSED', 'client closed'));
    let connection = this.takeIdle();
    if (connection === undefined && this.all.size < this.options.size) {
      connection = new Connection(this);
      this.all.add(connection);
    }
    if (connection === undefined) {
      this.waiting.push({ request, listener, resent: false });
      return;
    }
    connection.send(request, listener);
  }

  /**
   * A connection finished its response and may carry another. It is handed on at the end of this
   * turn of the event loop, not at once: a server that closes the connection right after a
   * response without saying so is seen closing first, instead of failing the next request. It
   * also puts the turn's writes together, after the turn's reads.
   */
  settle(connection: Connection): void {
    this.settling.push(connection);
    if (!this.settleScheduled) {
      this.settleScheduled = true;
      setImmediate(this.handOnSettled);
    }
  }

  private readonly handOnSettled = (): void => {
    const settled = this.settling;
    this.settling = [];
    this.settleScheduled = false;
    for (const connection of settled) {
      if (!this.all.has(connection)) continue; // failed while settling: already removed
      if (connection.usable()) this.release(connection);
      else this.remove(connection);
    }
    this.checkDrained();
  };

  private release(connection: Connection): void {
    if (this.waitingHead < this.waiting.length) {
      const next = this.waiting[this.waitingHead++]!;
      // A queue with a moving head; the taken front is dropped now and then, so an open loop that
      // keeps calls waiting for hours does not grow it without bound.
      if (this.waitingHead >= 1024 || this.waitingHead === this.waiting.length) {
        this.waiting.splice(0, this.waitingHead);
        this.waitingHead = 0;
      }
      connection.send(next.request, next.listener, next.resent);
      return;
    }
    this.idle.push(connection);
    this.checkDrained();
  }

  /** A connection is gone (closed, failed, expired): forget it, and open another if calls wait. */
  remove(connection: Connection): void {
    if (!this.all.delete(connection)) return;
    const at = this.idle.indexOf(connection);
    if (at >= 0) this.idle.splice(at, 1);
    connection.destroy();
    // Calls waiting were made before any close(), so they still get a connection.
    if (this.waitingHead < this.waiting.length) {
      const replacement = new Connection(this);
      this.all.add(replacement);
      this.release(replacement);
    }
    this.checkDrained();
  }

  /**
   * Sends a request again that a kept-alive connection lost before any byte of its answer: on a
   * new connection if there is room, else first in line.
   */
  resend(request: string, listener: ResponseListener): void {
    if (this.all.size < this.options.size) {
      const connection = new Connection(this);
      this.all.add(connection);
      connection.send(request, listener, true);
    } else {
      this.waiting.splice(this.waitingHead, 0, { request, listener, resent: true });
    }
  }

  private takeIdle(): Connection | undefined {
    for (let connection = this.idle.pop(); connection !== undefined; connection = this.idle.pop()) {
      if (connection.usable()) return connection;
      this.remove(connection);
    }
    return undefined;
  }

  private checkDrained(): void {
    // Nothing in flight, settling or waiting: every connection is idle.
    if (this.drained !== null && this.idle.length === this.all.size && this.settling.length === 0) this.drained();
  }

  /** Calls already made (in flight or waiting) finish first; calls after it fail; then every connection closes. */
  close(): Promise<void> {
    this.closed ??= (async () => {
      if (this.idle.length < this.all.size || this.settling.length > 0) {
        await new Promise<void>((resolve) => (this.drained = resolve));
      }
      for (const connection of this.all) connection.destroy();
      this.all.clear();
      this.idle.length = 0;
    })();
    return this.closed;
  }
}

/** One socket and the request on it, if any. */
class Connection {
  private readonly socket: net.Socket;
  private connected = false;
  private listener: ResponseListener | null = null;
  private parser: Http1ResponseParser | null = null;
  private receivedBytes = false;
  private request = '';
  private resent = false;
  /** Responses completed on this connection: a request on a reused one can meet a close already under way. */
  private served = 0;
  private reusable = true;
  /** Date.now() after which this connection must not carry a new request. */
  private expiresAt = Number.POSITIVE_INFINITY;
  /** One timer per connection, re-armed (refresh) by every request it sends: no timer per request. */
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly pool: Http1Pool) {
    const { origin, lookup, timeoutMs, ca } = pool.options;
    const host = origin.hostname.replace(/^\[|\]$/g, '');
    const port = Number(origin.port) || (origin.protocol === 'https:' ? 443 : 80);
    this.socket =
      origin.protocol === 'https:'
        ? tls.connect({
            host,
            port,
            lookup,
            // SNI carries host names only (without a root label's dot), never IP literals.
            servername: net.isIP(host) === 0 ? host.replace(/\.$/, '') : undefined,
            ALPNProtocols: ['http/1.1'],
            ...(ca === undefined ? {} : { ca: [...tls.rootCertificates, ca] }),
          })
        : net.connect({ host, port, lookup });
    // Every request is one write that should leave at once (Nagle would hold it for an ACK).
    this.socket.setNoDelay(true);
    this.socket.once(origin.protocol === 'https:' ? 'secureConnect' : 'connect', this.onConnect);
    this.socket.on('data', this.onData);
    // The server closed its side: nothing more can be asked on this connection, even in the
    // moment before the socket is destroyed.
    this.socket.once('end', this.onEnd);
    this.socket.on('error', this.onSocketError);
    this.socket.on('close', this.onClose);
    this.timer = setTimeout(this.onTimeout, timeoutMs);
    this.timer.unref();
  }

  usable(): boolean {
    return this.reusable && !this.socket.destroyed && this.socket.readyState === 'open' && Date.now() < this.expiresAt;
  }

  send(request: string, listener: ResponseListener, resent = false): void {
    this.listener = listener;
    this.request = request;
    this.resent = resent;
    this.parser = new Http1ResponseParser(this.pool.options.maxResponseBytes);
    this.receivedBytes = false;
    this.timer.refresh();
    // Written before the connection is up, it is sent once it is: one write either way.
    this.socket.write(request);
  }

  destroy(): void {
    clearTimeout(this.timer);
    this.socket.destroy();
  }

  private readonly onConnect = (): void => {
    this.connected = true;
  };

  private readonly onData = (chunk: Buffer): void => {
    const parser = this.parser;
    if (parser === null) {
      // Bytes nobody asked for: the connection's framing can no longer be trusted.
      this.reusable = false;
      this.pool.remove(this);
      return;
    }
    this.receivedBytes = true;
    let response: HttpResponse | null;
    try {
      response = parser.push(chunk);
    } catch (error) {
      return this.fail(error as Error);
    }
    if (response !== null) this.complete(response);
  };

  private complete(response: HttpResponse): void {
    const listener = this.listener!;
    this.listener = null;
    this.parser = null;
    this.served++;
    if (!response.keepAlive) this.reusable = false;
    const idleMs = response.keepAliveTimeoutMs === null ? IDLE_TIMEOUT_MS : Math.min(IDLE_TIMEOUT_MS, response.keepAliveTimeoutMs - KEEP_ALIVE_MARGIN_MS);
    this.expiresAt = Date.now() + idleMs;
    if (this.reusable) this.pool.settle(this);
    else this.pool.remove(this);
    listener.onResponse(response);
  }

  private fail(error: Error): void {
    const listener = this.listener;
    this.listener = null;
    this.parser = null;
    this.reusable = false;
    // The keep-alive race: the server closed this reused connection (idle timeout, restart) just
    // as the request went out, before any byte of an answer. HTTP clients send such a request
    // again where that is safe (browsers; Go's net/http for idempotent requests), and the probe's
    // JSON-RPC reads are: once, on a new connection. The call's latency counts from its first send.
    // Queued again before this connection is removed, so a close() waiting for calls to drain
    // still counts it.
    if (listener !== null && this.served > 0 && !this.receivedBytes && !this.resent && isConnectionLoss(error)) {
      this.pool.resend(this.request, listener);
      this.pool.remove(this);
      return;
    }
    this.pool.remove(this);
    listener?.onError(error);
  }

  private readonly onEnd = (): void => {
    this.reusable = false;
  };

  private readonly onSocketError = (error: Error): void => {
    this.fail(error);
  };

  private readonly onClose = (): void => {
    const parser = this.parser;
    if (parser === null) {
      this.pool.remove(this);
      return;
    }
    // A body delimited by the close is complete now; anything else was cut off.
    let response: HttpResponse | null;
    try {
      response = parser.end();
    } catch (error) {
      return this.fail(error as Error);
    }
    if (response !== null) this.complete(response);
    else this.fail(new HttpClientError('RVS_CONNECTION_CLOSED', 'connection closed before the response was complete'));
  };

  private readonly onTimeout = (): void => {
    if (this.listener === null) {
      // Idle this long: nothing to time out, but an idle connection past its time is closed.
      if (Date.now() >= this.expiresAt) this.pool.remove(this);
      else this.timer.refresh();
      return;
    }
    const code = !this.connected ? 'RVS_CONNECT_TIMEOUT' : this.receivedBytes ? 'RVS_BODY_TIMEOUT' : 'RVS_HEADERS_TIMEOUT';
    this.fail(new HttpClientError(code, 'timed out'));
  };
}

function isConnectionLoss(error: Error): boolean {
  const { code } = error as { code?: unknown };
  return code === 'RVS_CONNECTION_CLOSED' || code === 'ECONNRESET' || code === 'EPIPE' || code === 'ECONNABORTED';
}
