export interface MappedStatus {
  /** The status the client gets. */
  readonly status: number;
  /** Whether another deployment may succeed where this one failed. */
  readonly retryable: boolean;
  /** A fixed client message replacing the upstream's, when the upstream's would mislead. */
  readonly message?: string;
  /**
   * The upstream refused the service itself (its credentials, its account, the configured model):
   * the client's own retry within seconds cannot clear it, though another deployment may serve.
   */
  readonly refusedService?: boolean;
}

/**
 * Keeps the class and meaning of an upstream status for the client. Request errors (400, 413,
 * 422) are the client's to fix and not retried. Everything that is the service's or the
 * upstream's problem is retryable and reported as a gateway error: the upstream refusing the
 * service's own credentials (401/403) or its billing (402), or not knowing the configured model
 * (404), says nothing about the client's request.
 */
export function mapUpstreamStatus(status: number): MappedStatus {
  if (status === 400 || status === 422) return { status: 400, retryable: false };
  if (status === 413) return { status: 413, retryable: false };
  if (status === 401 || status === 403) {
    return { status: 502, retryable: true, refusedService: true, message: 'the upstream refused the service credentials' };
  }
  if (status === 404) return { status: 502, retryable: true, refusedService: true, message: 'the upstream does not serve this model' };
  // The service's account at the upstream is out of credits (OpenRouter, DeepSeek; Anthropic's
  // billing_error): its message would read as the client's own balance, which is svc's 402.
  if (status === 402) return { status: 502, retryable: true, refusedService: true, message: "the upstream refused the service's account (billing); try again later" };
  if (status === 408) return { status: 504, retryable: true };
  if (status === 429) return { status: 429, retryable: true };
  if (status === 503 || status === 529) return { status: 503, retryable: true };
  if (status === 504) return { status: 504, retryable: true };
  if (status >= 500) return { status: 502, retryable: true };
  if (status >= 400) return { status: 400, retryable: false };
  // A success status with an unusable body.
  return { status: 502, retryable: true };
}
