import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { notFound } from '../../shared/errors.ts';
import { getFeaturedMarket, getMarketDetail, marketCategories } from '../queries/market.detail.ts';
import { MARKET_SORTS, listMarkets } from '../queries/markets.list.ts';
import { type ReadRouteOptions, nowOf } from './read-context.ts';
import { Category, MarketDetail, MarketItem } from './read-responses.ts';
import { IdParam, PageQuery, envelope, nullable, pageEnvelope, readResponses, stringEnum } from './read-schemas.ts';

export const MARKET_STATUSES = ['active', 'resolved', 'cancelled', 'pending'] as const;
export const MARKET_TYPES = ['yesno', 'threeway', 'updown', 'custom'] as const;
/** How many markets GET /api/markets/trending shows. */
export const TRENDING_COUNT = 10;

const tags = ['market'];

export async function marketsRoutes(app: FastifyInstance, opts: ReadRouteOptions): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  /** The answer to this exact URL from the micro-cache, else computed (and kept when enabled). */
  async function cached(req: FastifyRequest, reply: FastifyReply, compute: () => Promise<object>): Promise<unknown> {
    if (!opts.listCache.enabled) return compute();
    const body = opts.listCache.get(req.url) ?? String(reply.serialize(await compute()));
    opts.listCache.set(req.url, body);
    return reply.type('application/json; charset=utf-8').send(body);
  }

  r.get(
    '/markets',
    {
      schema: {
        tags,
        summary: 'List markets',
        querystring: Type.Object({
          status: Type.Optional(stringEnum(MARKET_STATUSES, 'Market status')),
          category: Type.Optional(Type.String({ maxLength: 100, description: 'Exact category, e.g. crypto' })),
          market_type: Type.Optional(stringEnum(MARKET_TYPES)),
          sort: Type.Optional(stringEnum(MARKET_SORTS, 'Default newest')),
          q: Type.Optional(
            Type.String({ maxLength: 200, description: 'Words matched case-insensitively in title, description, category, event title' }),
          ),
          ...PageQuery,
        }),
        response: readResponses(pageEnvelope(MarketItem)),
      },
    },
    async (req, reply) =>
      cached(req, reply, async () => {
        const { status, category, market_type, q, page, limit } = req.query;
        const sort = req.query.sort ?? 'newest';
        const { items, total } = await listMarkets(opts.db, { status, category, market_type, q }, { sort, page, limit }, nowOf(opts));
        return { success: true, data: items, total, page, limit };
      }),
  );

  r.get(
    '/markets/trending',
    {
      schema: {
        tags,
        summary: `The ${TRENDING_COUNT} active markets with the most volume in the last 24 hours`,
        response: readResponses(envelope(Type.Array(MarketItem))),
      },
    },
    async (req, reply) =>
      cached(req, reply, async () => {
        const { items } = await listMarkets(opts.db, { status: 'active' }, { sort: 'trending', page: 1, limit: TRENDING_COUNT }, nowOf(opts));
        return { success: true, data: items };
      }),
  );

  r.get(
    '/markets/featured',
    {
      schema: {
        tags,
        summary: 'The market an admin featured most recently (null when none)',
        response: readResponses(envelope(nullable(MarketDetail))),
      },
    },
    async () => ({ success: true, data: await getFeaturedMarket(opts.db, nowOf(opts)) }),
  );

  r.get(
    '/markets/categories',
    {
      schema: { tags, summary: 'Every category with its market counts', response: readResponses(envelope(Type.Array(Category))) },
    },
    async (req, reply) => cached(req, reply, async () => ({ success: true, data: await marketCategories(opts.db) })),
  );

  r.get(
    '/markets/:id',
    {
      schema: {
        tags,
        summary: 'One market with its outcomes (pools, seeds, labels, prices) and its event',
        params: Type.Object({ id: IdParam }),
        response: readResponses(envelope(MarketDetail), { notFound: true }),
      },
    },
    async (req) => {
      const market = await getMarketDetail(opts.db, req.params.id, nowOf(opts));
      if (!market) throw notFound('Market not found');
      return { success: true, data: market };
    },
  );
}
