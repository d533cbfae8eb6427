import net from 'node:net';
import postgres from 'postgres';

export type Sql = postgres.Sql;
/** A handle that can run queries: the pool or a transaction inside it. */
export type Queryable = postgres.Sql | postgres.TransactionSql;

/**
 * Opens the socket with TCP_NODELAY. postgres.js leaves Nagle's algorithm on, so the small last
 * message of a COPY waited for the server's delayed ACK (40 ms on Linux) on every sample chunk:
 * with it off, chunked sample ingest is 2–4× faster (docs/performance.md).
 *
 * The socket is handed over at once, still connecting, and never as a rejected promise:
 * postgres.js attaches its own 'error' and 'close' handlers to what this returns, and only its
 * 'close' handler gives the connection back to the pool. A factory that rejected on a refused
 * connect (as this one once did) left that connection in the "connecting" state for good; after
 * ten refusals (the pool size) every query waited forever.
 */
function connectNoDelay(options: { host: string[]; port: number[]; path?: string | false }): net.Socket {
  return options.path
    ? net.connect(options.path)
    : net.connect({ host: options.host[0], port: options.port[0] ?? 5432, noDelay: true });
}

/**
 * Delay before a connection that closed on an error tries again, in seconds. postgres.js's default
 * grows with the errors of the whole pool up to 20 s, so after an outage of a few seconds the
 * first query waited that long for a database that was already back.
 */
const reconnectBackoff = (retries: number): number => Math.min(0.05 * 2 ** retries, 1) * (0.5 + Math.random() / 2);

export function createSql(databaseUrl: string, options: { max?: number } = {}): Sql {
  // `socket` is a documented postgres.js option missing from its type definitions.
  const socketOption = { socket: connectNoDelay } as Record<string, unknown>;
  return postgres(databaseUrl, {
    max: options.max ?? 10,
    // An unreachable host fails the query in 10 s instead of postgres.js's 30.
    connect_timeout: 10,
    backoff: reconnectBackoff,
    onnotice: () => undefined,
    transform: { undefined: null },
    connection: { application_name: 'rvs' },
    ...socketOption,
  });
}

// Socket errors and postgres.js's own connection errors: the database could not be reached.
const UNREACHABLE = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EPIPE',
  'CONNECT_TIMEOUT',
  'CONNECTION_CLOSED',
  'CONNECTION_DESTROYED',
  'CONNECTION_ENDED',
]);
// SQLSTATEs of a server that is going away, starting up or full; class 08 is "connection exception".
const SERVER_UNAVAILABLE = new Set(['57P01', '57P02', '57P03', '53300']);

/**
 * True when `error` means the database is down or unreachable (a 503 and a retry), not that the
 * query was wrong (a bug, a 500).
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  // Node's happy-eyeballs connect reports every address it tried in one AggregateError.
  if (error instanceof AggregateError) return error.errors.some(isDatabaseUnavailable);
  const code = 'code' in error && typeof error.code === 'string' ? error.code : undefined;
  if (!code) return false;
  return UNREACHABLE.has(code) || SERVER_UNAVAILABLE.has(code) || code.startsWith('08');
}
