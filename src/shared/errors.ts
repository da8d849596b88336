/**
 * An error with the HTTP status and the client-facing message. Domain code throws these; the one
 * error handler renders them in the shape of the surface the request came in on.
 */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    /** Extra headers for the answer (e.g. retry-after). */
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message);
    this.name = 'HttpError';
  }
}

/**
 * For a 5xx that no retry within seconds clears (the service's own configuration or its account
 * at an upstream): the OpenAI and Anthropic SDKs retry every 5xx unless the answer says this.
 */
export const NO_CLIENT_RETRY: Readonly<Record<string, string>> = Object.freeze({ 'x-should-retry': 'false' });

export const badRequest = (message: string): HttpError => new HttpError(400, message);
export const unauthorized = (message: string): HttpError => new HttpError(401, message);
export const forbidden = (message: string): HttpError => new HttpError(403, message);
export const notFound = (message: string): HttpError => new HttpError(404, message);
export const conflict = (message: string): HttpError => new HttpError(409, message);
