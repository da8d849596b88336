import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { portfolio, portfolioStats } from '../queries/users.ts';
import type { ReadRouteOptions } from './read-context.ts';
import { PortfolioStats, Position } from './read-responses.ts';
import { WalletParam, envelope, readResponses } from './read-schemas.ts';

const tags = ['market'];

export async function portfolioRoutes(app: FastifyInstance, opts: ReadRouteOptions): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  r.get(
    '/portfolio/:wallet',
    {
      schema: {
        tags,
        summary: 'Open positions of a wallet, marked at current prices',
        params: Type.Object({ wallet: WalletParam }),
        response: readResponses(envelope(Type.Array(Position))),
      },
    },
    async (req) => ({ success: true, data: await portfolio(opts.db, req.params.wallet.toLowerCase()) }),
  );

  r.get(
    '/portfolio/:wallet/stats',
    {
      schema: {
        tags,
        summary: 'Totals of a wallet: value, cost, realized and unrealized pnl, counts',
        params: Type.Object({ wallet: WalletParam }),
        response: readResponses(envelope(PortfolioStats)),
      },
    },
    async (req) => ({ success: true, data: await portfolioStats(opts.db, req.params.wallet.toLowerCase()) }),
  );
}
