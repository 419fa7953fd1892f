import pino, { type Logger } from 'pino';
import type { Config } from './config.js';

/** What domain code may do with a logger; Fastify's request loggers and pino's root logger both fit. */
export type Log = Pick<Logger, 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace'>;

/**
 * JSON lines with epoch-millisecond `time` (pino's cheapest clock), written as they happen. No redaction
 * list: nothing logs request bodies or headers, and wildcard redaction cost a sixth of each request's line.
 */
export function createLogger(config: Pick<Config, 'logLevel'>, destination?: pino.DestinationStream): Logger {
  return pino({ level: config.logLevel, base: { service: 'paygate' } }, destination);
}
