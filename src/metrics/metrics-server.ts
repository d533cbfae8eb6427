import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';

export interface MetricsServer {
  /** The address it listens on (RVS_METRICS_HOST: loopback unless configured). */
  host: string;
  /** The port it listens on (the configured one, or the one the OS chose for port 0 in tests). */
  port: number;
  close(): Promise<void>;
}

/**
 * Serves GET /metrics (Prometheus text format) on a port of its own, apart from the API: scraping
 * needs no credential, so the port is meant to be reachable by Prometheus only (docs/operations.md).
 * Anything else is a 404. `collect`, when given, runs before each scrape (e.g. counts read from
 * PostgreSQL); its failure is a 500 with no detail. `append`, when given, adds exposition text of
 * families the registry does not hold (the Temporal SDK's, temporal-metrics.ts) after its own.
 */
export async function startMetricsServer(options: {
  registry: Registry;
  host: string;
  port: number;
  collect?: () => Promise<void>;
  append?: () => Promise<string>;
  onError?: (error: unknown) => void;
}): Promise<MetricsServer> {
  const server: Server = createServer((request, response) => {
    const path = (request.url ?? '').split('?')[0];
    if (request.method !== 'GET' || path !== '/metrics') {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
      return;
    }
    void (async () => {
      try {
        await options.collect?.();
        const [own, appended] = await Promise.all([options.registry.metrics(), options.append?.() ?? '']);
        const body = appended ? `${own}${own.endsWith('\n') ? '' : '\n'}${appended}` : own;
        response.writeHead(200, { 'content-type': options.registry.contentType }).end(body);
      } catch (error) {
        options.onError?.(error);
        response.writeHead(500, { 'content-type': 'text/plain' }).end('metrics unavailable\n');
      }
    })();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const bound = server.address() as AddressInfo;
  return {
    host: bound.address,
    port: bound.port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * startMetricsServer for an entry point: port 0 means no metrics server, and a port that cannot be
 * bound (a second worker on the same host) is logged, not fatal — probing matters more than its
 * metrics.
 */
export async function serveMetrics(options: {
  registry: Registry;
  host: string;
  port: number;
  collect?: () => Promise<void>;
  append?: () => Promise<string>;
  log: { error(obj: object, msg: string): void; info(obj: object, msg: string): void };
}): Promise<MetricsServer | null> {
  if (options.port === 0) return null;
  try {
    const server = await startMetricsServer({ ...options, onError: (error) => options.log.error({ err: error }, 'metrics scrape failed') });
    options.log.info({ host: server.host, port: server.port }, 'metrics listening on /metrics');
    return server;
  } catch (error) {
    options.log.error({ err: error, host: options.host, port: options.port }, 'metrics server could not listen; continuing without /metrics');
    return null;
  }
}
