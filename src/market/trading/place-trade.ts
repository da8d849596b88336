import { sql, type Kysely, type Transaction } from 'kysely';
import type { Clock } from '../../shared/clock.ts';
import { badRequest } from '../../shared/errors.ts';
import type { Database } from '../../storage/schema.ts';
import { escrowAccount, walletAccount } from '../ledger/ledger.accounts.ts';
import { movementSql } from '../ledger/post-movement.ts';
import { inTransaction } from '../market-transaction.ts';
import { lockMarketThenWallet, poolColumn, sharesColumn } from '../markets/markets.repository.ts';
import { formatUsdc, type Outcome } from '../pricing/index.ts';
import { availableOf } from '../wallets/wallets.repository.ts';
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
  // Round trips are the cost of a trade, and on a busy market they are how long its row stays
  // locked: one locks the market and the wallet, one writes everything (besides begin and
  // commit), so the lock is held for two.
  const locked = await lockMarketThenWallet(trx, input.marketId, wallet);
  const { market, quote } = checkTrade(locked?.market, input.side, input.amount, now);
  const side = quote.outcome;
  const available = locked?.wallet ? availableOf(locked.wallet) : 0n;
  if (!locked?.wallet || available < quote.stake) throw badRequest('Insufficient balance');

  const pricesAfter = quote.pricesAfter;
  const pool = poolColumn(side);
  const shares = sharesColumn(side);
  const trade = trx
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
    .returning('id');
  const position = trx
    .insertInto('positions')
    .values({ market_id: market.id, wallet, outcome: side, shares: quote.shares, cost_basis: quote.stake, created_at: now, updated_at: now })
    .onConflict((oc) =>
      oc.columns(['market_id', 'wallet', 'outcome']).doUpdateSet({
        shares: sql<bigint>`positions.shares + excluded.shares`,
        cost_basis: sql<bigint>`positions.cost_basis + excluded.cost_basis`,
        updated_at: now,
      }),
    )
    .returning('outcome');
  // The ledger movement (wallet -> escrow) in the same statement; its escrow update of the
  // market row also adds the stake to the pool, since a statement changes a row only once.
  const movement = movementSql(
    {
      type: 'trade',
      entries: [
        { account: walletAccount(wallet), amount: -quote.stake },
        { account: escrowAccount(market.id), amount: quote.stake },
      ],
      wallet,
      market_id: market.id,
      at: now,
    },
    {
      prefix: 'ledger_',
      tradeId: sql`(select id from t)`,
      escrowRow: {
        marketId: market.id,
        set: [
          sql`${sql.ref(pool)} = ${sql.ref(pool)} + ${quote.stake}`,
          sql`${sql.ref(shares)} = ${sql.ref(shares)} + ${quote.shares}`,
          sql`volume = volume + ${quote.stake}`,
          sql`trade_count = trade_count + 1`,
          sql`last_trade_at = ${now}`,
          sql`updated_at = ${now}`,
        ],
        returning: ['pool_yes', 'pool_no', 'pool_draw', 'volume'],
      },
    },
  );
  const result = await sql<{ id: number; pool_yes: bigint; pool_no: bigint; pool_draw: bigint; volume: bigint; updated: number[] }>`
    with t as (${trade}), p as (${position}), ${sql.join(movement.ctes)}
    select t.id, m.pool_yes, m.pool_no, m.pool_draw, m.volume, ${movement.updated} as updated
    from t, p, ${sql.id(movement.escrowCte!)} m`.execute(trx);
  const written = result.rows[0];
  movement.check(written?.updated);
  if (!written) throw new Error('placeTrade: the trade statement returned no row');

  const threeway = market.market_type === 'threeway';
  return {
    trade_id: written.id,
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
      yes_pool: formatUsdc(written.pool_yes),
      no_pool: formatUsdc(written.pool_no),
      ...(threeway ? { draw_pool: formatUsdc(written.pool_draw) } : {}),
      total_volume: formatUsdc(written.volume),
    },
  };
}
