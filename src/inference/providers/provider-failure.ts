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
