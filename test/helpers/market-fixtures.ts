import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import type { MarketStatus } from '../../src/market/market.tables.ts';
import type { MarketType, Outcome } from '../../src/market/pricing/index.ts';
import {
  type OutcomeRecord,
  mapOutcomes,
  marketOutcomes,
  marketPools,
  openingSeeds,
  parseUsdcAmount,
  quoteTrade,
  refundMarket,
  settleMarket,
} from '../../src/market/pricing/index.ts';
import type { Db } from '../../src/storage/database.ts';

/**
 * Builds market data straight in the database (no trading endpoint needed): events, markets,
 * wallets, trades with back-dated times and the prices-after each trade, positions, and settled
 * markets. Amounts are given in USDC; the pure pricing module computes shares, prices, payouts.
 */

export const USDC = 1_000_000n;
const units = (usdc: number | string): bigint => parseUsdcAmount(usdc);

export function randomWallet(): string {
  return `0x${randomBytes(20).toString('hex')}`;
}

let seq = 0;
const unique = (prefix: string) => `${prefix}-${process.pid}-${++seq}`;

export interface EventInput {
  title?: string;
  slug?: string;
  description?: string;
  category?: string;
  status?: 'active' | 'resolved';
  end_date?: Date | null;
  featured_at?: Date | null;
  created_at?: Date;
  image_url?: string;
}

export interface MarketInput {
  title?: string;
  slug?: string;
  description?: string;
  category?: string;
  market_type?: MarketType;
  status?: MarketStatus;
  end_date?: Date;
  created_at?: Date;
  event_id?: number | null;
  featured_at?: Date | null;
  image_url?: string;
  labels?: Record<string, string>;
  /** Opening prices (seeds split by them); default equal. */
  opening_prices?: Record<string, number>;
  /** Total seed liquidity in USDC; default 100. */
  seed_liquidity?: number;
}

export interface TradeResult {
  id: number;
  shares: bigint;
  price: number;
  pricesAfter: OutcomeRecord<number>;
}

