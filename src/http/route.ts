import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Static, TSchema } from 'typebox';
import { type Context, merchantContext, type PlatformContext } from '../context/context.js';
import type { Config } from '../platform/config.js';
import { AppError, type ErrorDefinition, PLATFORM_ERRORS } from '../platform/errors.js';
import type { RateLimiter } from '../platform/rate-limit.js';
import type { Authenticator, Caller } from './auth/authenticate.js';
import { decodeJsonBody } from './body.js';
import { errorEnvelopeSchema, failure, success, successEnvelopeSchema } from './envelope.js';
import { HTTP_ERRORS } from './errors.js';
import { exampleExtensions, type OperationExample } from './examples.js';
import { checkIdempotencyKey, claimIdempotencyKey, IDEMPOTENCY_TTL_MS } from './idempotency/idempotency.js';

export type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

export interface RouteInput<B extends TSchema, Q extends TSchema, P extends TSchema> {
  ctx: Context;
  body: Static<B>;
  query: Static<Q>;
  params: Static<P>;
  /** A route with `upload`: the file sent as the body (its bytes as signed), instead of a JSON body. */
  file?: { mediaType: string; bytes: Buffer };
}

/** What a route with `download` answers: a file (or, with `stream`, a stream of server-sent events), not the envelope. */
export interface FileReply {
  /** A file's name; a stream has none. */
  filename?: string;
  body: string | NodeJS.ReadableStream;
}

/** Everything about one endpoint: the schemas validate, type, serialise and document it. */
export interface RouteDeclaration<B extends TSchema, Q extends TSchema, P extends TSchema, D extends TSchema, R> {
  method: Method;
  url: string;
  /** Further paths the same operation answers on (clients in the wild use both). */
  aliases?: string[];
  operationId: string;
  summary: string;
  description?: string;
  tags: string[];
  body?: B;
  /** The body may be left out (its fields are all optional, added after clients called the route without one): absent, it is `{}`. */
  bodyOptional?: boolean;
  querystring?: Q;
  params?: P;
  /** Schema of `data` in the success envelope; fields it does not declare are never sent. */
  data: D;
  /** The errors of this route's own area; authentication, format and idempotency errors are added. */
  errors: readonly ErrorDefinition[];
  handler(input: RouteInput<B, Q, P>): Promise<R>;
  /**
   * The route also takes a file as its whole body, in one of these media types, up to `limitBytes` (from the
   * configuration; JSON bodies keep the platform's limit). The signature covers the file's bytes as for any body.
   */
  upload?: { mediaTypes: readonly string[]; limitBytes(config: Config): number };
  /**
   * The route answers a file of this media type ({@link FileReply}) where others answer the envelope; with `stream`, a
   * stream kept open (server-sent events), which the server ends when it closes.
   */
  download?: { mediaType: string; stream?: boolean };
  /** Shapes the verb's result into `data`; without it the result is `data`. */
  present?(result: R): Static<D>;
  /** A worked example, typed by the route's own schemas: the /docs page shows it (see `http/examples.ts`). */
  example: RouteExample<B, P, D>;
}

export interface RouteExample<B extends TSchema, P extends TSchema, D extends TSchema>
  extends Pick<OperationExample, 'client' | 'php'> {
  request: { params?: Static<P>; query?: Record<string, string>; body?: Static<B> };
  reply: Static<D>;
}

/** A list of routes with differing schemas is heterogeneous by nature. */
// biome-ignore lint/suspicious/noExplicitAny: a route's handler takes its own schemas' types; the list holds any of them
export type AnyRoute = RouteDeclaration<any, any, any, any, any>;

export function defineRoute<B extends TSchema, Q extends TSchema, P extends TSchema, D extends TSchema, R>(
  declaration: RouteDeclaration<B, Q, P, D, R>,
): RouteDeclaration<B, Q, P, D, R> {
  return declaration;
}

declare module 'fastify' {
  interface FastifyRequest {
    rawBody?: Buffer;
    /** The media type of a body taken as a file (a route with `upload`), not decoded as JSON. */
    uploadType?: string;
    caller?: Caller;
    /** The client's X-Request-ID, echoed in the reply; `request.id` is always our own. */
    clientRequestId?: string;
  }
  interface FastifyContextConfig {
    /** Error codes the route declares; an error outside them is reported as a documentation gap. */
    declaredErrors?: ReadonlySet<string>;
  }
}

