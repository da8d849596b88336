import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { notFound } from '../../shared/errors.ts';
import { listTrades } from '../queries/trades.list.ts';
import type { ReadRouteOptions } from './read-context.ts';
import { TradeRecord } from './read-responses.ts';
import { IdParam, PageQuery, pageEnvelope, pageWindow, readResponses } from './read-schemas.ts';

export async function tradesRoutes(app: FastifyInstance, opts: ReadRouteOptions): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  r.get(
    '/trades',
    {
      schema: {
        tags: ['market'],
        summary: 'Trades, newest first, of one market or of all',
        querystring: Type.Object({ market: Type.Optional(IdParam), ...PageQuery }),
        response: readResponses(pageEnvelope(TradeRecord), { notFound: true }),
      },
    },
    async (req) => {
      const { offset, answer } = pageWindow(req.query);
      const result = await listTrades(opts.db, { market: req.query.market, offset, limit: req.query.limit });
      if (!result) throw notFound('Market not found');
      return { success: true, data: result.items, total: result.total, ...answer };
    },
  );
}
