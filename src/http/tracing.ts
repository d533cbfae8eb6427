import { context, SpanKind, SpanStatusCode, trace, type Span, type Tracer } from '@opentelemetry/api';
import type { FastifyInstance, FastifyRequest } from 'fastify';

/**
 * One server span per API request (src/telemetry/tracing.ts), active while the request's hooks
 * and handler run, so a workflow the handler starts (a run's trigger) joins its trace. Named by
 * method and route pattern (`POST /v1/suites/:suiteId/runs`): never the raw URL, whose query may
 * hold a dashboard token, and no header.
 */
export function registerTracing(app: FastifyInstance, tracer: Tracer): void {
  const spans = new WeakMap<FastifyRequest, Span>();
  app.addHook('onRequest', (request, _reply, done) => {
    const route = request.routeOptions.url;
    const span = tracer.startSpan(route ? `${request.method} ${route}` : request.method, {
      kind: SpanKind.SERVER,
      attributes: { 'http.request.method': request.method, ...(route && { 'http.route': route }) },
    });
    spans.set(request, span);
    // The rest of the request runs inside this call: its context is the span's.
    context.with(trace.setSpan(context.active(), span), done);
  });
  const end = (request: FastifyRequest, status: number | null) => {
    const span = spans.get(request);
    if (!span) return;
    spans.delete(request);
    if (status !== null) {
      span.setAttribute('http.response.status_code', status);
      if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
    } else {
      span.setStatus({ code: SpanStatusCode.ERROR, message: 'request aborted' });
    }
    span.end();
  };
  app.addHook('onResponse', (request, reply, done) => {
    end(request, reply.statusCode);
    done();
  });
  app.addHook('onRequestAbort', (request, done) => {
    end(request, null);
    done();
  });
}
