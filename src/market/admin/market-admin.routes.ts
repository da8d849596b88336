import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import type { Kysely } from 'kysely';
import { Type } from 'typebox';
import type { Clock } from '../../shared/clock.ts';
import { notFound } from '../../shared/errors.ts';
import type { Database } from '../../storage/schema.ts';
import { auditBooks } from '../audit/audit-books.ts';
import { issueApiKey } from '../auth/api-key.repository.ts';
import { createEvent, featureEvent, unfeatureEvent } from '../events/events.admin.ts';
import { activateMarket, createMarket, editMarket, featureMarket, unfeatureMarket } from '../markets/markets.admin.ts';
import { refuseNul } from '../markets/market-fields.ts';
import { findMarket } from '../markets/markets.repository.ts';
import { parseUsdcAmount } from '../pricing/index.ts';
import { cancelMarket } from '../settlement/cancel-market.ts';
import { resolveMarket } from '../settlement/resolve-market.ts';
import { toBalanceRecord } from '../wallets/balance-record.ts';
import { depositToWallet } from '../wallets/deposit.ts';
import { normalizeWalletAddress } from '../wallets/wallet-address.ts';
import type { MarketFeed } from '../live/market-feed.ts';
import { booksView, eventView, marketView, settledMarketView } from './market-admin.views.ts';

export interface MarketAdminDeps {
  readonly db: Kysely<Database>;
  readonly clock: Clock;
  /** Seals the market API secrets the operator issues. */
  readonly secretsKey: Buffer;
  /** The live reads' view of market changes: a write answers only once it is applied there. */
  readonly feed: Pick<MarketFeed, 'barrier'>;
}

const strict = { additionalProperties: false } as const;
const tags = ['admin'];
const IdParams = Type.Object({ id: Type.Integer({ minimum: 1, maximum: 2_147_483_647 }) }, strict);
// Checked by parseUsdcAmount (a number or decimal text, at most 6 decimals), not by the schema:
// schema coercion would turn `true` into 1.
const Usdc = Type.Unknown({ description: 'USDC as a number or decimal string, at most 6 decimals' });
const Labels = Type.Record(Type.String(), Type.String(), { description: 'label per outcome: {yes, no[, draw]}' });
const MarketType = Type.Enum(['yesno', 'threeway', 'updown', 'custom']);
const DateTime = Type.String({ description: 'ISO 8601 date-time with a time zone' });

const CreateEventBody = Type.Object(
  {
    title: Type.String(),
    description: Type.Optional(Type.String()),
    category: Type.String(),
    end_date: Type.Optional(Type.Union([DateTime, Type.Null()])),
    image_url: Type.Optional(Type.String()),
  },
  strict,
);

const CreateMarketBody = Type.Object(
  {
    title: Type.String(),
    description: Type.Optional(Type.String()),
    category: Type.Optional(Type.String()),
    market_type: MarketType,
    end_date: DateTime,
    event_id: Type.Optional(Type.Union([Type.Integer({ minimum: 1, maximum: 2_147_483_647 }), Type.Null()])),
    status: Type.Optional(Type.Enum(['pending', 'active'])),
    // Checked by openingSeeds, which knows the market type's outcomes, so every wrong shape is a
    // 400 naming them (an array, a string, a missing or foreign outcome, a price outside (0, 1)).
    opening_prices: Type.Optional(
      Type.Unknown({
        description:
          'object of the opening price per outcome, `{yes, no}` or `{yes, no, draw}` (threeway): numbers in (0, 1) summing to 1 within 0.000001; default even',
      }),
    ),
    seed_liquidity: Type.Optional(Usdc),
    outcome_labels: Type.Optional(Labels),
    image_url: Type.Optional(Type.String()),
  },
  strict,
);

const EditMarketBody = Type.Object(
  {
    title: Type.Optional(Type.String()),
    description: Type.Optional(Type.String()),
    category: Type.Optional(Type.String()),
    end_date: Type.Optional(DateTime),
    image_url: Type.Optional(Type.String()),
    outcome_labels: Type.Optional(Labels),
  },
  strict,
);

const ResolveBody = Type.Object({ outcome: Type.String({ description: 'yes, no, or draw (threeway)' }) }, strict);
const WalletParams = Type.Object({ wallet: Type.String({ description: '0x + 40 hex digits' }) }, strict);
const DepositBody = Type.Object({ amount: Usdc, note: Type.Optional(Type.String({ maxLength: 500 })) }, strict);

