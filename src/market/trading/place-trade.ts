import { sql, type Kysely, type Transaction } from 'kysely';
import type { Clock } from '../../shared/clock.ts';
import { badRequest } from '../../shared/errors.ts';
import type { Database } from '../../storage/schema.ts';
import { escrowAccount, walletAccount } from '../ledger/ledger.accounts.ts';
import { postMovement } from '../ledger/post-movement.ts';
import { inTransaction } from '../market-transaction.ts';
import { lockMarket, poolColumn, sharesColumn } from '../markets/markets.repository.ts';
import { formatUsdc, type Outcome } from '../pricing/index.ts';
import { availableOf, lockWallet } from '../wallets/wallets.repository.ts';
import { normalizeWalletAddress } from '../wallets/wallet-address.ts';
import { checkTrade } from './check-trade.ts';

export interface PlaceTradeInput {
  /** The trading wallet (any case; stored lower case). */
  readonly wallet: string;
  readonly marketId: number;
  /** `yes`, `no`, or `draw` on threeway markets (anything else is 400 `Invalid side`). */
  readonly side: string;
  /** The stake in units (micro-USDC). */
  readonly amount: bigint;
}

/** The `data` of POST /api/pool/trade: amounts and shares in USDC, prices after the trade. */
export interface TradeResult {
  readonly trade_id: number;
  readonly market_id: number;
  readonly side: Outcome;
  readonly amount: number;
  readonly shares: number;
  readonly price: number;
  readonly new_yes_price: number;
  readonly new_no_price: number;
  /** Threeway markets only. */
  readonly new_draw_price?: number;
  /** The wallet's available balance after the trade. */
  readonly remaining_balance: number;
  readonly pool: {
    readonly yes_pool: number;
    readonly no_pool: number;
    /** Threeway markets only. */
    readonly draw_pool?: number;
    readonly total_volume: number;
  };
}

/**
 * Places a stake on a market in one transaction: locks the market, then the wallet; checks (in
 * this order) 404 `Market not found`, 400 `Market not active`, `Market has ended`, `Invalid side`,
 * `Minimum trade is 1 USDC`, `Insufficient balance`; moves the stake from the wallet to the
 * market's escrow (ledger `trade`), adds it to the pool, the shares and the wallet's position,
 * and records the trade with the prices after it. The clock dates the trade.
 */
export async function placeTrade(db: Kysely<Database>, clock: Clock, input: PlaceTradeInput): Promise<TradeResult> {
  return inTransaction(db, (trx) => placeTradeIn(trx, clock, input));
}

/**
 * placeTrade inside the caller's transaction, for callers that must commit something with the
 * trade or not at all (the Idempotency-Key claim of POST /api/pool/trade). The caller owns the
 * transaction and its retry: run it through inTransaction.
 */
export async function placeTradeIn(trx: Transaction<Database>, clock: Clock, input: PlaceTradeInput): Promise<TradeResult> {
  const wallet = normalizeWalletAddress(input.wallet);
  const now = new Date(clock.now());
  const { market, quote } = checkTrade(await lockMarket(trx, input.marketId), input.side, input.amount, now);
  const side = quote.outcome;
  const w = await lockWallet(trx, wallet);
  const available = w ? availableOf(w) : 0n;
  if (!w || available < quote.stake) throw badRequest('Insufficient balance');

  const pricesAfter = quote.pricesAfter;
  const trade = await trx
    .insertInto('trades')
    .values({
      market_id: market.id,
      wallet,
      outcome: side,
      amount: quote.stake,
      shares: quote.shares,
      price: quote.averagePrice,
      price_yes_after: pricesAfter.yes,
      price_no_after: pricesAfter.no,
      price_draw_after: pricesAfter.draw ?? null,
      created_at: now,
    })
    .returning('id')
    .executeTakeFirstOrThrow();

  await postMovement(trx, {
    type: 'trade',
    entries: [
      { account: walletAccount(wallet), amount: -quote.stake },
      { account: escrowAccount(market.id), amount: quote.stake },
    ],
    wallet,
    market_id: market.id,
    trade_id: trade.id,
    at: now,
  });

  const pool = poolColumn(side);
  const shares = sharesColumn(side);
  const updated = await trx
    .updateTable('markets')
    .set({
      [pool]: sql<bigint>`${sql.ref(pool)} + ${quote.stake}`,
      [shares]: sql<bigint>`${sql.ref(shares)} + ${quote.shares}`,
      volume: sql<bigint>`volume + ${quote.stake}`,
      trade_count: sql<number>`trade_count + 1`,
      last_trade_at: now,
      updated_at: now,
    })
    .where('id', '=', market.id)
    .returning(['pool_yes', 'pool_no', 'pool_draw', 'volume'])
    .executeTakeFirstOrThrow();

  await trx
    .insertInto('positions')
    .values({ market_id: market.id, wallet, outcome: side, shares: quote.shares, cost_basis: quote.stake, created_at: now, updated_at: now })
    .onConflict((oc) =>
      oc.columns(['market_id', 'wallet', 'outcome']).doUpdateSet({
        shares: sql<bigint>`positions.shares + excluded.shares`,
        cost_basis: sql<bigint>`positions.cost_basis + excluded.cost_basis`,
        updated_at: now,
      }),
    )
    .execute();

  const threeway = market.market_type === 'threeway';
  return {
    trade_id: trade.id,
    market_id: market.id,
    side,
    amount: formatUsdc(quote.stake),
    shares: formatUsdc(quote.shares),
    price: quote.averagePrice,
    new_yes_price: pricesAfter.yes,
    new_no_price: pricesAfter.no,
    ...(threeway ? { new_draw_price: pricesAfter.draw! } : {}),
    remaining_balance: formatUsdc(available - quote.stake),
    pool: {
      yes_pool: formatUsdc(updated.pool_yes),
      no_pool: formatUsdc(updated.pool_no),
      ...(threeway ? { draw_pool: formatUsdc(updated.pool_draw) } : {}),
      total_volume: formatUsdc(updated.volume),
    },
  };
}
