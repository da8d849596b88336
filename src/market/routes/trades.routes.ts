import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { badRequest, notFound } from '../../shared/errors.ts';
import { listTrades } from '../queries/trades.list.ts';
import type { ReadRouteOptions } from './read-context.ts';
import { TradeRecord } from './read-responses.ts';
import { IdParam, PageQuery, WalletParam, pageEnvelope, pageWindow, readResponses } from './read-schemas.ts';

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
      const result = await listTrades(opts.db, { market: req.query.market, wallet: who, offset, limit: req.query.limit });
      if (!result) throw notFound('Market not found');
      return { success: true, data: result.items, total: result.total, ...answer };
    },
  );
}
