/**
 * What went wrong upstream, in the upstream's own words (unredacted). Provider parsers throw it;
 * the upstream layer turns it into a client-safe UpstreamError. `status` is the upstream HTTP
 * status, or the status an in-stream error type stands for.
 */
export class ProviderFailure extends Error {
  constructor(
    readonly status: number,
    message: string,
    /**
     * `network`: the call failed below HTTP (no connection, or a timeout), not with a status the
     * upstream sent. `retryAfterMs`: the upstream's retry-after.
     */
    readonly extra: { readonly network?: 'connection' | 'timeout'; readonly retryAfterMs?: number } = {},
  ) {
    super(message);
    this.name = 'ProviderFailure';
  }
}

/**
 * What an upstream's error body says: its message, and, when the body gives the error a meaning
 * its HTTP status does not (OpenAI's `insufficient_quota` comes as a 429 but is the service's
 * account out of credits, a 402), the status it stands for.
 */
export type ErrorBodyReading = string | { readonly message: string; readonly status: number };

/** Reads an upstream's non-2xx body. */
export type ErrorBodyReader = (bodyText: string) => ErrorBodyReading;
