import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { badRequest, notFound } from '../../shared/errors.ts';
import type { AnswerDeps } from '../live/live-answers.ts';
import { sendLiveAnswer } from './send-live-answer.ts';
import { CHANGE_WINDOWS } from '../pricing/index.ts';
import { getFeaturedMarket, getMarketDetail, marketCategories } from '../queries/market.detail.ts';
import { MARKET_SORTS, listMarkets, listMarketsPage } from '../queries/markets.list.ts';
import { statusesOf } from '../queries/status-filter.ts';
import { CATEGORY_RULE, isCategory, normalizeCategory } from '../markets/market-fields.ts';
import { type ReadRouteOptions, nowOf } from './read-context.ts';
import { Category, MarketDetail, MarketItem } from './read-responses.ts';
import {
  CursorQuery,
  FlagQuery,
  IdParam,
  PageQuery,
  envelope,
  flagOf,
  nullable,
  pageEnvelope,
  pageWindow,
  readResponses,
  refuseCursorWithPage,
  stringEnum,
} from './read-schemas.ts';

export const MARKET_STATUSES = ['active', 'resolved', 'cancelled', 'pending'] as const;
export const MARKET_TYPES = ['yesno', 'threeway', 'updown', 'custom'] as const;
/** How many markets GET /api/markets/trending shows. */
export const TRENDING_COUNT = 10;

const tags = ['market'];

export async function marketsRoutes(app: FastifyInstance, opts: ReadRouteOptions): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  // Market items show the 24-hour volume and the 1-day price change of their markets.
  const day = [CHANGE_WINDOWS['1d']];
  const items: AnswerDeps = { on: 'all', windowsMs: day, over: 'answer' };

  r.get(
    '/markets',
    {
      schema: {
        tags,
        summary: 'List markets',
        querystring: Type.Object({
          status: Type.Optional(stringEnum(MARKET_STATUSES, 'Market status')),
          active: Type.Optional(FlagQuery("Polymarket's filter: true is status active, false every other status; combines with status")),
          closed: Type.Optional(FlagQuery("Polymarket's filter: true is resolved or cancelled, false active or pending; combines with status")),
          category: Type.Optional(Type.String({ maxLength: 100, description: 'Category, e.g. crypto (compared trimmed and in lower case, as stored; 1 to 40 letters, digits, spaces, hyphens or underscores)' })),
          market_type: Type.Optional(stringEnum(MARKET_TYPES)),
          sort: Type.Optional(stringEnum(MARKET_SORTS, 'Default newest')),
          q: Type.Optional(
            Type.String({ maxLength: 200, description: 'Words, each matched case-insensitively in title, description, category or event title' }),
          ),
          cursor: CursorQuery("A market id, the last of the page read: the markets after it in the sort's order as it stands now, however many were created since"),
          ...PageQuery,
        }),
        response: readResponses(pageEnvelope(MarketItem)),
      },
    },
    async (req, reply) => {
      const sort = req.query.sort ?? 'newest';
      // Trending orders every market by its 24-hour volume; ending_soon moves with the clock.
      const deps: AnswerDeps = sort === 'trending' ? { ...items, over: 'all' } : sort === 'ending_soon' ? { ...items, reuse: false } : items;
      // Compared as stored, so `Politics` finds the markets the operator filed under it.
      const category = req.query.category === undefined ? undefined : categoryFilter(req.query.category);
      refuseCursorWithPage(req.query);
      const { cursor } = req.query;
      return sendLiveAnswer(opts.live, req, reply, deps, async () => {
        const { status, active, closed, market_type, q, limit } = req.query;
        const statuses = statusesOf({ status, active: flagOf(active), closed: flagOf(closed) });
        // A `q` of no words (blank) is no filter (docs/decisions-market-reads.md).
        const filter = { statuses, category, market_type, q };
        const { offset, answer } = pageWindow(req.query);
        const page = await listMarketsPage(opts.db, filter, { sort, offset, limit, cursor }, nowOf(opts));
        if (page === 'cursor') throw badRequest(`Invalid cursor: no market ${cursor}`);
        return { success: true, data: page.items, total: page.total, ...answer };
      });
    },
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
      sendLiveAnswer(opts.live, req, reply, { ...items, over: 'all' }, async () => {
        const { items } = await listMarkets(opts.db, { statuses: ['active'] }, { sort: 'trending', offset: 0, limit: TRENDING_COUNT }, nowOf(opts));
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
    async (req, reply) => sendLiveAnswer(opts.live, req, reply, items, async () => ({ success: true, data: await getFeaturedMarket(opts.db, nowOf(opts)) })),
  );

  r.get(
    '/markets/categories',
    {
      schema: { tags, summary: 'Every category with its market counts', response: readResponses(envelope(Type.Array(Category))) },
    },
    async (req, reply) =>
      sendLiveAnswer(opts.live, req, reply, { on: 'all', windowsMs: [], over: 'answer' }, async () => ({ success: true, data: await marketCategories(opts.db) })),
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
    // The detail shows its event, whose totals move with the event's other markets: any change.
    async (req, reply) =>
      sendLiveAnswer(opts.live, req, reply, items, async () => {
        const market = await getMarketDetail(opts.db, req.params.id, nowOf(opts));
        if (!market) throw notFound('Market not found');
        return { success: true, data: market };
      }),
  );
}

/**
 * The list's `category` as stored. A value no market can be filed under (empty, blank, `crypto!`)
 * would only ever list nothing, so it is a malformed parameter, 400 like `status=` (docs/api-decisions.md,
 * "Market API: seventh audit").
 */
function categoryFilter(category: string): string {
  const c = normalizeCategory(category);
  if (!isCategory(c)) throw badRequest(`Invalid category: ${CATEGORY_RULE}`);
  return c;
}
