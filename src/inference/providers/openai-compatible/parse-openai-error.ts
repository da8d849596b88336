import type { ErrorBodyReading } from '../provider-failure.ts';

export interface OpenAIErrorInfo {
  readonly message: string;
  /** The status an error type stands for, when the error came without an HTTP status (in a stream). */
  readonly status: number | null;
}

const STATUS_OF_TYPE: Record<string, number> = {
  invalid_request_error: 400,
  authentication_error: 401,
  permission_error: 403,
  not_found_error: 404,
  rate_limit_error: 429,
  rate_limit_exceeded: 429,
  // The service's account out of credits, not a rate limit (OpenAI sends it with a 429).
  insufficient_quota: 402,
  server_error: 500,
  api_error: 500,
  // Anthropic's type, as servers that speak both protocols send it: an overloaded upstream, which
  // the messages protocol answers as 529 (the OpenAI ones as 503).
  overloaded_error: 529,
};

/** `{"message", "type", "code"}` of an OpenAI error object (or a bare string some servers send). */
export function readOpenAIErrorObject(error: unknown): OpenAIErrorInfo | null {
  if (error === undefined || error === null) return null;
  if (typeof error === 'string') return { message: error, status: null };
  if (typeof error !== 'object') return { message: String(error), status: null };
  const e = error as { message?: unknown; type?: unknown; code?: unknown };
  const message = typeof e.message === 'string' && e.message !== '' ? e.message : 'upstream error';
  const type = typeof e.type === 'string' ? e.type : typeof e.code === 'string' ? e.code : '';
  const code = typeof e.code === 'number' ? e.code : null;
  return { message, status: STATUS_OF_TYPE[type] ?? (code && code >= 400 && code < 600 ? code : null) };
}

/**
 * The error a 200 carries in place of an answer: an `error` object (OpenAI, OpenRouter), or the
 * body itself when it is `{"object": "error", "message", "type", "code"}`, as vLLM and
 * FastChat-style servers stream their errors. Null for anything else.
 */
export function readErrorInAnswer(body: { readonly error?: unknown; readonly object?: unknown }): OpenAIErrorInfo | null {
  return readOpenAIErrorObject(body.error) ?? (body.object === 'error' ? readOpenAIErrorObject(body) : null);
}

/**
 * The message of an error response body (`{"error": {...}}`, or plain text from a proxy), with the
 * status of an `insufficient_quota` error, which OpenAI answers as a 429.
 */
export function parseOpenAIError(bodyText: string): ErrorBodyReading {
  try {
    const json = JSON.parse(bodyText) as { error?: unknown; message?: unknown; detail?: unknown };
    const info = readOpenAIErrorObject(json.error);
    if (info) return info.status === 402 ? { message: info.message, status: 402 } : info.message;
    // FastAPI-style servers (vLLM and friends) answer `{"detail": ...}` or `{"message": ...}`.
    if (typeof json.message === 'string') return json.message;
    if (typeof json.detail === 'string') return json.detail;
  } catch {
    // not JSON: fall through to the text
  }
  return bodyText.trim().slice(0, 500);
}
