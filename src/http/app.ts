import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import Fastify, {
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  LogController,
} from 'fastify';
import type { PlatformContext } from '../context/context.js';
import { AppError, type ErrorDefinition, PLATFORM_ERRORS } from '../platform/errors.js';
import type { Metrics } from '../platform/metrics.js';
import { RateLimiter } from '../platform/rate-limit.js';
import { registerDashboard } from '../web/dashboard/register.js';
import type { DashboardSessions, Screen } from '../web/dashboard/screen.js';
import { createPageGate } from '../web/page-gate.js';
import { FREE_PAGE_PATHS, PAGE_SECURITY_HEADERS, type PageRoute, registerPages } from '../web/pages.js';
import { createAuthenticator } from './auth/authenticate.js';
import type { NonceStore } from './auth/nonce-store.js';
import { failure } from './envelope.js';
import { createErrorHandler } from './error-handler.js';
import { HTTP_ERRORS } from './errors.js';
import { registerOpenApi } from './openapi.js';
import { registerOperationsRoutes } from './operations.js';
import { type AnyRoute, registerRoute } from './route.js';
import { validatorCompiler } from './validation.js';

export interface HttpAppDeps {
  platform: PlatformContext;
  nonces: NonceStore;
  metrics: Metrics;
  version: string;
  /** The signed API: every module's routes. */
  routes: readonly AnyRoute[];
  /** The hosted pages: every module's. */
  pages: readonly PageRoute[];
  /** The merchant dashboard's screens: every module's, and where their sessions come from. */
  screens: readonly Screen[];
  dashboardSessions: DashboardSessions | undefined;
  /** The OpenAPI tags the modules declare. */
  tags: ReadonlyArray<{ name: string; description: string }>;
  /** The closed list of error codes, published in the OpenAPI document. */
  errors: readonly ErrorDefinition[];
  isShuttingDown(): boolean;
  /**
   * Called when a route breaks its contract: an undeclared error code, a reply unlike its stored one (tests fail on
   * it).
   */
  onContractBreach?(route: string, problem: string): void;
}

