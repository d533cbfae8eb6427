import type { Tracer } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { Resource } from '@opentelemetry/resources';
import { BatchSpanProcessor, NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import {
  makeWorkflowExporter,
  OpenTelemetryActivityInboundInterceptor,
  OpenTelemetryActivityOutboundInterceptor,
  OpenTelemetryWorkflowClientInterceptor,
  type OpenTelemetrySinks,
} from '@temporalio/interceptors-opentelemetry';
import type { ActivityInterceptorsFactory, InjectedSinks } from '@temporalio/worker';
import type { Config } from '../config';

/*
 * OpenTelemetry traces (DESIGN.md §18): one trace per run, from the API request that triggers it
 * through the run workflow to each activity (a probe chunk, a re-check, a webhook delivery: one
 * span each, never one per call). Temporal's own interceptors carry the context: the client
 * interceptor puts the active span into the workflow's headers, the workflow interceptors (bundled
 * into the workflow code, src/temporal/bundle-workflows.ts) start workflow and activity spans and
 * hand them to the worker through a sink, and the activity interceptor continues them in the
 * activity. Off unless an OTLP endpoint is configured (config.ts tracingSettings); off costs
 * nothing: no provider is registered, so @opentelemetry/api hands out no-op spans, no interceptor
 * is installed and the workflow bundle is the untraced one.
 *
 * What a span carries: names (HTTP method + route template, Temporal workflow/activity types) and
 * ids. Never a URL with its query, a header, an endpoint address or an activity's arguments (they
 * hold endpoint secrets): the interceptors record none of these.
 */

/** The workflow interceptor module bundled into the workflow code when traces are on. */
export const WORKFLOW_TRACING_MODULE = require.resolve('@temporalio/interceptors-opentelemetry/lib/workflow-interceptors');

export interface Tracing {
  tracer: Tracer;
  /** Client interceptors: the workflows a client starts join the active trace. */
  clientInterceptors: { workflow: OpenTelemetryWorkflowClientInterceptor[] };
  /** Worker options: the activity interceptor and the sink the workflow interceptors export through. */
  worker: { activityInterceptors: ActivityInterceptorsFactory[]; sinks: InjectedSinks<OpenTelemetrySinks> };
  /** Exports what is buffered, then stops. */
  shutdown(): Promise<void>;
}

/**
 * Registers the process's tracer provider exporting to the configured OTLP endpoint (batched, in
 * the background: a collector that does not answer costs dropped spans, never a request or an
 * activity); null when traces are off.
 */
export function startTracing(settings: Config['tracing'], defaultServiceName: string): Tracing | null {
  if (!settings) return null;
  const resource = new Resource({ 'service.name': settings.serviceName ?? defaultServiceName });
  const processor = new BatchSpanProcessor(new OTLPTraceExporter({ url: settings.tracesUrl }));
  const provider = new NodeTracerProvider({ resource, spanProcessors: [processor] });
  // The global provider, an AsyncLocalStorage context manager and the W3C trace-context propagator
  // (the client interceptor writes the span into the workflow's headers with it).
  provider.register();
  // Our own provider's tracer, not the global one: a second service in the same process (tests,
  // `npm start`) cannot replace the global provider, and its spans must still go to its exporter.
  const tracer = provider.getTracer('run-verification-service');
  return {
    tracer,
    clientInterceptors: { workflow: [new OpenTelemetryWorkflowClientInterceptor({ tracer })] },
    worker: {
      activityInterceptors: [
        (ctx) => ({
          inbound: new OpenTelemetryActivityInboundInterceptor(ctx, { tracer }),
          outbound: new OpenTelemetryActivityOutboundInterceptor(ctx),
        }),
      ],
      sinks: { exporter: makeWorkflowExporter(processor, resource) },
    },
    shutdown: () => provider.shutdown(),
  };
}
