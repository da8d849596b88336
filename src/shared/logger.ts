import pino, { type Logger } from 'pino';

export type { Logger } from 'pino';

/** A log line waits at most this long in the buffer. */
const FLUSH_EVERY_MS = 200;

let lastMs = -1;
let lastTime = '';
/**
 * pino's isoTime, formatted once per millisecond: a loaded gateway writes several lines in each,
 * and formatting the date was a visible share of a line's cost.
 */
function isoTime(): string {
  const now = Date.now();
  if (now !== lastMs) {
    lastMs = now;
    lastTime = `,"time":"${new Date(now).toISOString()}"`;
  }
  return lastTime;
}

/**
 * Lines go to stdout through a 4 KB buffer, written when full and every 200 ms: a write system
 * call per line (two per request at `info`) cost more CPU than any other single step of a
 * gateway request in the profiles (docs/bench-gateway.md). pino flushes the buffer at exit; a
 * process killed outright loses at most the last 200 ms of lines.
 */
export function createLogger(level: string): Logger {
  const destination = pino.destination({ dest: 1, minLength: 4096, sync: false });
  setInterval(() => {
    try {
      destination.flush();
    } catch {
      // Ended at exit: nothing left to write.
    }
  }, FLUSH_EVERY_MS).unref();
  return pino({
    level,
    base: { service: 'svc' },
    timestamp: isoTime,
    // Credentials never reach the logs.
    redact: {
      paths: [
        'req.headers.authorization',
        'req.headers["x-api-key"]',
        'req.headers["x-api-signature"]',
        'req.headers["x-wallet-signature"]',
        'req.headers.cookie',
      ],
      censor: '[redacted]',
    },
  }, destination);
}
