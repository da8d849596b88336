import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyPluginAsync, preValidationHookHandler } from 'fastify';
import { Type } from 'typebox';
import { strictValidatorCompiler } from '../../http/strict-validator.ts';
import type { Clock } from '../../shared/clock.ts';
import type { Db } from '../../storage/database.ts';
import { idempotentRequestOf, sendStoredAnswer } from '../auth/market-auth.fastify.ts';
import { stakeNumberToUnits } from '../pricing/index.ts';
import { estimateTrade } from '../trading/estimate-trade.ts';
import type { TradeBatcher } from '../trading/trade-batcher.ts';
import { envelope, ErrorBody } from './read-schemas.ts';
import { AUTH_DESCRIPTION, MarketId, Side, sideOf, signedErrors, strict, tags, UsdcNumber, WalletAddress } from './signed-schemas.ts';

export interface TradeRoutesDeps {
  readonly db: Db;
  readonly clock: Clock;
  /** Group commit of trades per market. */
  readonly trades: TradeBatcher;
  /** requireMarketAuth(...): the signature check, run before the body is validated. */
  readonly auth: preValidationHookHandler;
}

const TradeBody = Type.Object(
  { wallet_addr: WalletAddress, market_id: MarketId, side: Side, amount: UsdcNumber },
  { ...strict, description: '`wallet_addr` must be the authenticated wallet' },
);

const PoolView = Type.Object({
  yes_pool: Type.Number(),
  no_pool: Type.Number(),
  draw_pool: Type.Optional(Type.Number({ description: 'threeway markets only' })),
  total_volume: Type.Number(),
});

const TradeData = Type.Object({
  trade_id: Type.Integer(),
  market_id: Type.Integer(),
  side: Type.String(),
  amount: Type.Number(),
  shares: Type.Number(),
  price: Type.Number({ description: 'average price paid: amount / shares' }),
  new_yes_price: Type.Number(),
  new_no_price: Type.Number(),
  new_draw_price: Type.Optional(Type.Number({ description: 'threeway markets only' })),
  remaining_balance: Type.Number({ description: "the wallet's available USDC after the trade" }),
  pool: PoolView,
});

const EstimateBody = Type.Object({ market_id: MarketId, side: Side, amount: UsdcNumber }, strict);

const EstimateData = Type.Object({
  market_id: Type.Integer(),
  side: Type.String(),
  amount: Type.Number(),
  shares: Type.Number({ description: 'shares the stake would buy now' }),
  price: Type.Number({ description: 'average price: amount / shares' }),
  yes_price: Type.Number({ description: 'price now' }),
  no_price: Type.Number(),
  draw_price: Type.Optional(Type.Number({ description: 'threeway markets only' })),
  new_yes_price: Type.Number({ description: 'price after the stake' }),
  new_no_price: Type.Number(),
  new_draw_price: Type.Optional(Type.Number({ description: 'threeway markets only' })),
  payout_if_win: Type.Number({ description: 'what the stake would receive if the market resolved to this side now, with this stake in it' }),
  profit_if_win: Type.Number({ description: 'payout_if_win - amount' }),
});


/** POST /pool/trade (authenticated) and POST /pool/estimate (public), under /api. */
export function tradeRoutes(deps: TradeRoutesDeps): FastifyPluginAsync {
  const { db, clock, auth, trades } = deps;
  return async (fastify: FastifyInstance) => {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

    app.post(
      '/pool/trade',
      {
        preValidation: auth,
        // An identical retry of a completed request (same signature, same key) gets its answer.
        config: { idempotencyRoute: 'pool.trade' },
        validatorCompiler: strictValidatorCompiler,
        schema: {
          tags,
          summary: 'Stake USDC on a side of a market',
          description: `${AUTH_DESCRIPTION} An \`Idempotency-Key\` header makes a retry with the same body return the first answer without moving money again.`,
          body: TradeBody,
          response: { 200: envelope(TradeData), ...signedErrors, 404: ErrorBody, 409: ErrorBody, 503: ErrorBody },
        },
      },
      async (req, reply) => {
        const wallet = req.marketAuth!.wallet;
        const amount = stakeNumberToUnits(req.body.amount, 'amount');
        // The key's claim commits with the trade or not at all: a retry never moves money twice.
        const idempotency = idempotentRequestOf(req, 'pool.trade');
        const answer = await trades.place({ wallet, marketId: req.body.market_id, side: sideOf(req.body.side), amount, idempotency });
        return sendStoredAnswer(reply, answer);
      },
    );

    app.post(
      '/pool/estimate',
      {
        validatorCompiler: strictValidatorCompiler,
        schema: {
          tags,
          summary: 'What a stake would buy now, and pay if its side won now',
          description: 'Public; writes nothing. Same checks and arithmetic as a trade, without the balance.',
          body: EstimateBody,
          response: { 200: envelope(EstimateData), 400: ErrorBody, 404: ErrorBody, 429: ErrorBody },
        },
      },
      async (req) => {
        const amount = stakeNumberToUnits(req.body.amount, 'amount');
        const data = await estimateTrade(db, clock, { marketId: req.body.market_id, side: sideOf(req.body.side), amount });
        return { success: true, data };
      },
    );
  };
}
