import { Counter, collectDefaultMetrics, Histogram, Registry } from 'prom-client';

export interface Metrics {
  registry: Registry;
  httpRequests: Counter<'method' | 'route' | 'status'>;
  httpDuration: Histogram<'method' | 'route'>;
  jobs: Counter<'kind' | 'outcome'>;
  webhookAttempts: Counter<'outcome'>;
  pageRefusals: Counter;
}

/** One registry per server instance, so several instances in one process (tests) never collide. */
export function createMetrics(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'paygate_' });
  return {
    registry,
    httpRequests: new Counter({
      name: 'paygate_http_requests_total',
      help: 'HTTP requests answered, by route pattern and status.',
      labelNames: ['method', 'route', 'status'],
      registers: [registry],
    }),
    httpDuration: new Histogram({
      name: 'paygate_http_request_duration_seconds',
      help: 'Time to answer an HTTP request.',
      labelNames: ['method', 'route'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers: [registry],
    }),
    jobs: new Counter({
      name: 'paygate_jobs_total',
      help: 'Scheduled jobs run, by kind and outcome.',
      labelNames: ['kind', 'outcome'],
      registers: [registry],
    }),
    webhookAttempts: new Counter({
      name: 'paygate_webhook_attempts_total',
      help: 'Webhook delivery attempts, by outcome: delivered, retry (will be tried again), failed (for good).',
      labelNames: ['outcome'],
      registers: [registry],
    }),
    pageRefusals: new Counter({
      name: 'paygate_page_requests_refused_total',
      help: 'Hosted page requests refused by the per-address and per-link rate limits (answered 429, not logged one by one).',
      registers: [registry],
    }),
  };
}
