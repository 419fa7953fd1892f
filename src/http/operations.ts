import type { FastifyInstance } from 'fastify';
import Type from 'typebox';
import { AppError, PLATFORM_ERRORS } from '../platform/errors.js';
import type { Metrics } from '../platform/metrics.js';
import { errorEnvelopeSchema, success, successEnvelopeSchema } from './envelope.js';
import { exampleExtensions } from './examples.js';

export interface OperationsDeps {
  metrics: Metrics;
  /** Where the examples of the API reference send their requests. */
  publicBaseUrl: string;
  /** Ready to take traffic: database answers and the server is not shutting down. */
  isReady(): Promise<boolean>;
}

const Status = Type.Object({ status: Type.String() });

/** Unsigned routes for operators and load balancers. */
export function registerOperationsRoutes(app: FastifyInstance, deps: OperationsDeps): void {
  // Unsigned: a plain HTTP request is the whole example.
  const example = (path: string, reply?: unknown) =>
    exampleExtensions('GET', path, { request: {}, reply, shell: `curl ${deps.publicBaseUrl}${path}` });
  app.get(
    '/healthz',
    {
      schema: {
        operationId: 'health',
        summary: 'Liveness: the process answers.',
        tags: ['operations'],
        response: { 200: successEnvelopeSchema(Status) },
        ...example('/healthz', { status: 'ok' }),
      },
    },
    async () => success({ status: 'ok' }),
  );

  app.get(
    '/readyz',
    {
      schema: {
        operationId: 'ready',
        summary: 'Readiness: the database answers and the server is not shutting down.',
        tags: ['operations'],
        response: { 200: successEnvelopeSchema(Status), 503: errorEnvelopeSchema([PLATFORM_ERRORS.unavailable]) },
        ...example('/readyz', { status: 'ready' }),
      },
      config: { declaredErrors: new Set([PLATFORM_ERRORS.unavailable.code]) },
    },
    async () => {
      if (!(await deps.isReady())) throw new AppError(PLATFORM_ERRORS.unavailable);
      return success({ status: 'ready' });
    },
  );

  app.get(
    '/metrics',
    {
      schema: {
        operationId: 'metrics',
        summary: 'Prometheus metrics (text exposition format).',
        tags: ['operations'],
        ...example('/metrics'),
      },
    },
    async (_request, reply) => {
      reply.type(deps.metrics.registry.contentType);
      return deps.metrics.registry.metrics();
    },
  );
}