const AUTH_ERRORS: ErrorDefinition[] = [
  HTTP_ERRORS.credentialMalformed,
  HTTP_ERRORS.authHeaderMissing,
  HTTP_ERRORS.credentialTimeOutOfWindow,
  HTTP_ERRORS.appUnknown,
  HTTP_ERRORS.signatureInvalid,
  HTTP_ERRORS.nonceReused,
  HTTP_ERRORS.nonceMalformed,
  HTTP_ERRORS.appDisabled,
  HTTP_ERRORS.addressNotAllowed,
];
const COMMON_ERRORS: ErrorDefinition[] = [
  PLATFORM_ERRORS.validationFailed,
  HTTP_ERRORS.requestMalformed,
  HTTP_ERRORS.rateLimited,
  PLATFORM_ERRORS.internal,
  PLATFORM_ERRORS.unavailable,
];
const BODY_ERRORS: ErrorDefinition[] = [
  HTTP_ERRORS.bodyNotJson,
  HTTP_ERRORS.bodyNotUtf8,
  HTTP_ERRORS.bodyForbiddenKey,
  HTTP_ERRORS.bodyTooLarge,
  HTTP_ERRORS.mediaTypeUnsupported,
];
const IDEMPOTENCY_ERRORS: ErrorDefinition[] = [
  PLATFORM_ERRORS.idempotencyKeyInvalid,
  PLATFORM_ERRORS.idempotencyKeyReused,
  PLATFORM_ERRORS.idempotencyInProgress,
];

export function declaredErrors(route: AnyRoute): ErrorDefinition[] {
  const writes = route.method === 'POST' || route.method === 'PUT';
  // Any request but a GET may carry a body, read (and refused) whether or not the route declares one: a DELETE too.
  const hasBody = route.body !== undefined || route.method !== 'GET';
  return [
    ...new Set<ErrorDefinition>([
      ...AUTH_ERRORS,
      ...COMMON_ERRORS,
      ...(hasBody || writes ? BODY_ERRORS : []),
      ...(writes ? IDEMPOTENCY_ERRORS : []),
      // A write of a deterministic sandbox merchant racing another of its writes (docs/lab.md, "Deterministic runs").
      ...(route.method !== 'GET' ? [PLATFORM_ERRORS.deterministicWriteConflict] : []),
      ...route.errors,
    ]),
  ];
}

export interface RouteDeps {
  platform: PlatformContext;
  authenticate: Authenticator;
  /** Absent when rate limiting is off. */
  rateLimiter?: RateLimiter;
  /** Told when a route breaks its own contract (an undeclared error code, a reply unlike the one it stored). */
  onContractBreach?(route: string, problem: string): void;
}

export const SIGNED: Array<Record<string, string[]>> = [{ Credential: [], Nonce: [], Signature: [] }];

export function registerRoute(app: FastifyInstance, deps: RouteDeps, route: AnyRoute): void {
  const errors = declaredErrors(route);
  const response: Record<number, TSchema> = {
    200: route.download
      ? ({ content: { [route.download.mediaType]: { schema: { type: 'string' } } } } as unknown as TSchema)
      : successEnvelopeSchema(route.data),
  };
  const byStatus = new Map<number, ErrorDefinition[]>();
  for (const error of errors) byStatus.set(error.status, [...(byStatus.get(error.status) ?? []), error]);
  for (const [status, definitions] of byStatus) response[status] = errorEnvelopeSchema(definitions);

  const preValidation = async (request: FastifyRequest, reply: FastifyReply) => {
    request.caller = await deps.authenticate({
      method: request.method,
      target: request.url,
      headers: request.headers,
      body: request.rawBody ?? EMPTY,
      ip: request.ip,
    });
    const limit = deps.rateLimiter?.take(request.caller.appId);
    if (limit && !limit.allowed) {
      reply.header('retry-after', String(limit.retryAfterSeconds));
      throw new AppError(HTTP_ERRORS.rateLimited);
    }
    if (request.uploadType !== undefined) request.body = {};
    else if (request.rawBody && request.rawBody.length > 0) request.body = decodeJsonBody(request.rawBody);
    else if (route.bodyOptional) request.body = {};
  };

  if (route.download?.stream) endStreamsAtClose(app);
  const upload = route.upload;
  if (upload) {
    // The file's media types are parsed in this route's own scope: everywhere else they stay refused (415).
    app.register(async (scope) => {
      scope.addContentTypeParser(
        [...upload.mediaTypes],
        { parseAs: 'buffer', bodyLimit: upload.limitBytes(deps.platform.config) },
        (request, body, done) => {
          request.rawBody = body as Buffer;
          request.uploadType = String(request.headers['content-type']).split(';')[0]!.trim().toLowerCase();
          done(null, undefined);
        },
      );
      addRoutes(scope);
    });
  } else {
    addRoutes(app);
  }

  function addRoutes(target: FastifyInstance): void {
    [route.url, ...(route.aliases ?? [])].forEach((url, index) => {
      target.route({
        method: route.method,
        url,
        schema: {
          operationId: index === 0 ? route.operationId : `${route.operationId}Alias${index}`,
          summary: route.summary,
          tags: route.tags,
          response,
          security: SIGNED,
          // The alias is documented beside its operation, with the operation's example.
          ...(index === 0 ? exampleExtensions(route.method, url, route.example) : { 'x-alias-of': route.operationId }),
          // Only the parts a route has: a part present but undefined reads as a mistake to Fastify.
          ...(route.description !== undefined && { description: route.description }),
          ...(route.body !== undefined && { body: route.body }),
          ...(route.bodyOptional && { [BODY_OPTIONAL_KEY]: true }),
          ...(route.querystring !== undefined && { querystring: route.querystring }),
          ...(route.params !== undefined && { params: route.params }),
          ...(upload && { consumes: ['application/json', ...upload.mediaTypes] }),
        },
        config: { declaredErrors: new Set(errors.map((error) => error.code)) },
        preValidation,
        handler: (request, reply) => handle(deps, route, request, reply),
      });
    });
  }
}

