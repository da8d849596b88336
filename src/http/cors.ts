import cors from '@fastify/cors';
import type { FastifyInstance } from 'fastify';
import { notFound } from './error-handler.ts';

/**
 * The request headers a browser page may send: what the market's signed calls and reads take, and
 * what the official OpenAI and Anthropic SDKs send from a browser (their sources list them). A
 * preflight naming any other header is answered without it, so the browser refuses the call.
 */
const ALLOWED_HEADERS = [
  'content-type', 'authorization', 'x-api-key', 'idempotency-key', 'x-request-id', 'user-agent',
  // The market: signatures, conditional reads, the stream's resume.
  'x-api-timestamp', 'x-api-signature', 'x-wallet-signature', 'x-wallet-message', 'if-none-match', 'last-event-id',
  // The OpenAI SDK.
  'openai-organization', 'openai-project', 'openai-beta',
  // The Anthropic SDK.
  'anthropic-version', 'anthropic-beta', 'anthropic-dangerous-direct-browser-access', 'anthropic-organization-id', 'anthropic-workspace-id',
  // Both SDKs describe themselves in these.
  'x-stainless-arch', 'x-stainless-lang', 'x-stainless-os', 'x-stainless-package-version', 'x-stainless-retry-count', 'x-stainless-runtime',
  'x-stainless-runtime-version', 'x-stainless-timeout', 'x-stainless-helper', 'x-stainless-helper-method', 'x-stainless-poll-helper',
  'x-stainless-custom-poll-interval',
];

/** Answer headers of ours a page's script may read (beyond the ones browsers always show). */
const EXPOSED_HEADERS = [
  'x-request-id', 'request-id', 'x-ratelimit-limit-requests', 'x-ratelimit-remaining-requests', 'x-ratelimit-reset-requests', 'retry-after',
  'x-should-retry', 'x-svc-model', 'x-svc-lane', 'x-svc-demo', 'etag', 'idempotent-replayed',
];

/**
 * Lets web pages of any origin call the surface it is registered in (the market's /api, the
 * inference API), as Polymarket's, Kalshi's and OpenAI's public APIs do. Never with credentials:
 * these APIs take keys and signatures in headers, never cookies, so no answer says
 * `access-control-allow-credentials` and a browser sends no cookie cross-origin. A preflight is
 * answered 204 in the first onRequest hooks, before the rate limit and any credential check (a
 * preflight carries no credentials); an OPTIONS that is no preflight (no `origin` or no
 * `access-control-request-method`) is the unknown route it was before, in the surface's error
 * shape, rather than the plugin's plain-text 400. The dashboard and /admin, whose sessions
 * are cookies, never register it (docs/api-decisions.md, "Market API: eleventh audit").
 */
export async function allowCrossOrigin(app: FastifyInstance): Promise<void> {
  // A callback hook, not an async one: it runs on every request of the inference hot path, and an
  // async hook costs a promise and a microtask each time.
  app.addHook('onRequest', (request, reply, done) => {
    if (request.method !== 'OPTIONS' || (request.headers.origin && request.headers['access-control-request-method'])) return done();
    // The surface's own not-found context (the bare prefix, which the plugin's OPTIONS route does not match) cannot call itself.
    if (request.is404) notFound(request, reply);
    else reply.callNotFound();
  });
  await app.register(cors, {
    origin: '*',
    credentials: false,
    methods: ['GET', 'HEAD', 'POST', 'PUT', 'DELETE'],
    allowedHeaders: ALLOWED_HEADERS,
    exposedHeaders: EXPOSED_HEADERS,
    // Ten minutes: a page's calls skip most preflights, and a change of these lists reaches browsers soon.
    maxAge: 600,
  });
}
