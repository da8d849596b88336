/** Which client surface a URL belongs to; each answers errors in its own body shape. */
export type Surface = 'market' | 'plain';

/**
 * The market surface is `/api` and what is under it; a path that starts with more than one slash
 * (`//api/markets`) is the market's too: it has an empty segment, so it is not found, answered in
 * the market's shape (docs/api-decisions.md, "Market API: fifth audit").
 */
const MARKET = /^\/+api(?:$|[/?])/;

export function surfaceOf(url: string): Surface {
  return MARKET.test(url) ? 'market' : 'plain';
}

export function errorBody(surface: Surface, message: string): Record<string, unknown> {
  return surface === 'market' ? { success: false, error: message } : { error: message };
}

/** The path of `url`, without its query string. */
function pathOf(url: string): string {
  const q = url.indexOf('?');
  return q === -1 ? url : url.slice(0, q);
}

/**
 * Whether the path of `url` has an empty segment (`//`, anywhere but in the query string): it
 * names no resource, so a market path with one is 404 `Not found` (src/market/market-plugin.ts;
 * docs/api-decisions.md, "Market API: fourth audit").
 */
export function hasEmptySegment(url: string): boolean {
  return pathOf(url).includes('//');
}

/**
 * The URL routed for `url`: on the market surface a path ending in `/` is the path without it
 * (`/api/markets/` is `/api/markets`), as Fastify's `ignoreTrailingSlash` would do, but for
 * `/api` only; the other surfaces keep their exact paths. The query string is kept. A path with
 * an empty segment is left as it is (`/api/markets//` is not `/api/markets/`, whose empty last
 * segment would reach a route as an empty parameter): it is not found. Signatures cover the path
 * as sent (request.originalUrl), not this one.
 */
export function marketPathWithoutTrailingSlash(url: string): string {
  if (surfaceOf(url) !== 'market') return url;
  const path = pathOf(url);
  if (path.length <= '/api/'.length || !path.endsWith('/') || hasEmptySegment(path)) return url;
  return path.slice(0, -1) + url.slice(path.length);
}
