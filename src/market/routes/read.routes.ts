import type { FastifyInstance } from 'fastify';
import { eventsRoutes } from './events.routes.ts';
import { marketPricesRoutes } from './market-prices.routes.ts';
import { marketsRoutes } from './markets.routes.ts';
import { portfolioRoutes } from './portfolio.routes.ts';
import type { Clock } from '../../shared/clock.ts';
import { badRequest } from '../../shared/errors.ts';
import type { Db } from '../../storage/database.ts';
import { LiveAnswers } from '../live/live-answers.ts';
import type { MarketFeed } from '../live/market-feed.ts';
import type { MarketStream } from '../live/market-stream.ts';
import { streamRoutes } from './stream.routes.ts';
import { searchRoutes } from './search.routes.ts';
import { tradesRoutes } from './trades.routes.ts';
import { usersRoutes } from './users.routes.ts';
import { marketSchemaErrors, refuseNonDecimalIntegers, refusePageWithOffset, refuseRepeatedParameters } from './schema-errors.ts';

/**
 * Every public GET endpoint of the market. Registered inside the market plugin, so its rate
 * limit and error shape apply; a malformed parameter is a 400 naming it (schema-errors.ts).
 */
export interface MarketReadOptions {
  readonly db: Db;
  readonly clock: Clock;
  /** Keeps the reused answers exact. */
  readonly feed: MarketFeed;
  readonly stream: MarketStream;
}

export async function marketReadRoutes(app: FastifyInstance, options: MarketReadOptions): Promise<void> {
  const opts = { db: options.db, clock: options.clock, live: new LiveAnswers(options.feed, options.clock) };
  // PostgreSQL text cannot hold NUL; refuse it here rather than fail in the query.
  app.addHook('preValidation', async (req) => {
    for (const [name, value] of [...Object.entries(req.params ?? {}), ...Object.entries(req.query ?? {})]) {
      const values: unknown[] = Array.isArray(value) ? value : [value];
      if (values.some((v) => typeof v === 'string' && v.includes('\u0000'))) {
        throw badRequest(`Invalid ${name}: must not contain NUL characters`);
      }
    }
  });
  app.addHook('preValidation', refuseRepeatedParameters);
  app.addHook('preValidation', refusePageWithOffset);
  app.addHook('preValidation', refuseNonDecimalIntegers);
  app.addHook('onRoute', (route) => {
    route.schemaErrorFormatter ??= marketSchemaErrors(route.schema as Parameters<typeof marketSchemaErrors>[0]);
  });
  for (const routes of [marketsRoutes, marketPricesRoutes, eventsRoutes, tradesRoutes, portfolioRoutes, usersRoutes, searchRoutes]) {
    await app.register(routes, opts);
  }
  await app.register(streamRoutes(options.stream, options.db));
}
