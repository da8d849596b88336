import { HttpError } from '../../../shared/errors.ts';

/**
 * The event to send when a stream fails after it started (headers are gone, so no status can be
 * set): OpenAI's own in-stream error shape, which its SDKs raise as an APIError. Only the message
 * of an HttpError (already redacted when it came from an upstream) is shown.
 */
export function formatOpenAIStreamError(error: unknown) {
  const known = error instanceof HttpError;
  const status = known ? error.status : 500;
  return {
    error: {
      message: known ? error.message : 'internal error',
      type: status === 429 ? 'rate_limit_error' : status < 500 ? 'invalid_request_error' : 'server_error',
      param: null,
      code: null,
    },
  };
}
