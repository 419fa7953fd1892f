import { PaygateError } from '@paygate/client';
import { ConfigError } from '../platform/config.js';
import { DataDirLockedError, isTransientDatabaseError } from '../platform/database/database-errors.js';
import { AppError } from '../platform/errors.js';

/**
 * A failure the command expected and can explain in one line (a server that does not answer, a file that is
 * not there): said without a stack, exit code 1.
 */
export class CommandFailure extends Error {
  override readonly name = 'CommandFailure';
}

/** What a failed command prints, and where. */
export interface FailureReport {
  stdout?: string;
  stderr: string;
}

/**
 * Expected failures in a line each: the platform's own refusals, met here or answered by the server a command
 * calls (with --json, as JSON on stdout, where a script reads), configuration, a locked data folder, what the command
 * itself explained, an address the server cannot
 * listen on, a network or file error, a database that refuses. Only what nobody expected shows its stack, which is
 * what a bug report needs.
 */
export function reportFailure(error: unknown, output: { json: boolean }): FailureReport {
  // The platform's refusal, whether the command met it here or a server answered it (a command that calls the API).
  const refusal =
    error instanceof AppError
      ? { code: error.definition.code, message: error.message }
      : error instanceof PaygateError
        ? { code: error.errorCode, message: error.message }
        : undefined;
  if (refusal) {
    return output.json
      ? { stdout: `${JSON.stringify({ error: refusal })}\n`, stderr: '' }
      : { stderr: `error ${refusal.code}: ${refusal.message}\n` };
  }
  if (error instanceof CommandFailure || error instanceof ConfigError || error instanceof DataDirLockedError) {
    return { stderr: `${error.message}\n` };
  }
  const listen = listenFailure(error);
  if (listen) return { stderr: `${listen}\n` };
  const network = networkFailure(error);
  if (network)
    return { stderr: `cannot connect${network.address ? ` to ${network.address}` : ''}: ${network.reason}\n` };
  const file = fileFailure(error);
  if (file) return { stderr: `${file}\n` };
  const database = databaseRefusal(error);
  if (database) return { stderr: `${database}\n` };
  return { stderr: `${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n` };
}

const NETWORK_REASONS: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host name lookup failed',
  ETIMEDOUT: 'connection timed out',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
};

/**
 * Why a connection failed, found anywhere in the error's causes (fetch wraps them twice); `timedOut` when the
 * caller's own time limit ran out. Undefined for any other error.
 */
export function networkFailure(error: unknown): { reason: string; timedOut: boolean; address?: string } | undefined {
  const all = causes(error);
  if (all.some((cause) => cause.name === 'TimeoutError')) return { reason: 'no answer in time', timedOut: true };
  const failed = all.find((cause) => typeof cause.code === 'string' && NETWORK_REASONS[cause.code] !== undefined);
  if (!failed) return undefined;
  // An AggregateError (IPv4 and IPv6 both tried) carries the code; the errors it gathers carry the address.
  const located = all.find(
    (cause) => cause.code === failed.code && (typeof cause.address === 'string' || typeof cause.hostname === 'string'),
  );
  const address =
    typeof located?.address === 'string'
      ? `${located.address}${typeof located.port === 'number' ? `:${located.port}` : ''}`
      : typeof located?.hostname === 'string'
        ? located.hostname
        : undefined;
  return { reason: NETWORK_REASONS[failed.code as string]!, timedOut: false, ...(address ? { address } : {}) };
}

const LISTEN_REASONS: Readonly<Record<string, string>> = {
  EADDRINUSE: 'the address is already in use (another server on this PORT?)',
  EADDRNOTAVAIL: 'no such address on this machine (HOST)',
  EACCES: 'permission denied (a port below 1024?)',
};

/** A server that cannot listen where the configuration says. */
function listenFailure(error: unknown): string | undefined {
  const { code, syscall, address, port } = (error ?? {}) as {
    code?: unknown;
    syscall?: unknown;
    address?: unknown;
    port?: unknown;
  };
  const reason = syscall === 'listen' && typeof code === 'string' ? LISTEN_REASONS[code] : undefined;
  return reason ? `cannot listen on ${String(address)}:${String(port)}: ${reason}` : undefined;
}

const FILE_REASONS: Readonly<Record<string, string>> = {
  ENOENT: 'no such file or folder',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EISDIR: 'it is a folder',
  ENOTDIR: 'part of the path is not a folder',
  EROFS: 'read-only file system',
  ENOSPC: 'no space left on the device',
};

/** Why a file could not be used (`no such file or folder`); undefined for any other error. */
export function fileReason(error: unknown): string | undefined {
  const { code, path } = (error ?? {}) as { code?: unknown; path?: unknown };
  return typeof code === 'string' && typeof path === 'string' ? FILE_REASONS[code] : undefined;
}

function fileFailure(error: unknown): string | undefined {
  const reason = fileReason(error);
  return reason ? `cannot use ${(error as { path: string }).path}: ${reason}` : undefined;
}

/**
 * PostgreSQL's refusals of a connection (unauthorised, no such database, too many connections), and a database
 * that did not answer in time or stayed busy.
 */
function databaseRefusal(error: unknown): string | undefined {
  const { code, severity, message } = (error ?? {}) as { code?: unknown; severity?: unknown; message?: unknown };
  if (
    error instanceof Error &&
    (isTransientDatabaseError(error) || /^Connection terminated due to connection timeout/.test(error.message))
  ) {
    return `the database did not answer in time: ${error.message}`;
  }
  if (typeof severity !== 'string' || typeof code !== 'string' || typeof message !== 'string') return undefined;
  return /^(08|28|3D|53|57P0)/.test(code) ? `PostgreSQL: ${message}` : undefined;
}

interface ErrorLike {
  name?: unknown;
  code?: unknown;
  address?: unknown;
  port?: unknown;
  hostname?: unknown;
}

/** The error, its causes, and the errors an AggregateError gathers (a refused connection tried on IPv4 and IPv6). */
function causes(error: unknown): ErrorLike[] {
  const found: ErrorLike[] = [];
  const visit = (value: unknown, depth: number) => {
    if (typeof value !== 'object' || value === null || depth > 5) return;
    found.push(value as ErrorLike);
    visit((value as { cause?: unknown }).cause, depth + 1);
    const many = (value as { errors?: unknown }).errors;
    if (Array.isArray(many)) for (const each of many) visit(each, depth + 1);
  };
  visit(error, 0);
  return found;
}
