import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import path from 'node:path';
import { freePort } from './free-port';
import { killGroup, spawnInGroup, until } from './processes';

/*
 * A REAL OTLP receiver for the tracing test: Jaeger v2 (an OpenTelemetry Collector distribution)
 * built from its Go module, receiving OTLP/HTTP on 127.0.0.1 and keeping traces in memory, read
 * back through its query API (/api/traces). .ci/run builds it once into
 * ~/.cache/rvs/jaeger-v1.75.0 (RVS_JAEGER_PATH overrides); a missing binary fails the test that
 * needs it, naming how to build it.
 */

export const JAEGER_VERSION = 'v1.75.0';
export const JAEGER_BIN = process.env.RVS_JAEGER_PATH ?? path.join(homedir(), '.cache', 'rvs', `jaeger-${JAEGER_VERSION}`, 'jaeger');

export interface JaegerSpan {
  traceID: string;
  spanID: string;
  operationName: string;
  processID: string;
  references: { refType: string; traceID: string; spanID: string }[];
  tags: { key: string; value: unknown }[];
}

export interface JaegerTrace {
  traceID: string;
  spans: JaegerSpan[];
  processes: Record<string, { serviceName: string }>;
}

export interface Jaeger {
  /** OTEL_EXPORTER_OTLP_ENDPOINT for the services under test. */
  otlpEndpoint: string;
  /** The traces of a service, newest first (Jaeger's query API). */
  traces(service: string): Promise<JaegerTrace[]>;
  close(): Promise<void>;
}

function jaegerBinary(): string {
  if (!existsSync(JAEGER_BIN)) {
    throw new Error(
      `jaeger not found at ${JAEGER_BIN}: build it as .ci/run does (a module with ` +
        `\`go get -tool github.com/jaegertracing/jaeger/cmd/jaeger@${JAEGER_VERSION}\`, then \`go build\` of that package), or set RVS_JAEGER_PATH`,
    );
  }
  return JAEGER_BIN;
}

export async function startJaeger(): Promise<Jaeger> {
  const binary = jaegerBinary();
  const dir = await mkdtemp(path.join(tmpdir(), 'rvs-jaeger-'));
  const [otlpPort, queryPort, queryGrpcPort] = [await freePort(), await freePort(), await freePort()];
  // Only what the test needs: the OTLP/HTTP receiver, in-memory storage, the query API; no
  // self-telemetry server (its fixed port 8888 would clash between test files).
  const config = `
service:
  extensions: [jaeger_storage, jaeger_query]
  pipelines:
    traces:
      receivers: [otlp]
      exporters: [jaeger_storage_exporter]
  telemetry:
    metrics:
      level: none
    logs:
      level: warn
extensions:
  jaeger_storage:
    backends:
      memstore:
        memory:
          max_traces: 10000
  jaeger_query:
    storage:
      traces: memstore
    http:
      endpoint: 127.0.0.1:${queryPort}
    grpc:
      endpoint: 127.0.0.1:${queryGrpcPort}
receivers:
  otlp:
    protocols:
      http:
        endpoint: 127.0.0.1:${otlpPort}
exporters:
  jaeger_storage_exporter:
    trace_storage: memstore
`;
  const configPath = path.join(dir, 'config.yaml');
  await writeFile(configPath, config);
  const spawned = spawnInGroup(binary, ['--config', configPath], {});
  const queryUrl = `http://127.0.0.1:${queryPort}`;
  const close = async () => {
    killGroup(spawned);
    await spawned.exited;
    await rm(dir, { recursive: true, force: true });
  };
  try {
    await until(
      async () => {
        if (spawned.child.exitCode !== null) throw new Error(`jaeger exited: ${spawned.output().slice(-2000)}`);
        const query = await fetch(`${queryUrl}/api/services`).then((r) => r.ok).catch(() => false);
        // The receiver answers an empty export with 200 once it listens.
        const receiver = await fetch(`http://127.0.0.1:${otlpPort}/v1/traces`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })
          .then((r) => r.ok)
          .catch(() => false);
        return query && receiver ? true : undefined;
      },
      60_000,
      () => `jaeger answering on ${queryUrl} (${spawned.output().slice(-2000)})`,
    );
  } catch (error) {
    await close();
    throw error;
  }
  return {
    otlpEndpoint: `http://127.0.0.1:${otlpPort}`,
    async traces(service) {
      const response = await fetch(`${queryUrl}/api/traces?service=${encodeURIComponent(service)}&limit=1000&lookback=1h`);
      if (response.status === 404 || response.status === 400) return [];
      if (!response.ok) throw new Error(`jaeger /api/traces answered ${response.status}: ${await response.text()}`);
      return ((await response.json()) as { data: JaegerTrace[] | null }).data ?? [];
    },
    close,
  };
}
