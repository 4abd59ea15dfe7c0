import pino, { type Logger } from 'pino';
import { DefaultLogger, type LogLevel } from '@temporalio/worker';
import { requestContext } from './request-context';
import { activeSpanIds } from './telemetry/span-context';

/**
 * Personal data that may sit in a logged object: message texts, phone numbers, names, notes, tokens.
 * pino replaces these paths before a line is written.
 */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  '*.text_message',
  '*.text',
  '*.client_phone',
  '*.phone',
  '*.to',
  '*.client_name',
  '*.name',
  '*.ds_notes',
  '*.notes',
];

/** One JSON line per event, with personal data redacted; stdout unless a destination is given. */
export function createLogger(destination?: pino.DestinationStream): Logger {
  const options: pino.LoggerOptions = {
    level: 'info',
    base: undefined,
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    // Work done for an HTTP request (an activity of a workflow it started) names the request, and its trace while one is recorded.
    mixin: () => ({ ...requestContext.getStore(), ...activeSpanIds() }),
  };
  return destination ? pino(options, destination) : pino(options);
}

/** The process's logger, at the level the configuration sets (`setLogLevel`). */
export const logger: Logger = createLogger();

export function setLogLevel(level: string): void {
  logger.level = level;
}

export function logEvent(event: string, fields: Record<string, unknown> = {}): void {
  logger.info({ event, ...fields });
}

export function logError(error: unknown, fields: Record<string, unknown> = {}): void {
  logger.error({ event: 'error', err: error, ...fields });
}

const SDK_LEVELS: Record<LogLevel, 'trace' | 'debug' | 'info' | 'warn' | 'error'> = { TRACE: 'trace', DEBUG: 'debug', INFO: 'info', WARN: 'warn', ERROR: 'error' };

/** The Temporal SDK's runtime and worker logs, written as lines of the same logger. */
export function temporalLogger(level: LogLevel = 'WARN'): DefaultLogger {
  return new DefaultLogger(level, (entry) => logger[SDK_LEVELS[entry.level]]({ event: 'temporal', ...entry.meta }, entry.message));
}
