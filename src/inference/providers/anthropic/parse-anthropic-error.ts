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

/** The message of an error response body, or its text when it is not Anthropic's shape. */
export function parseAnthropicError(bodyText: string): string {
  try {
    const e = readAnthropicError(JSON.parse(bodyText));
    if (e) return e.message;
  } catch {
    // not JSON
  }
  return bodyText.trim().slice(0, 500);
}
