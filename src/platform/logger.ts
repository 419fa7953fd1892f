import pino, { type Logger } from 'pino';
import type { Config } from './config.js';

/** What domain code may do with a logger; Fastify's request loggers and pino's root logger both fit. */
export type Log = Pick<Logger, 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace'>;

export function createLogger(config: Pick<Config, 'logLevel'>, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level: config.logLevel,
      base: { service: 'paygate' },
      timestamp: pino.stdTimeFunctions.isoTime,
      // Defence in depth: nothing should log these, and if something does they are masked.
      redact: {
        paths: ['*.signature', '*.Signature', '*.number', '*.cvv', '*.card_number', 'headers.signature', 'headers.credential'],
        censor: '[redacted]',
      },
    },
    destination,
  );
}