/**
 * The market's operator routes (mounted by adminPlugin under /admin, behind the admin token):
 * events, the market lifecycle, operator deposits, market API keys and the books check.
 */
export function marketAdminRoutes(deps: MarketAdminDeps): FastifyPluginAsync {
  const { db, clock, secretsKey } = deps;
  return async (fastify: FastifyInstance) => {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
    // The cached read answers learn of a market change through NOTIFY, which may arrive after
    // the write commits: the operator's next read must already show the write.
    app.addHook('onSend', async (req, reply, payload) => {
      if (req.method !== 'GET' && reply.statusCode < 400) await deps.feed.barrier();
      return payload;
    });

    app.post('/events', { schema: { tags, summary: 'Create an event', body: CreateEventBody } }, async (req, reply) => {
      const event = await createEvent(db, clock, req.body);
      return reply.code(201).send(eventView(event));
    });

    app.post('/events/:id/feature', { schema: { tags, summary: 'Make this the featured event', params: IdParams } }, async (req) =>
      eventView(await featureEvent(db, clock, req.params.id)),
    );

    app.delete('/events/:id/feature', { schema: { tags, summary: 'Stop featuring this event', params: IdParams } }, async (req) =>
      eventView(await unfeatureEvent(db, req.params.id)),
    );

    app.post('/markets', { schema: { tags, summary: 'Create a market', body: CreateMarketBody } }, async (req, reply) => {
      const market = await createMarket(db, clock, req.body);
      return reply.code(201).send(marketView(market));
    });

    app.patch(
      '/markets/:id',
      { schema: { tags, summary: 'Edit a market that is not settled', params: IdParams, body: EditMarketBody } },
      async (req) => marketView(await editMarket(db, clock, req.params.id, req.body)),
    );

    app.post('/markets/:id/activate', { schema: { tags, summary: 'Open a pending market to trading', params: IdParams } }, async (req) =>
      marketView(await activateMarket(db, clock, req.params.id)),
    );

    app.post('/markets/:id/feature', { schema: { tags, summary: 'Make this the featured market', params: IdParams } }, async (req) =>
      marketView(await featureMarket(db, clock, req.params.id)),
    );

    app.delete('/markets/:id/feature', { schema: { tags, summary: 'Stop featuring this market', params: IdParams } }, async (req) =>
      marketView(await unfeatureMarket(db, clock, req.params.id)),
    );

    app.post('/markets/:id/cancel', { schema: { tags, summary: 'Cancel a market and refund every stake', params: IdParams } }, async (req) => {
      const summary = await cancelMarket(db, clock, req.params.id);
      return settledMarketView(await marketOrThrow(db, req.params.id), summary);
    });

    app.post(
      '/markets/:id/resolve',
      { schema: { tags, summary: 'Resolve a market to an outcome and pay the winners', params: IdParams, body: ResolveBody } },
      async (req) => {
        const summary = await resolveMarket(db, clock, req.params.id, req.body.outcome);
        return settledMarketView(await marketOrThrow(db, req.params.id), summary);
      },
    );

    app.post(
      '/wallets/:wallet/deposit',
      { schema: { tags, summary: 'Credit a wallet with USDC (ledger deposit)', params: WalletParams, body: DepositBody } },
      async (req) => {
        const address = normalizeWalletAddress(req.params.wallet);
        const amount = parseUsdcAmount(req.body.amount, 'amount');
        const note = req.body.note === undefined ? null : refuseNul(req.body.note, 'note');
        const wallet = await depositToWallet(db, clock, { wallet: address, amount, note });
        return toBalanceRecord(wallet);
      },
    );

    app.post(
      '/wallets/:wallet/api-keys',
      { schema: { tags, summary: 'Issue a market API key and secret to a wallet (the secret is shown only here)', params: WalletParams } },
      async (req, reply) => {
        const address = normalizeWalletAddress(req.params.wallet);
        const issued = await issueApiKey(db, secretsKey, address, new Date(clock.now()));
        return reply.code(201).send(issued);
      },
    );

    app.get('/audit', { schema: { tags, summary: 'Re-add the ledger and check the books' } }, async () => booksView(await auditBooks(db)));
  };
}

async function marketOrThrow(db: Kysely<Database>, id: number) {
  const m = await findMarket(db, id);
  if (!m) throw notFound('Market not found');
  return m;
}
