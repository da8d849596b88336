import { UpstreamError } from './upstream-error.ts';
import { ProviderFailure } from '../providers/provider-failure.ts';
import type { Redactor } from '../redact/create-redactor.ts';
import { mapUpstreamStatus } from './map-upstream-status.ts';

const FALLBACK: Record<number, string> = {
  400: 'the upstream refused the request',
  413: 'the request is too large for the model',
  429: 'the model is rate limited, try again shortly',
  502: 'the upstream failed',
  503: 'the model is overloaded, try again shortly',
  504: 'the upstream timed out',
};

/**
 * Any failure of an upstream call as the error a client may see: status mapped, message redacted
 * (or a fixed one where the upstream's would mislead). Errors already converted pass through.
 */
export function toUpstreamError(error: unknown, redact: Redactor, brandModel: string): UpstreamError {
  if (error instanceof UpstreamError) return error;
  const failure = error instanceof ProviderFailure ? error : new ProviderFailure(502, 'the upstream answer could not be read');
  const mapped = mapUpstreamStatus(failure.status);
  const message = mapped.message ?? (redact(failure.message, brandModel) || FALLBACK[mapped.status] || 'the upstream failed');
  return new UpstreamError(mapped.status, message, mapped.retryable, {
    upstreamStatus: failure.status,
    upstreamMessage: error instanceof ProviderFailure ? failure.message : String(error),
    ...failure.extra,
    ...(mapped.refusedService ? { refusedService: true } : {}),
  });
}
