/** A small HTTP client of the admin API, used by the command line. */
export interface AdminClient {
  call(method: string, path: string, body?: unknown): Promise<unknown>;
}

export class AdminApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export function createAdminClient(serviceUrl: string, token: string): AdminClient {
  const base = serviceUrl.replace(/\/+$/, '');
  return {
    async call(method, path, body) {
      let res: Response;
      try {
        res = await fetch(`${base}/admin${path}`, {
          method,
          headers: {
            authorization: `Bearer ${token}`,
            ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
      } catch (e) {
        throw new ServiceUnreachableError(base, e);
      }
      const text = await res.text();
      let parsed: unknown = text;
      try {
        parsed = text ? JSON.parse(text) : null;
      } catch {
        // Not JSON: keep the text for the message.
      }
      if (!res.ok) {
        const msg = (parsed as { error?: string } | null)?.error ?? text;
        const hint = res.status === 401 ? ` (the service at ${base} refused the admin token: check ADMIN_TOKEN, or DATA_DIR/admin-token of that service)` : '';
        throw new AdminApiError(res.status, `${res.status}: ${msg}${hint}`);
      }
      return parsed;
    },
  };
}

/** The service did not answer at all (refused, no route, DNS): says where it looked and what to check. */
export class ServiceUnreachableError extends Error {
  constructor(url: string, cause: unknown) {
    const c = (cause as { cause?: { code?: unknown } } | null)?.cause?.code ?? (cause as { code?: unknown } | null)?.code;
    super(
      `could not reach the service at ${url}${typeof c === 'string' ? ` (${c})` : ''}: is it running (\`npm start\`)? ` +
        'If it listens elsewhere, set SERVICE_URL (or PORT) to its address.',
    );
    this.name = 'ServiceUnreachableError';
  }
}
