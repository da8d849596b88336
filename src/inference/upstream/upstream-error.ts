import { HttpError } from '../../shared/errors.ts';

export interface UpstreamErrorDetail {
  readonly upstreamStatus: number | null;
  readonly upstreamMessage: string;
  /** The call failed below HTTP: no connection, or a timeout. */
  readonly network?: 'connection' | 'timeout';
  /** The upstream's retry-after, in milliseconds. */
  readonly retryAfterMs?: number;
}

/**
 * An upstream call failed. `message` is already redacted and safe to show a client (the error
 * handler renders it as-is); `retryable` says whether trying the next deployment may help (5xx,
 * 429, connection failures, timeouts, upstream credential problems) as opposed to a request the
 * client must fix (400, 413). `detail` keeps the raw upstream text for logs only.
 */
export class UpstreamError extends HttpError {
  constructor(
    status: number,
    message: string,
    readonly retryable: boolean,
    readonly detail: UpstreamErrorDetail = { upstreamStatus: null, upstreamMessage: message },
  ) {
    super(status, message);
    this.name = 'UpstreamError';
  }

  /** The redacted message for the client (same as `message`). */
  get clientMessage(): string {
    return this.message;
  }
}
