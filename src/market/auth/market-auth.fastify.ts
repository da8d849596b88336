/**
 * The Fastify side of market authentication: raw body capture, the preHandler that signs
 * requests in, and the Idempotency-Key reader. Everything it decides is in the domain modules.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Redis } from 'ioredis';
import type { Clock } from '../../shared/clock.ts';
import { namedJsonParser } from '../../http/json-body.ts';
import { HttpError } from '../../shared/errors.ts';
import type { Db } from '../../storage/database.ts';
import type { ApiKeyLookup } from './api-key.lookup.ts';
import { authError } from './auth.errors.ts';
import { authenticateMarketRequest, SignatureAlreadyUsed, type MarketAuth } from './authenticate.ts';
import { findStoredAnswer } from './idempotency-outside.ts';
import { sha256Hex } from './digest.ts';
import { isValidIdempotencyKey, type IdempotentRequest, type StoredAnswer } from './idempotency.ts';
import { createReplayCache } from './create-replay-cache.ts';
import type { ReplayCache } from './replay-cache.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The exact body bytes of an application/json request (see installRawJsonParser). */
    rawBody?: Buffer;
    /** Set by requireMarketAuth. */
    marketAuth?: MarketAuth;
  }
  interface FastifyContextConfig {
    /** The Idempotency-Key route name of a signed route (lets an identical retry replay its answer). */
    idempotencyRoute?: string;
  }
}

const EMPTY = Buffer.alloc(0);

/**
 * Replaces this plugin context's body parsers with one that keeps the exact bytes on
 * `request.rawBody` (signatures cover bytes, not parsed JSON) and then parses them with Fastify's
 * own JSON parser, so malformed or empty JSON keeps its usual 400 and prototype poisoning stays
 * refused, as a 400 naming the key (namedJsonParser). Every body of the market is JSON: one sent as `text/plain` (fetch's default for a
 * string), without a content type (Python requests' `data=`) or as a form (curl's `-d`) is read
 * as JSON too, since the signature covers its bytes whatever the header says.
 */
export function installRawJsonParser(app: FastifyInstance): void {
  const parseJson = namedJsonParser(app);
  const parser = (request: FastifyRequest, body: string | Buffer, done: (err: Error | null, body?: unknown) => void) => {
    const raw = body as Buffer;
    request.rawBody = raw;
    parseJson(request, raw, done);
  };
  app.removeContentTypeParser(['application/json', 'text/plain']);
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, parser);
  app.addContentTypeParser('text/plain', { parseAs: 'buffer' }, parser);
  // Any other type, and none (Fastify asks the catch-all for a body without content-type).
  app.addContentTypeParser('*', { parseAs: 'buffer' }, parser);
}

export interface RequireMarketAuthOptions {
  readonly db: Db;
  readonly redis: Redis | null;
  readonly clock: Clock;
  readonly keys: ApiKeyLookup;
  /** config.redisPrefix; instances that must share the replay record use the same one. */
  readonly redisPrefix?: string;
  /** Overrides the replay cache chosen from `redis` / `db`. */
  readonly replay?: ReplayCache;
}

/**
 * A preHandler accepting an API-key HMAC or a wallet signature; sets `request.marketAuth` and
 * refuses a body whose `wallet_addr` is not the signer's wallet. Routes using it must be in a
 * context where installRawJsonParser ran, or have no body.
 */
export function requireMarketAuth(opts: RequireMarketAuthOptions) {
  const replay = opts.replay ?? createReplayCache(opts);
  const deps = { keys: opts.keys, replay, clock: opts.clock };
  return async function marketAuthPreHandler(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | void> {
    // A body parsed by any other parser left no bytes to check: it would go unsigned.
    if (request.rawBody === undefined && request.body !== undefined) {
      throw new HttpError(415, 'unsupported content type; send application/json');
    }
    try {
      request.marketAuth = await authenticateMarketRequest(
        {
          method: request.method,
          // The path as sent: a trailing slash the router ignores is still part of what was signed.
          path: pathOf(request.originalUrl),
          query: request.originalUrl.slice(pathOf(request.originalUrl).length),
          header: (name) => headerOf(request, name),
          rawBody: request.rawBody ?? EMPTY,
          bodyWallet: bodyWalletOf(request.body),
        },
        deps,
      );
    } catch (e) {
      const stored = e instanceof SignatureAlreadyUsed ? await storedAnswerOfRetry(opts.db, request, e.auth) : null;
      if (!stored) throw e;
      // Clients resend identical bytes after a dropped connection: the answer they missed.
      return reply.header('idempotent-replayed', 'true').code(stored.status).send(stored.body);
    }
  };
}

/**
 * The Idempotency-Key of an authenticated request as the idempotency module needs it; null when
 * the header is absent. 400 when it is malformed.
 */
export function idempotentRequestOf(request: FastifyRequest, route: string): IdempotentRequest | null {
  // An empty key is not an absent one: the client asked for a retry-safe request, and running it
  // as an ordinary one would move the money again on its retry (docs/api-decisions.md, "Market
  // API: seventeenth audit"). It is malformed, like any key that is not 1 to 255 characters.
  if (request.headers['idempotency-key'] === '') throw authError('invalidIdempotencyKey');
  const key = headerOf(request, 'idempotency-key');
  if (key === undefined) return null;
  if (!isValidIdempotencyKey(key)) throw authError('invalidIdempotencyKey');
  const auth = request.marketAuth;
  if (!auth) throw new Error('idempotentRequestOf: requireMarketAuth must run first');
  return { principal: auth.wallet, route, key, requestSha256: sha256Hex(request.rawBody ?? EMPTY) };
}

/**
 * The stored answer of a completed request with the same Idempotency-Key and the same bytes, for
 * the route's `config.idempotencyRoute`; null when there is none (the signature stays refused).
 */
async function storedAnswerOfRetry(db: Db, request: FastifyRequest, auth: MarketAuth): Promise<StoredAnswer | null> {
  const route = request.routeOptions.config.idempotencyRoute;
  const key = headerOf(request, 'idempotency-key');
  if (typeof route !== 'string' || key === undefined || !isValidIdempotencyKey(key)) return null;
  return findStoredAnswer(db, { principal: auth.wallet, route, key, requestSha256: sha256Hex(request.rawBody ?? EMPTY) });
}

/** Sends a stored or fresh answer; a replay says so in `idempotent-replayed: true`. */
export function sendStoredAnswer(reply: FastifyReply, answer: StoredAnswer & { readonly replayed: boolean }): FastifyReply {
  if (answer.replayed) void reply.header('idempotent-replayed', 'true');
  return reply.code(answer.status).send(answer.body);
}

function pathOf(url: string): string {
  const q = url.indexOf('?');
  return q === -1 ? url : url.slice(0, q);
}

function headerOf(request: FastifyRequest, name: string): string | undefined {
  const v = request.headers[name];
  const s = Array.isArray(v) ? v[0] : v;
  return s === undefined || s === '' ? undefined : s;
}

function bodyWalletOf(body: unknown): unknown {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return undefined;
  return Object.prototype.hasOwnProperty.call(body, 'wallet_addr') ? (body as Record<string, unknown>).wallet_addr : undefined;
}