export async function buildHttpApp(deps: HttpAppDeps): Promise<FastifyInstance> {
  const { config } = deps.platform;
  const pageGate = createPageGate({
    config,
    wallClock: deps.platform.wallClock,
    patterns: [...deps.pages, ...deps.screens],
    freePaths: FREE_PAGE_PATHS,
    headers: PAGE_SECURITY_HEADERS,
    onRefused: () => deps.metrics.pageRefusals.inc(),
  });
  const app = Fastify({
    // The server is Fastify's own, with the hosted pages' rate limits in front: a refused caller costs no routing,
    // no hooks and no log line (the refusals are counted in the metrics instead).
    serverFactory: (handler, options) => {
      const server = createServer((request, response) => {
        if (!pageGate(request, response)) handler(request, response);
      });
      // What Fastify sets on a server it creates itself (its defaults: these options are not given above).
      const timeouts = options as { keepAliveTimeout?: number; requestTimeout?: number; connectionTimeout?: number };
      server.keepAliveTimeout = timeouts.keepAliveTimeout ?? 72_000;
      server.requestTimeout = timeouts.requestTimeout ?? 0;
      server.setTimeout(timeouts.connectionTimeout ?? 0);
      return server;
    },
    loggerInstance: deps.platform.log as FastifyBaseLogger,
    // One line per request, written in onResponse, instead of Fastify's two.
    logController: new LogController({ disableRequestLogging: true, requestIdLogLabel: 'request_id' }),
    // Our own id for every request: clients reuse theirs (the PHP SDK sends one per SDK instance).
    genReqId: () => randomUUID(),
    bodyLimit: config.bodyLimitBytes,
    trustProxy: config.trustedProxies.length > 0 ? config.trustedProxies.map((c) => c.text) : false,
    return503OnClosing: false,
    forceCloseConnections: 'idle',
    clientErrorHandler: answerMalformedRequest,
    frameworkErrors: answerUnroutable,
  });

  app.setValidatorCompiler(validatorCompiler);
  // The raw bytes are kept: the signature covers them, and they are decoded only once it verifies.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    request.rawBody = body as Buffer;
    done(null, undefined);
  });

  app.addHook('onRequest', async (request, reply) => {
    request.clientRequestId = clientRequestIdOf(request.raw);
    reply.header('x-request-id', request.clientRequestId ?? request.id);
    if (deps.isShuttingDown()) throw new AppError(PLATFORM_ERRORS.unavailable);
    if (deps.platform.database.durabilityFailure()) {
      throw new AppError(
        PLATFORM_ERRORS.unavailable,
        'The database can no longer make writes durable; the operator must restart this process.',
      );
    }
    // An unknown route is answered before its body is read: 404 comes before 413.
    if (request.is404) return reply.code(404).send(failure(HTTP_ERRORS.routeNotFound));
  });
  app.addHook('onSend', async (request, reply) => {
    // A write is answered only once it is on disk (with SQLite at synchronous=FULL: a group-commit flush).
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      await deps.platform.database.durable().catch(() => {
        // The write may be lost on a power cut: the client must not take it as done (a retry with its
        // Idempotency-Key, after the restart, finds whatever survived).
        throw new AppError(
          PLATFORM_ERRORS.unavailable,
          'The write could not be made durable; the operator must restart this process.',
        );
      });
    }
    // A connection that answers during shutdown is closed after the reply, so closing need not wait it out.
    if (deps.isShuttingDown()) reply.header('connection', 'close');
  });
  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url ?? 'unmatched';
    const seconds = reply.elapsedTime / 1000;
    deps.metrics.httpRequests.inc({ method: request.method, route, status: String(reply.statusCode) });
    deps.metrics.httpDuration.observe({ method: request.method, route }, seconds);
    request.log.info(
      {
        method: request.method,
        route,
        status: reply.statusCode,
        duration_ms: Math.round(reply.elapsedTime * 100) / 100,
        client_request_id: request.clientRequestId,
        merchant_id: request.caller?.merchant.id,
        app_id: request.caller?.appId,
      },
      'request',
    );
  });
  app.setErrorHandler(createErrorHandler(deps.onContractBreach));
  app.setNotFoundHandler((_request, reply) => reply.code(404).send(failure(HTTP_ERRORS.routeNotFound)));

  await registerOpenApi(app, { config, version: deps.version, errors: deps.errors, tags: deps.tags });
  registerOperationsRoutes(app, {
    metrics: deps.metrics,
    publicBaseUrl: config.publicBaseUrl,
    isReady: async () => {
      if (deps.isShuttingDown() || deps.platform.database.durabilityFailure()) return false;
      try {
        await deps.platform.db.selectFrom('settings').select('name').limit(1).execute();
        return true;
      } catch {
        return false;
      }
    },
  });

  const authenticate = createAuthenticator({
    database: deps.platform.database,
    nonces: deps.nonces,
    wallClock: deps.platform.wallClock,
  });
  const rateLimiter =
    config.rateLimitPerSecond > 0
      ? new RateLimiter(config.rateLimitPerSecond, config.rateLimitBurst, deps.platform.wallClock)
      : undefined;
  for (const route of deps.routes)
    registerRoute(
      app,
      { platform: deps.platform, authenticate, rateLimiter, onContractBreach: deps.onContractBreach },
      route,
    );
  await registerPages(app, deps.platform, deps.pages);
  await registerDashboard(app, deps.platform, { screens: deps.screens, sessions: deps.dashboardSessions });
  return app;
}

const REQUEST_ID = /^[\x20-\x7e]{1,200}$/;

/** The client's X-Request-ID when it is sane text: echoed and logged, never trusted to be unique. */
function clientRequestIdOf(request: IncomingMessage): string | undefined {
  const given = request.headers['x-request-id'];
  return typeof given === 'string' && REQUEST_ID.test(given) ? given : undefined;
}

/** A path the router cannot decode (bad percent-encoding, an over-long parameter) fails before any hook. */
function answerUnroutable(_error: Error, request: FastifyRequest, reply: FastifyReply): void {
  void reply
    .header('x-request-id', clientRequestIdOf(request.raw) ?? request.id)
    .code(400)
    .send(failure(HTTP_ERRORS.requestMalformed));
}

/** Requests node's parser cannot read never reach Fastify; they still get the envelope. */
function answerMalformedRequest(error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const body = JSON.stringify(failure(HTTP_ERRORS.requestMalformed));
  socket.end(
    'HTTP/1.1 400 Bad Request\r\n' +
      'Content-Type: application/json; charset=utf-8\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      `X-Request-ID: ${randomUUID()}\r\n` +
      'Connection: close\r\n\r\n' +
      body,
  );
}
