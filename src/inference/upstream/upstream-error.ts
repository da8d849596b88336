import { HttpError, NO_CLIENT_RETRY } from '../../shared/errors.ts';

export interface UpstreamErrorDetail {
  readonly upstreamStatus: number | null;
  readonly upstreamMessage: string;
  /** The call failed below HTTP: no connection, or a timeout. */
  readonly network?: 'connection' | 'timeout';
  /** The upstream's retry-after, in milliseconds. */
  readonly retryAfterMs?: number;
  /** The upstream refused the service itself (see MappedStatus.refusedService): the answer says not to retry. */
  readonly refusedService?: boolean;
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
    super(status, message, clientHeaders(status, detail));
    this.name = 'UpstreamError';
  }

  /** The redacted message for the client (same as `message`). */
  get clientMessage(): string {
    return this.message;
  }
}

/**
 * The upstream said it is overloaded: an HTTP 529, or an `overloaded_error` in its error body or
 * stream (the providers read both as 529). The OpenAI protocols answer it as 503; the messages
 * protocol as Anthropic's own 529 (overloadedAsAnthropic).
 */
export function isUpstreamOverloaded(error: unknown): error is UpstreamError {
  return error instanceof UpstreamError && error.detail.upstreamStatus === 529;
}

/** An overloaded upstream's failure as the Messages API states it: 529, same message, same retry-after. */
export function overloadedAsAnthropic(error: UpstreamError): UpstreamError {
  return new UpstreamError(529, error.message, error.retryable, error.detail);
}

/**
 * A 429 always says when to retry; a 503 (and the messages protocol's 529) passes on the
 * upstream's own retry-after when it sent one (HTTP gives the header to both), else the client's
 * backoff decides. A refusal of the service itself says no client retry clears it.
 */
function clientHeaders(status: number, detail: UpstreamErrorDetail): Record<string, string> {
  if (status === 429) return { 'retry-after': retryAfterSeconds(detail.retryAfterMs) };
  if ((status === 503 || status === 529) && detail.retryAfterMs !== undefined) return { 'retry-after': retryAfterSeconds(detail.retryAfterMs) };
  return detail.refusedService ? NO_CLIENT_RETRY : {};
}

/**
 * Every 429 carries `retry-after` (docs/api-decisions.md, "Contract: sixth audit"): when the
 * gateway passes on an upstream's 429, the upstream's own wait in whole seconds (rounded up), else 1.
 */
function retryAfterSeconds(ms: number | undefined): string {
  return String(ms === undefined || !(ms > 0) ? 1 : Math.max(1, Math.ceil(ms / 1000)));
}
