import net from 'node:net';
import postgres from 'postgres';

export type Sql = postgres.Sql;
/** A handle that can run queries: the pool or a transaction inside it. */
export type Queryable = postgres.Sql | postgres.TransactionSql;

/**
 * Connects with TCP_NODELAY. postgres.js leaves Nagle's algorithm on, so the small last message
 * of a COPY waited for the server's delayed ACK (40 ms on Linux) on every sample chunk: with it
 * off, chunked sample ingest is 2–4× faster (docs/performance.md).
 */
function connectNoDelay(options: { host: string[]; port: number[]; path?: string | false }): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = options.path
      ? net.connect(options.path)
      : net.connect({ host: options.host[0], port: options.port[0] ?? 5432, noDelay: true });
    socket.once('connect', () => {
      socket.off('error', reject);
      resolve(socket);
    });
    socket.once('error', reject);
  });
}

export function createSql(databaseUrl: string, options: { max?: number } = {}): Sql {
  // `socket` is a documented postgres.js option missing from its type definitions.
  const socketOption = { socket: connectNoDelay } as Record<string, unknown>;
  return postgres(databaseUrl, {
    max: options.max ?? 10,
    onnotice: () => undefined,
    transform: { undefined: null },
    connection: { application_name: 'rvs' },
    ...socketOption,
  });
}
