import assert from 'node:assert/strict';

/** A browser's session with the dashboard API: the cookies it was given and its CSRF token. */
export interface DashboardSession {
  /** Calls `/dashboard/api<path>`; the answer is given back whatever its status. */
  call(method: string, path: string, body?: unknown): Promise<{ status: number; headers: Headers; json: Record<string, unknown> }>;
  /** Reads the session's CSRF token again (after sign-up or sign-in changed the session). */
  refresh(): Promise<void>;
  /** The `cookie` header this browser sends, for requests made outside `call`. */
  cookieHeader(): string;
}

/**
 * `headers` go on every call: `x-forwarded-for` gives each browser an address of its own behind
 * `TRUST_PROXY`, so tests making many accounts stay under the per-address sign-up limit.
 */
export async function dashboardSession(baseUrl: string, opts: { headers?: Record<string, string> } = {}): Promise<DashboardSession> {
  const cookies = new Map<string, string>();
  let csrf = '';
  const cookieHeader = () => [...cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  const call: DashboardSession['call'] = async (method, path, body) => {
    const r = await fetch(`${baseUrl}/dashboard/api${path}`, {
      method,
      headers: {
        ...opts.headers,
        cookie: cookieHeader(),
        ...(method === 'GET' ? {} : { 'x-csrf-token': csrf }),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    for (const c of r.headers.getSetCookie()) {
      const [pair = ''] = c.split(';');
      const at = pair.indexOf('=');
      cookies.set(pair.slice(0, at), pair.slice(at + 1));
    }
    return { status: r.status, headers: r.headers, json: (await r.json()) as Record<string, unknown> };
  };
  const refresh = async () => void (csrf = (await call('GET', '/session')).json.csrf_token as string);
  await refresh();
  return { call, refresh, cookieHeader };
}

let addresses = 0;

/** A new browser at an address of its own (`x-forwarded-for`, read behind TRUST_PROXY), so the per-address sign-up limit is not what a test meets. */
export function browserAt(baseUrl: string): Promise<DashboardSession> {
  return dashboardSession(baseUrl, { headers: { 'x-forwarded-for': `198.51.100.${++addresses}` } });
}

/** A browser (browserAt) that signed up with `email` and `password` (201), its session read again; `id` is the new account's. */
export async function signedUp(baseUrl: string, email: string, password: string): Promise<DashboardSession & { id: number }> {
  const b = await browserAt(baseUrl);
  const r = await b.call('POST', '/sign-up', { email, password });
  assert.equal(r.status, 201, JSON.stringify(r.json));
  await b.refresh();
  return Object.assign(b, { id: r.json.id as number });
}
