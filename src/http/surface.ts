/** Which client surface a URL belongs to; each answers errors in its own body shape. */
export type Surface = 'market' | 'plain';

export function surfaceOf(url: string): Surface {
  return url === '/api' || url.startsWith('/api/') || url.startsWith('/api?') ? 'market' : 'plain';
}

export function errorBody(surface: Surface, message: string): Record<string, unknown> {
  return surface === 'market' ? { success: false, error: message } : { error: message };
}

/**
 * The URL routed for `url`: on the market surface a path ending in `/` is the path without it
 * (`/api/markets/` is `/api/markets`), as Fastify's `ignoreTrailingSlash` would do, but for
 * `/api` only; the other surfaces keep their exact paths. The query string is kept. Signatures
 * cover the path as sent (request.originalUrl), not this one.
 */
export function marketPathWithoutTrailingSlash(url: string): string {
  if (surfaceOf(url) !== 'market') return url;
  const q = url.indexOf('?');
  const path = q === -1 ? url : url.slice(0, q);
  if (path.length <= '/api/'.length || !path.endsWith('/')) return url;
  return path.slice(0, -1) + (q === -1 ? '' : url.slice(q));
}
