import pino, { type Logger } from 'pino';

export type { Logger } from 'pino';

export function createLogger(level: string): Logger {
  return pino({
    level,
    base: { service: 'svc' },
    timestamp: pino.stdTimeFunctions.isoTime,
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
  });
}
