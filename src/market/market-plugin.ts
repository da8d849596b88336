import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { clientIp } from '../http/client-ip.ts';
import { allowCrossOrigin } from '../http/cors.ts';
import { readEmptyBodiesAsNone } from '../http/empty-body.ts';
import { notFound } from '../http/error-handler.ts';
import { setRateLimitHeaders } from '../http/rate-limit-headers.ts';
import { hasEmptySegment } from '../http/surface.ts';
import type { RateLimiter } from '../ratelimit/limiter.ts';
import type { Clock } from '../shared/clock.ts';
import { HttpError } from '../shared/errors.ts';
import type { Db } from '../storage/database.ts';
import type { ApiKeyLookup } from './auth/api-key.lookup.ts';
import { installRawJsonParser, requireMarketAuth, type RequireMarketAuthOptions } from './auth/market-auth.fastify.ts';
import { custodyRoutes, type CustodyRoutesDeps } from './routes/custody.routes.ts';
import { keyRoutes } from './routes/keys.routes.ts';
import { profileRoutes } from './routes/profile.routes.ts';
import { tradeRoutes } from './routes/pool.routes.ts';
import { envelope, IsoTime } from './routes/read-schemas.ts';
import { marketReadRoutes } from './routes/read.routes.ts';
import type { MarketFeed } from './live/market-feed.ts';
import type { MarketStream } from './live/market-stream.ts';
import { createTradeBatcher } from './trading/trade-batcher.ts';

export interface MarketPluginOptions {
  readonly limiter: RateLimiter;
  readonly clock: Clock;
  readonly db: Db;
  /** Market API keys (cached lookups; revocation through it is seen here at once). */
  readonly marketKeys: ApiKeyLookup;
  /** Seals API secrets at rest. */
  readonly secretsKey: Buffer;
  /** The market's changes (own commits and other instances'): keeps reads exact and feeds the stream. */
  readonly feed: MarketFeed;
  /** GET /api/stream. */
  readonly stream: MarketStream;
  /** What signed requests need: the database, Redis (replay record), the API keys. */
  readonly auth: Omit<RequireMarketAuthOptions, 'clock'>;
  /** Balance, ledger, withdrawals and deposits. */
  readonly custody: Omit<CustodyRoutesDeps, 'clock' | 'auth'>;
}

/** One request of the client's address against the market's limit: its headers, or 429 past it. */
export function countMarketRequest(limiter: RateLimiter): (request: FastifyRequest, reply: FastifyReply) => Promise<void> {
  return async (request, reply) => {
    const d = await limiter.consume(clientIp(request));
    setRateLimitHeaders(reply, d);
    if (!d.allowed) throw new HttpError(429, 'Rate limit exceeded');
  };
}

/** The market surface under /api: 200 requests per minute per client IP, then its routes. */
export async function marketPlugin(app: FastifyInstance, opts: MarketPluginOptions): Promise<void> {
  // First, so preflights are answered before the rate limit and the checks below.
  await allowCrossOrigin(app);
  // The limit is of requests per address, whatever they ask for: an unknown path under /api runs
  // this context's hooks, so a scanner's probes count like any other request (docs/api-decisions.md,
  // "Errors and limits: session 29 audit").
  app.setNotFoundHandler(notFound);
  const count = countMarketRequest(opts.limiter);
  app.addHook('onRequest', async (request, reply) => {
    await count(request, reply);
    // A path with an empty segment (`/api/markets//`, `/api/markets//price`) names no resource,
    // even where the router would take the empty segment as a parameter: the unknown route it is
    // (docs/api-decisions.md, "Market API: fourth audit").
    if (hasEmptySegment(request.url) && !request.is404) {
      reply.callNotFound();
      return reply;
    }
  });
  // Signatures cover the exact body bytes: every JSON body under /api keeps them.
  installRawJsonParser(app);
  readEmptyBodiesAsNone(app);
  const { db, clock } = opts;
  const auth = requireMarketAuth({ ...opts.auth, clock });
  const trades = createTradeBatcher({ db, clock, onCommitted: (t) => opts.feed.committed(t) });
  await app.register(tradeRoutes({ db, clock, auth, trades }));
  await app.register(keyRoutes({ db, clock, auth, keys: opts.marketKeys, secretsKey: opts.secretsKey }));
  await app.register(profileRoutes({ db, auth }));

  // The server's clock for clients whose own drifts (signatures must be within 30 s, docs/signing.md):
  // the market envelope, `data.time` in Unix seconds as `x-api-timestamp` takes them, `data.iso`
  // the same instant; never cached (docs/api-decisions.md, "Market API: inputs and shapes").
  app.get(
    '/time',
    {
      schema: {
        tags: ['market'],
        summary: "The server's Unix time in seconds",
        description: 'For signing: `x-api-timestamp` and the wallet message take `data.time`. Sent with `cache-control: no-store`.',
        response: {
          200: envelope(
            Type.Object({
              time: Type.Integer({ description: 'Unix time in seconds (whole seconds, rounded down)' }),
              iso: IsoTime('The same instant, ISO 8601 UTC with milliseconds'),
            }),
          ),
        },
      },
    },
    async (_request, reply) => {
      const now = opts.clock.now();
      void reply.header('cache-control', 'no-store');
      return { success: true, data: { time: Math.floor(now / 1000), iso: new Date(now).toISOString() } };
    },
  );

  await app.register(marketReadRoutes, { db: opts.db, clock: opts.clock, feed: opts.feed, stream: opts.stream });
  await app.register(custodyRoutes({ ...opts.custody, clock: opts.clock, auth }));
}
