import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { badRequest, notFound } from '../../shared/errors.ts';
import { listTrades } from '../queries/trades.list.ts';
import type { ReadRouteOptions } from './read-context.ts';
import { TradeRecord } from './read-responses.ts';
import { CursorQuery, IdParam, PageQuery, UnixSeconds, WalletParam, pageEnvelope, pageWindow, readResponses, refuseCursorWithPage } from './read-schemas.ts';

/** Kalshi's name of a bound or Polymarket's (`after`, `before`), not both: they are the same filter. */
function oneOf<K extends string, A extends string>(q: Partial<Record<K | A, number>>, name: K, alias: A): number | undefined {
  if (q[name] !== undefined && q[alias] !== undefined) throw badRequest(`Invalid ${alias}: cannot be combined with ${name} (they are the same filter)`);
  return q[name] ?? q[alias];
}

export async function tradesRoutes(app: FastifyInstance, opts: ReadRouteOptions): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  r.get(
    '/trades',
    {
      schema: {
        tags: ['market'],
        summary: 'Trades, newest first, of one market or of all, of one wallet or of all',
        querystring: Type.Object({
          market: Type.Optional(IdParam),
          wallet: Type.Optional(WalletParam),
          user: Type.Optional({ ...WalletParam, description: "Polymarket's name for wallet (not with wallet)" }),
          min_ts: Type.Optional(UnixSeconds('Trades at or after this second (unix seconds); not after max_ts')),
          max_ts: Type.Optional(UnixSeconds('Trades at or before this second, the whole second included (unix seconds)')),
          after: Type.Optional(UnixSeconds("Polymarket's name for min_ts (not with it)")),
          before: Type.Optional(UnixSeconds("Polymarket's name for max_ts (not with it)")),
          cursor: CursorQuery('A trade id, the last of the page read: the trades after it, older, however many arrived since'),
          ...PageQuery,
        }),
        response: readResponses(pageEnvelope(TradeRecord), { notFound: true }),
      },
    },
    async (req) => {
      const { offset, answer } = pageWindow(req.query);
      const { wallet, user } = req.query;
      if (wallet !== undefined && user !== undefined) throw badRequest('Invalid user: cannot be combined with wallet (they are the same filter)');
      const who = (wallet ?? user)?.toLowerCase();
      const from = oneOf(req.query, 'min_ts', 'after');
      const to = oneOf(req.query, 'max_ts', 'before');
      if (from !== undefined && to !== undefined && from > to) throw badRequest('Invalid min_ts: must not be after max_ts');
      // A bound names a whole second: the window runs from the start of `from` to the end of `to`.
      const window = { from: from === undefined ? undefined : new Date(from * 1000), until: to === undefined ? undefined : new Date((to + 1) * 1000) };
      const { cursor } = req.query;
      refuseCursorWithPage(req.query);
      const result = await listTrades(opts.db, { market: req.query.market, wallet: who, ...window, cursor, offset, limit: req.query.limit });
      if (result === 'market') throw notFound('Market not found');
      if (result === 'cursor') throw badRequest(`Invalid cursor: no trade ${cursor}`);
      return { success: true, data: result.items, total: result.total, ...answer };
    },
  );
}
