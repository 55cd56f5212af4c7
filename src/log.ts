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

/**
 * One warn line a minute per subject (a webhook endpoint, the readiness check) instead of one per occurrence: the next
 * line that goes out counts those held back in between (`suppressed`). Per process. A tenant's broken receivers wrote
 * 12,842 warn lines in 20 minutes, and a prober of /ready one line per probe during an outage.
 */
export class LogThrottle {
  private readonly bySubject = new Map<string, { until: number; suppressed: number }>();
  constructor(private readonly everyMs = 60_000) {}

  /** Whether this subject's line goes out at warn now, and how many were held back since its last one. */
  take(subject: string, now = Date.now()): { warn: boolean; suppressed: number } {
    const seen = this.bySubject.get(subject);
    if (seen && now < seen.until) {
      seen.suppressed++;
      return { warn: false, suppressed: 0 };
    }
    if (this.bySubject.size > 10_000) this.bySubject.clear(); // subjects come and go: never more than this
    this.bySubject.set(subject, { until: now + this.everyMs, suppressed: 0 });
    return { warn: true, suppressed: seen?.suppressed ?? 0 };
  }
}
