/**
 * The process logger (pino, as Fastify's): the HTTP app and the worker log through the same instance under
 * `svc start`. Background failures are logged with ids (delivery, event, job), never secrets: no signing
 * secret, no key, no request body, and of a webhook URL only its host (paths and queries can hold tokens).
 */
import { pino, type Logger } from 'pino';

export type { Logger };

/** Fields that must never reach a log line, wherever they appear (defence in depth). */
const REDACT = ['secret', 'webhookSecret', 'token', 'rawKey', 'authorization', 'password', 'body', 'payload']
  .flatMap((k) => [k, `*.${k}`]).concat(['req.headers.authorization', 'req.headers.cookie']);

export function createLogger(level = 'info', destination?: pino.DestinationStream): Logger {
  // stdout, as Fastify's own logger (scripts wait for its "svc listening on" line there).
  const options = { level, redact: { paths: REDACT, censor: '[redacted]' } };
  return destination ? pino(options, destination) : pino(options);
}

/** The host of a URL for logs (never its path or query), or undefined when it does not parse. */
export function hostOf(url: string): string | undefined {
  try {
    return new URL(url).host;
  } catch {
    return undefined;
  }
}
