/**
 * What went wrong upstream, in the upstream's own words (unredacted). Provider parsers throw it;
 * the upstream layer turns it into a client-safe UpstreamError. `status` is the upstream HTTP
 * status, or the status an in-stream error type stands for.
 */
export class ProviderFailure extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'ProviderFailure';
  }
}