export function marketFixtures(db: Db) {
  async function wallet(address: string = randomWallet(), opts: { username?: string; avatar_url?: string; created_at?: Date } = {}) {
    const a = address.toLowerCase();
    await sql`insert into wallets (address, username, avatar_url, created_at)
      values (${a}, ${opts.username ?? null}, ${opts.avatar_url ?? null}, ${opts.created_at ?? new Date()})
      on conflict (address) do nothing`.execute(db);
    return a;
  }

  async function event(input: EventInput = {}) {
    const slug = input.slug ?? unique('event');
    const r = await sql<{ id: number }>`insert into events (slug, title, description, category, image_url, status, end_date, featured_at, created_at)
      values (${slug}, ${input.title ?? `Event ${slug}`}, ${input.description ?? ''}, ${input.category ?? 'politics'},
        ${input.image_url ?? ''}, ${input.status ?? 'active'}, ${input.end_date ?? null}, ${input.featured_at ?? null},
        ${input.created_at ?? new Date()})
      returning id`.execute(db);
    return { id: r.rows[0]!.id, slug };
  }

  async function market(input: MarketInput = {}) {
    const type = input.market_type ?? 'yesno';
    const seeds = openingSeeds(type, {
      ...(input.opening_prices ? { prices: input.opening_prices } : {}),
      ...(input.seed_liquidity !== undefined ? { liquidity: units(input.seed_liquidity) } : {}),
    });
    const slug = input.slug ?? unique('market');
    const created = input.created_at ?? new Date();
    const r = await sql<{ id: number }>`insert into markets (event_id, slug, title, description, category, market_type, status,
        image_url, end_date, featured_at, outcome_labels, seed_yes, seed_no, seed_draw, created_at, updated_at)
      values (${input.event_id ?? null}, ${slug}, ${input.title ?? `Market ${slug}`}, ${input.description ?? ''},
        ${input.category ?? 'crypto'}, ${type}, ${input.status ?? 'active'}, ${input.image_url ?? `/img/${slug}.png`},
        ${input.end_date ?? new Date(created.getTime() + 90 * 86_400_000)}, ${input.featured_at ?? null},
        ${JSON.stringify(input.labels ?? {})}, ${seeds.yes}, ${seeds.no}, ${seeds.draw ?? 0n}, ${created}, ${created})
      returning id`.execute(db);
    return r.rows[0]!.id;
  }

  async function poolsOf(marketId: number) {
    const r = await sql<{
      market_type: MarketType;
      pool_yes: bigint;
      pool_no: bigint;
      pool_draw: bigint;
      seed_yes: bigint;
      seed_no: bigint;
      seed_draw: bigint;
      last_trade_at: Date | null;
    }>`select market_type, pool_yes, pool_no, pool_draw, seed_yes, seed_no, seed_draw, last_trade_at from markets where id = ${marketId}`.execute(
      db,
    );
    const m = r.rows[0];
    if (!m) throw new Error(`no market ${marketId}`);
    const outcomes = marketOutcomes(m.market_type);
    const seed = { yes: m.seed_yes, no: m.seed_no, draw: m.seed_draw };
    const real = { yes: m.pool_yes, no: m.pool_no, draw: m.pool_draw };
    return {
      pools: marketPools(
        mapOutcomes(outcomes, (o) => seed[o]),
        mapOutcomes(outcomes, (o) => real[o]),
      ),
      lastTradeAt: m.last_trade_at,
    };
  }

  /** A stake of `usdc` on `outcome` at time `at`; trades of one market must come in time order. */
  async function trade(marketId: number, walletAddr: string, outcome: Outcome, usdc: number | string, at: Date): Promise<TradeResult> {
    const w = await wallet(walletAddr);
    const { pools, lastTradeAt } = await poolsOf(marketId);
    if (lastTradeAt && at < lastTradeAt) throw new Error('fixture trades of a market must be added in time order');
    const a = units(usdc);
    const q = quoteTrade(pools, outcome, a);
    const r = await sql<{ id: number }>`insert into trades (market_id, wallet, outcome, amount, shares, price,
        price_yes_after, price_no_after, price_draw_after, created_at)
      values (${marketId}, ${w}, ${outcome}, ${a}, ${q.shares}, ${q.averagePrice}, ${q.pricesAfter.yes}, ${q.pricesAfter.no},
        ${q.pricesAfter.draw ?? null}, ${at})
      returning id`.execute(db);
    const col = (prefix: string) => sql.ref(`${prefix}_${outcome}`);
    await sql`update markets set ${col('pool')} = ${col('pool')} + ${a}, ${col('shares')} = ${col('shares')} + ${q.shares},
        escrow = escrow + ${a}, volume = volume + ${a}, trade_count = trade_count + 1, last_trade_at = ${at}, updated_at = ${at}
      where id = ${marketId}`.execute(db);
    await sql`insert into positions (market_id, wallet, outcome, shares, cost_basis, created_at, updated_at)
      values (${marketId}, ${w}, ${outcome}, ${q.shares}, ${a}, ${at}, ${at})
      on conflict (market_id, wallet, outcome) do update
        set shares = positions.shares + excluded.shares, cost_basis = positions.cost_basis + excluded.cost_basis,
            updated_at = excluded.updated_at`.execute(db);
    return { id: r.rows[0]!.id, shares: q.shares, price: q.averagePrice, pricesAfter: q.pricesAfter };
  }

  async function positionsOf(marketId: number) {
    const r = await sql<{ wallet: string; outcome: Outcome; shares: bigint; cost_basis: bigint }>`
      select wallet, outcome, shares, cost_basis from positions where market_id = ${marketId}`.execute(db);
    return r.rows.map((p) => ({ id: `${p.wallet}:${p.outcome}`, outcome: p.outcome, stake: p.cost_basis, shares: p.shares }));
  }

  async function writePayouts(marketId: number, payouts: readonly { id: string; amount: bigint }[]) {
    for (const p of payouts) {
      const [w, o] = p.id.split(':');
      await sql`update positions set payout = ${p.amount} where market_id = ${marketId} and wallet = ${w} and outcome = ${o}`.execute(db);
    }
  }

  /** Resolves to `winner` with market-math payouts written on the positions; returns them by `wallet:outcome`. */
  async function resolve(marketId: number, winner: Outcome, at: Date = new Date()) {
    const { pools } = await poolsOf(marketId);
    const s = settleMarket(pools, await positionsOf(marketId), winner);
    await writePayouts(marketId, s.payouts);
    await sql`update markets set status = 'resolved', resolved_outcome = ${winner}, resolved_at = ${at}, escrow = 0,
        settled_fee = ${s.fee}, settled_dust = ${s.dust}, settled_paid = ${s.paidOut}, updated_at = ${at}
      where id = ${marketId}`.execute(db);
    return new Map(s.payouts.map((p) => [p.id, p.amount]));
  }

  /** Cancels with every stake refunded. */
  async function cancel(marketId: number, at: Date = new Date()) {
    const { pools } = await poolsOf(marketId);
    const s = refundMarket(pools, await positionsOf(marketId));
    await writePayouts(marketId, s.payouts);
    await sql`update markets set status = 'cancelled', cancelled_at = ${at}, escrow = 0, settled_fee = 0, settled_dust = 0,
        settled_paid = ${s.paidOut}, updated_at = ${at} where id = ${marketId}`.execute(db);
  }

  return { wallet, event, market, trade, resolve, cancel };
}

export type MarketFixtures = ReturnType<typeof marketFixtures>;
