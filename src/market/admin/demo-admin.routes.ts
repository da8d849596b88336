import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import type { Kysely } from 'kysely';
import { Type } from 'typebox';
import { conflict } from '../../shared/errors.ts';
import type { Database } from '../../storage/schema.ts';
import { DatabaseNotEmptyError, seedDemo, type SeedDemoSummary } from '../demo/seed-demo.ts';
import { formatUsdc } from '../pricing/index.ts';
import { booksView } from './market-admin.views.ts';

const strict = { additionalProperties: false } as const;
const SeedBody = Type.Object(
  {
    seed: Type.Optional(Type.Integer({ minimum: 0, maximum: 2_147_483_647, description: 'random seed (same seed, same demo); default 42' })),
    trades: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000, description: 'trades to attempt over the month; default 1500' })),
  },
  strict,
);

/** What a demo seed made, as the admin API and `npm run seed:demo` show it. */
export function seedSummaryView(s: SeedDemoSummary) {
  return {
    events: s.events,
    markets: s.markets,
    resolved: s.resolved,
    cancelled: s.cancelled,
    pending: s.pending,
    wallets: s.wallets,
    trades: s.trades,
    skipped: s.skipped,
    volume: formatUsdc(s.volume),
    books: booksView(s.books),
  };
}

/**
 * POST /admin/demo/seed: the demo market seeded by the running service, so it works on the
 * embedded database (which only one process may open) without stopping the service.
 */
export function demoAdminRoutes(deps: { readonly db: Kysely<Database> }): FastifyPluginAsync {
  let running = false;
  return async (fastify: FastifyInstance) => {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
    app.post(
      '/demo/seed',
      { schema: { tags: ['admin'], summary: 'Fill an empty market with a month of demo activity (409 when it holds data)', body: Type.Optional(SeedBody) } },
      async (req) => {
        // seedDemo checks emptiness first; two seeds at once would both pass that check.
        if (running) throw conflict('a demo seed is already running');
        running = true;
        try {
          const { seed, trades } = req.body ?? {};
          return seedSummaryView(await seedDemo(deps.db, { ...(seed === undefined ? {} : { seed }), ...(trades === undefined ? {} : { trades }) }));
        } catch (e) {
          if (e instanceof DatabaseNotEmptyError) throw conflict(`not seeding: ${e.message}`);
          throw e;
        } finally {
          running = false;
        }
      },
    );
  };
}
