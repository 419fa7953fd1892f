import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { isTransientDatabaseError } from '../platform/database/database-errors.js';
import { AppError, type ErrorDefinition, PLATFORM_ERRORS } from '../platform/errors.js';
import { failure } from './envelope.js';
import { HTTP_ERRORS } from './errors.js';
import { describeValidationError } from './validation.js';

const FRAMEWORK_ERRORS: Record<string, ErrorDefinition> = {
  FST_ERR_CTP_BODY_TOO_LARGE: HTTP_ERRORS.bodyTooLarge,
  FST_ERR_CTP_INVALID_MEDIA_TYPE: HTTP_ERRORS.mediaTypeUnsupported,
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: HTTP_ERRORS.requestMalformed,
  FST_ERR_BAD_URL: HTTP_ERRORS.requestMalformed,
};

export interface ClassifiedError {
  definition: ErrorDefinition;
  message: string;
}

/** Every error, ours or the framework's, becomes one entry of the closed list. */
export function classifyError(error: unknown, request: FastifyRequest): ClassifiedError {
  if (error instanceof AppError) return { definition: error.definition, message: error.message };
  const fastifyError = error as Partial<FastifyError>;
  if (fastifyError.validation) {
    return {
      definition: PLATFORM_ERRORS.validationFailed,
      message: describeValidationError(
        fastifyError.validation as never,
        fastifyError.validationContext ?? 'body',
        request.body === undefined,
      ),
    };
  }
  const known = fastifyError.code ? FRAMEWORK_ERRORS[fastifyError.code] : undefined;
  if (known) return { definition: known, message: known.message };
  if (isTransientDatabaseError(error))
    return { definition: PLATFORM_ERRORS.unavailable, message: PLATFORM_ERRORS.unavailable.message };
  const status = fastifyError.statusCode ?? 500;
  if (status >= 400 && status < 500)
    return { definition: HTTP_ERRORS.requestMalformed, message: HTTP_ERRORS.requestMalformed.message };
  // Our request id, unique even when the client reuses its own, finds the log line with the fault.
  return {
    definition: PLATFORM_ERRORS.internal,
    message: `${PLATFORM_ERRORS.internal.message} Reference: ${request.id}.`,
  };
}

export function createErrorHandler(onContractBreach?: (route: string, problem: string) => void) {
  return (error: unknown, request: FastifyRequest, reply: FastifyReply) => {
    const { definition, message } = classifyError(error, request);
    if (definition.status >= 500 && definition !== PLATFORM_ERRORS.unavailable) {
      request.log.error({ err: error }, 'request failed');
    }
    const declared = request.routeOptions.config?.declaredErrors;
    if (declared && !declared.has(definition.code)) {
      const route = `${request.method} ${request.routeOptions.url}`;
      request.log.warn({ route, code: definition.code }, 'error code not declared by the route');
      onContractBreach?.(route, `answered the undeclared error code ${definition.code}`);
    }
    if (definition === PLATFORM_ERRORS.unavailable) reply.header('connection', 'close');
    return reply.code(definition.status).send(failure(definition, message));
  };
}
