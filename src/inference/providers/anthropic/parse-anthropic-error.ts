import type { ErrorBodyReading } from '../provider-failure.ts';

const STATUS_OF_TYPE: Record<string, number> = {
  invalid_request_error: 400,
  authentication_error: 401,
  billing_error: 402,
  permission_error: 403,
  not_found_error: 404,
  request_too_large: 413,
  rate_limit_error: 429,
  api_error: 500,
  timeout_error: 504,
  overloaded_error: 529,
};

/** The status an Anthropic error type stands for (in streams there is no HTTP status). */
export function statusOfAnthropicErrorType(type: unknown): number {
  return (typeof type === 'string' ? STATUS_OF_TYPE[type] : undefined) ?? 500;
}

/**
 * Anthropic refuses an organisation whose prepaid credits ran out with a 400
 * `invalid_request_error`, not its 402 `billing_error`; only the message tells it apart. It is the
 * service's own upstream account, as OpenAI's `insufficient_quota` is (docs/api-decisions.md,
 * "Inference: eleventh audit").
 */
const CREDIT_BALANCE_TOO_LOW = 'Your credit balance is too low to access the Anthropic API';

/** The status an Anthropic error stands for: its type's, or 402 for the out-of-credits refusal. */
export function statusOfAnthropicError(error: { readonly type: string; readonly message: string }): number {
  if (error.type === 'invalid_request_error' && error.message.startsWith(CREDIT_BALANCE_TOO_LOW)) return 402;
  return statusOfAnthropicErrorType(error.type);
}

/** `{"type":"error","error":{"type","message"}}` -> its type and message. */
export function readAnthropicError(json: unknown): { type: string; message: string } | null {
  if (typeof json !== 'object' || json === null) return null;
  const error = (json as { error?: { type?: unknown; message?: unknown } }).error;
  if (typeof error !== 'object' || error === null) return null;
  return {
    type: typeof error.type === 'string' ? error.type : 'api_error',
    message: typeof error.message === 'string' && error.message !== '' ? error.message : 'upstream error',
  };
}

/**
 * The message of an error response body, or its text when it is not Anthropic's shape, with the
 * status of the out-of-credits refusal, which Anthropic answers as a 400.
 */
export function parseAnthropicError(bodyText: string): ErrorBodyReading {
  try {
    const e = readAnthropicError(JSON.parse(bodyText));
    if (e) return statusOfAnthropicError(e) === 402 ? { message: e.message, status: 402 } : e.message;
  } catch {
    // not JSON
  }
  return bodyText.trim().slice(0, 500);
}
