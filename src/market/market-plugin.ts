import type { FastifyInstance } from 'fastify';
import { clientIp } from '../http/client-ip.ts';
import { setRateLimitHeaders } from '../http/rate-limit-headers.ts';
import type { RateLimiter } from '../ratelimit/limiter.ts';
import type { Clock } from '../shared/clock.ts';
import { HttpError } from '../shared/errors.ts';
import type { Db } from '../storage/database.ts';
import { marketReadRoutes } from './routes/read-routes.ts';

export interface MarketPluginOptions {
  readonly limiter: RateLimiter;
  readonly clock: Clock;
  readonly db: Db;
  /** MARKET_LIST_CACHE_MS (0: off). */
  readonly listCacheMs?: number;
}

/** The market surface under /api: 200 requests per minute per client IP, then its routes. */
export async function marketPlugin(app: FastifyInstance, opts: MarketPluginOptions): Promise<void> {
  app.addHook('onRequest', async (request, reply) => {
    const d = await opts.limiter.consume(clientIp(request));
    setRateLimitHeaders(reply, d);
    if (!d.allowed) throw new HttpError(429, 'Rate limit exceeded');
  });

  app.get(
    '/time',
    {
      schema: {
        tags: ['market'],
        summary: "The server's Unix time in seconds",
        response: {
          200: {
            type: 'object',
            properties: {
              success: { type: 'boolean' },
              data: { type: 'object', properties: { time: { type: 'integer' }, iso: { type: 'string' } } },
            },
          },
        },
      },
    },
    async () => {
      const now = opts.clock.now();
      return { success: true, data: { time: Math.floor(now / 1000), iso: new Date(now).toISOString() } };
    },
  );

  await app.register(marketReadRoutes, { db: opts.db, clock: opts.clock, listCacheMs: opts.listCacheMs ?? 0 });
}
