import { sql, type RawBuilder } from 'kysely';
import type { Db } from '../../storage/database.ts';
import { formatUsdc, positionMarkJson } from '../pricing/index.ts';
import { walletFigures, walletPositions } from './wallet-positions.ts';

/**
 * Per-wallet totals over every position, in SQL so the leaderboard and ranks need one pass:
 * `pnl` (units) is realized results on settled markets plus open marks, computed exactly as the
 * pricing module marks a position in JavaScript: price = (P[o] + V[o]) / (T + V) in float64,
 * value = shares * price rounded half up to the unit (test/market-reads-users.test.ts checks
 * the leaderboard against the portfolio stats, which mark in JavaScript).
 */
const WALLET_TOTALS: RawBuilder<unknown> = sql`
  with pos as (
    select p.wallet, p.market_id, p.outcome, p.cost_basis, coalesce(p.payout, 0) as paid,
      m.status, m.resolved_outcome,
      case when m.status in ('active', 'pending') then p.shares::float8 * (
        (case p.outcome when 'yes' then m.pool_yes + m.seed_yes when 'no' then m.pool_no + m.seed_no
                        else m.pool_draw + m.seed_draw end)::float8
        / (m.pool_yes + m.pool_no + m.pool_draw + m.seed_yes + m.seed_no + m.seed_draw)::float8)
      end as value
    from positions p join markets m on m.id = p.market_id
  ),
  totals as (
    select wallet,
      sum(cost_basis)::bigint as volume,
      count(distinct market_id)::int as markets_traded,
      sum(case when status in ('active', 'pending')
               then (case when value - floor(value) >= 0.5 then floor(value) + 1 else floor(value) end)::bigint - cost_basis
               else paid - cost_basis end)::bigint as pnl,
      count(distinct market_id) filter (where status in ('resolved', 'cancelled'))::int as settled_markets,
      count(distinct market_id) filter (where status = 'resolved' and outcome = resolved_outcome and paid > 0)::int as won_markets
    from pos group by wallet
  )`;

export const LEADERBOARD_SORTS = ['pnl', 'volume'] as const;
export type LeaderboardSort = (typeof LEADERBOARD_SORTS)[number];

interface TotalsRow {
  rank: number;
  wallet: string;
  username: string | null;
  avatar_url: string | null;
  volume: bigint;
  pnl: bigint;
  markets_traded: number;
  settled_markets: number;
  won_markets: number;
}

/** Wallets that traded, best first by total pnl or volume; ties share a rank. Unset names are `""`. */
export async function leaderboard(db: Db, sort: LeaderboardSort, limit: number) {
  const key = sort === 'pnl' ? sql.raw('t.pnl') : sql.raw('t.volume');
  const r = await sql<TotalsRow>`${WALLET_TOTALS}
    select (rank() over (order by ${key} desc))::int as rank, t.*, w.username, w.avatar_url
    from totals t join wallets w on w.address = t.wallet
    order by ${key} desc, t.wallet asc limit ${limit}`.execute(db);
  return r.rows.map((t) => ({
    rank: t.rank,
    wallet: t.wallet,
    username: t.username ?? '',
    avatar_url: t.avatar_url ?? '',
    total_pnl: formatUsdc(t.pnl),
    total_volume: formatUsdc(t.volume),
    markets_traded: t.markets_traded,
    win_rate: t.settled_markets === 0 ? 0 : t.won_markets / t.settled_markets,
  }));
}

interface ProfileRow {
  address: string;
  username: string | null;
  avatar_url: string | null;
  created_at: Date;
  volume: bigint;
  pnl: bigint;
  markets_traded: number;
  settled_markets: number;
  won_markets: number;
  rank: number;
}

/**
 * The User profile of the market API; null when the wallet is unknown. `wallet` is lower case;
 * an unset username or avatar is `""` (the spec types both as strings). One statement, so
 * `total_pnl` and `rank` come from one snapshot: read apart, a trade or a settlement committing
 * between them ranked the wallet's old pnl among the new ones (a rank no leaderboard ever
 * showed). The figures are the leaderboard's own, so a profile and its leaderboard row agree.
 */
export async function userProfile(db: Db, wallet: string) {
  const r = await sql<ProfileRow>`${WALLET_TOTALS}
    select w.address, w.username, w.avatar_url, w.created_at,
      coalesce(t.volume, 0)::bigint as volume, coalesce(t.pnl, 0)::bigint as pnl,
      coalesce(t.markets_traded, 0)::int as markets_traded,
      coalesce(t.settled_markets, 0)::int as settled_markets, coalesce(t.won_markets, 0)::int as won_markets,
      (1 + (select count(*) from totals o where o.pnl > coalesce(t.pnl, 0)))::int as rank
    from wallets w left join totals t on t.wallet = w.address
    where w.address = ${wallet}`.execute(db);
  const row = r.rows[0];
  if (!row) return null;
  return {
    wallet: row.address,
    username: row.username ?? '',
    avatar_url: row.avatar_url ?? '',
    total_volume: formatUsdc(row.volume),
    total_pnl: formatUsdc(row.pnl),
    markets_traded: row.markets_traded,
    rank: row.rank,
    win_rate: row.settled_markets === 0 ? 0 : row.won_markets / row.settled_markets,
    joined_at: row.created_at.toISOString(),
  };
}

/** Open positions (the market API's Position), newest first; empty for a wallet never seen. */
export async function portfolio(db: Db, wallet: string) {
  const { open } = walletFigures(await walletPositions(db, wallet));
  return open.map(({ row, mark }) => ({
    market_id: row.market.id,
    market_title: row.market.title,
    side: row.outcome.toUpperCase(),
    ...positionMarkJson(mark),
    status: row.market.status,
  }));
}

/** GET /api/portfolio/:wallet/stats: the wallet's totals (docs/decisions-market-reads.md). */
export async function portfolioStats(db: Db, wallet: string) {
  const f = walletFigures(await walletPositions(db, wallet));
  const value = f.open.reduce((s, o) => s + o.mark.currentValue, 0n);
  const cost = f.open.reduce((s, o) => s + o.mark.costBasis, 0n);
  return {
    wallet,
    open_positions: f.open.length,
    open_markets: new Set(f.open.map((o) => o.row.market.id)).size,
    total_value: formatUsdc(value),
    total_cost: formatUsdc(cost),
    unrealized_pnl: formatUsdc(f.summary.unrealizedPnl),
    realized_pnl: formatUsdc(f.summary.realizedPnl),
    total_pnl: formatUsdc(f.summary.totalPnl),
    total_volume: formatUsdc(f.totalVolume),
    markets_traded: f.marketsTraded,
    settled_markets: f.summary.settledMarkets,
    won_markets: f.summary.wonMarkets,
    win_rate: f.summary.winRate,
  };
}
