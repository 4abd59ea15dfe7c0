import pino, { type Logger } from 'pino';
import { DefaultLogger, type LogLevel } from '@temporalio/worker';
import { requestContext } from './request-context';
import { activeSpanIds } from './telemetry/span-context';
import { prettyDestination } from './pretty-log';
import { ActivityFailureType, MessageRunFailureType, SEND_MESSAGE_WORKFLOW } from './domain';

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

export type LogFormat = 'json' | 'pretty';

/** Where the process's lines go: pino's own stdout destination (JSON), or the readable form for a terminal. */
const json = pino.destination({ fd: 1, sync: true });
let destination: { write(line: string): unknown } = json;
let format: LogFormat = 'json';

/** The process's logger, at the level and in the format the configuration sets (`configureLogging`). */
export const logger: Logger = createLogger({ write: (line: string) => destination.write(line) } as pino.DestinationStream);

export function setLogLevel(level: string): void {
  logger.level = level;
}

/**
 * LOG_FORMAT when set; otherwise readable lines for a person (a terminal, outside production) and JSON
 * lines for everything else (a pipe, a file, a log collector, production).
 */
export function logFormatOf(config: { LOG_FORMAT?: LogFormat; NODE_ENV: string }, terminal: boolean): LogFormat {
  return config.LOG_FORMAT ?? (terminal && config.NODE_ENV !== 'production' ? 'pretty' : 'json');
}

/** Sets the process logger's level and format from the configuration, once at boot. */
export function configureLogging(config: { LOG_LEVEL: string; LOG_FORMAT?: LogFormat; NODE_ENV: string }, out: NodeJS.WriteStream = process.stdout): LogFormat {
  setLogLevel(config.LOG_LEVEL);
  format = logFormatOf(config, Boolean(out.isTTY));
  destination = format === 'pretty' ? prettyDestination(out, Boolean(out.isTTY)) : json;
  return format;
}

/**
 * The level of a successful request's line: `debug` in the readable format (a person at a terminal sees
 * what they asked for in curl's answer; `LOG_LEVEL=debug` shows the lines), `info` in JSON lines.
 */
export const requestLineLevel = (): 'debug' | 'info' => (format === 'pretty' ? 'debug' : 'info');

export function logEvent(event: string, fields: Record<string, unknown> = {}): void {
  logger.info({ event, ...fields });
}

export function logError(error: unknown, fields: Record<string, unknown> = {}): void {
  logger.error({ event: 'error', err: error, ...fields });
}

const SDK_LEVELS: Record<LogLevel, 'trace' | 'debug' | 'info' | 'warn' | 'error'> = { TRACE: 'trace', DEBUG: 'debug', INFO: 'info', WARN: 'warn', ERROR: 'error' };

/** Failures the code expects and reports itself (a message.failed line, the run's details): not the SDK's warnings. */
const EXPECTED_FAILURE_TYPES = new Set<unknown>([...Object.values(ActivityFailureType), ...Object.values(MessageRunFailureType)]);

/**
 * An SDK warning about an expected business failure: an activity's non-retryable ActivityFailureType, or a
 * message's run ending MessageFailed/MessageUndelivered. A workflow's error reaches this logger copied from
 * its worker thread, without its `type`: that one is known by its workflow type and message.
 */
export function isExpectedFailureLine(message: string, meta: Record<string, unknown> | undefined): boolean {
  const error = meta?.error as { type?: unknown; nonRetryable?: unknown; message?: unknown } | undefined;
  if (!error || typeof error !== 'object') return false;
  if (message === 'Activity failed') return EXPECTED_FAILURE_TYPES.has(error.type) && error.nonRetryable === true;
  if (message !== 'Workflow failed') return false;
  if (EXPECTED_FAILURE_TYPES.has(error.type)) return true;
  return meta?.workflowType === SEND_MESSAGE_WORKFLOW && typeof error.message === 'string' && /^Message \S+ (failed|undelivered)\b/.test(error.message);
}

/** The Temporal SDK's runtime and worker logs, written as lines of the same logger; its warnings of expected failures at debug. */
export function temporalLogger(level: LogLevel = 'WARN'): DefaultLogger {
  return new DefaultLogger(level, (entry) => {
    const at = entry.level === 'WARN' && isExpectedFailureLine(entry.message, entry.meta) ? 'debug' : SDK_LEVELS[entry.level];
    logger[at]({ event: 'temporal', ...entry.meta }, entry.message);
  });
}
