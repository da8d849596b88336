import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The page sources, served as they are (no build step): plain HTML, CSS and ES modules. */
export const WEB_ROOT = fileURLToPath(new URL('../../../web/dashboard/', import.meta.url));

/** Paths the single page answers; its script renders the view for each. */
const PAGES = ['/', '/account', '/account/keys', '/account/usage', '/account/credits', '/account/verify', '/account/reset', '/account/forgot', '/console'];

// Only the service's own files run on these pages; nothing loads from elsewhere.
const CSP = "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

export async function dashboardPagesRoutes(app: FastifyInstance): Promise<void> {
  const html = readFileSync(`${WEB_ROOT}index.html`, 'utf8');
  await app.register(fastifyStatic, { root: WEB_ROOT, prefix: '/dashboard/assets/', index: false, wildcard: true, maxAge: 60_000 });
  // The address people try first for "the dashboard" (the inference document's 402 sends them there).
  for (const path of ['/dashboard', '/dashboard/']) app.get(path, { schema: { hide: true } }, async (_request, reply) => reply.redirect('/account'));
  const page = (reply: FastifyReply, status: number): FastifyReply =>
    reply
      .code(status)
      .type('text/html; charset=utf-8')
      .header('content-security-policy', CSP)
      .header('x-content-type-options', 'nosniff')
      .header('referrer-policy', 'no-referrer')
      .header('cache-control', 'no-store')
      .send(html);
  for (const path of PAGES) app.get(path, { schema: { hide: true } }, async (_request, reply) => page(reply, 200));
  // A mistyped or trailing-slash address under the pages' folders is a person's in a browser:
  // a JSON 404 body would be all they saw. A page with a slash added goes to the page; any other
  // gets the page shell with status 404, whose script says the page does not exist.
  for (const folder of ['/account/*', '/console/*']) {
    app.get(folder, { schema: { hide: true } }, async (request, reply) => {
      const [path, query] = splitQuery(request.url);
      const trimmed = path.replace(/\/+$/, '');
      if (trimmed !== path && PAGES.includes(trimmed)) return reply.redirect(trimmed + query, 301);
      return page(reply, 404);
    });
  }
}

function splitQuery(url: string): [string, string] {
  const q = url.indexOf('?');
  return q === -1 ? [url, ''] : [url.slice(0, q), url.slice(q)];
}