const EMPTY = Buffer.alloc(0);

/** Marks, for the OpenAPI document, an operation whose body may be left out (`bodyOptional`). */
export const BODY_OPTIONAL_KEY = 'x-body-optional';

/** The streams each server answers with, open: ended when the server closes, which would otherwise wait for them. */
const openStreams = new WeakMap<FastifyInstance, Set<NodeJS.ReadableStream>>();

/** At registration (hooks cannot be added once the server listens): ends the server's open streams as it closes. */
function endStreamsAtClose(app: FastifyInstance): void {
  if (openStreams.has(app)) return;
  const streams = new Set<NodeJS.ReadableStream>();
  openStreams.set(app, streams);
  app.addHook('preClose', async () => {
    for (const stream of streams) (stream as unknown as { destroy(): void }).destroy();
  });
}

function keepUntilClose(app: FastifyInstance, body: string | NodeJS.ReadableStream): void {
  const tracked = openStreams.get(app);
  if (typeof body === 'string' || !tracked) return;
  tracked.add(body);
  body.on('close', () => tracked.delete(body));
}

async function handle(
  deps: RouteDeps,
  route: AnyRoute,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<unknown> {
  const caller = request.caller;
  if (!caller) throw new AppError(PLATFORM_ERRORS.internal, 'route reached without a caller');
  const { platform } = deps;
  const ctx = merchantContext(platform, caller.merchant, { kind: 'app', appId: caller.appId }, request.id, request.log);
  const present = (result: unknown) => (route.present ? route.present(result) : result);
  const input = {
    ctx,
    body: request.body,
    query: request.query,
    params: request.params,
    ...(request.uploadType !== undefined && {
      file: { mediaType: request.uploadType, bytes: request.rawBody ?? EMPTY },
    }),
  };
  if (route.download) {
    const file = (await route.handler(input)) as FileReply;
    if (route.download.stream) {
      keepUntilClose(request.server, file.body);
      return reply
        .type(route.download.mediaType)
        .header('cache-control', 'no-store')
        .header('x-accel-buffering', 'no')
        .send(file.body);
    }
    return reply
      .type(route.download.mediaType)
      .header('content-disposition', `attachment; filename="${file.filename}"`)
      .send(file.body);
  }

  const keyHeader = request.headers['idempotency-key'];
  if ((route.method !== 'POST' && route.method !== 'PUT') || keyHeader === undefined) {
    return success(present(await route.handler(input)));
  }

  const key = typeof keyHeader === 'string' ? keyHeader : '';
  checkIdempotencyKey(key);
  const now = platform.wallClock.now().getTime();
  const claim = await claimIdempotencyKey(platform.db, {
    merchantId: caller.merchant.id,
    key,
    fingerprint: platform.secrets.fingerprint(request.method, request.url, request.rawBody ?? EMPTY),
    now,
    lockMs: platform.config.idempotencyLockMs,
  });
  if (claim.kind === 'replay') {
    return reply
      .code(claim.statusCode)
      .header('idempotent-replayed', 'true')
      .type('application/json; charset=utf-8')
      .send(claim.body);
  }

  const serialise = (result: unknown) => reply.serialize(success(present(result))) as string;
  let stored: string | undefined;
  ctx.idempotency = { key, expiresAt: now + IDEMPOTENCY_TTL_MS };
  ctx.outcome = {
    async record(db, result) {
      if (stored !== undefined) throw new Error('a request recorded its reply twice');
      const body = serialise(result);
      if (!(await claim.complete(db, 200, body))) {
        throw new AppError(
          PLATFORM_ERRORS.idempotencyInProgress,
          'This request took too long: a retry with its Idempotency-Key took it over.',
        );
      }
      stored = body;
    },
  };
  try {
    const result = await route.handler(input);
    const live = serialise(result);
    if (stored === undefined) {
      // A verb that wrote nothing (a read, the echo) has its reply kept now.
      await claim.complete(platform.db, 200, live);
      stored = live;
    } else if (stored !== live) {
      deps.onContractBreach?.(
        `${route.method} ${route.url}`,
        'the reply differs from the one stored for its Idempotency-Key',
      );
    }
    // Always the stored bytes: the first reply and every replay are the same.
    return reply.type('application/json; charset=utf-8').send(stored);
  } catch (error) {
    if (error instanceof AppError && error.definition.status < 500) {
      // Refusals are kept like replies; a claim that already holds a reply (or was retaken) is left as it is.
      await claim.complete(
        platform.db,
        error.definition.status,
        JSON.stringify(failure(error.definition, error.message)),
      );
    } else {
      // 5xx replies are not kept: the client may retry with the same key.
      await claim
        .release()
        .catch((releaseError: unknown) => request.log.error({ err: releaseError }, 'idempotency release failed'));
    }
    throw error;
  }
}
