/** Which client surface a URL belongs to; each answers errors in its own body shape. */
export type Surface = 'market' | 'plain';

export function surfaceOf(url: string): Surface {
  return url === '/api' || url.startsWith('/api/') || url.startsWith('/api?') ? 'market' : 'plain';
}

export function errorBody(surface: Surface, message: string): Record<string, unknown> {
  return surface === 'market' ? { success: false, error: message } : { error: message };
}
