import { formatUsdc } from './usdc-amount.ts';

/** A position valued at the current price (docs/pool-arithmetic.md, "Marks"); money in units. */
export interface PositionMark {
  /** Shares held, in millionths of a share (shown with 6 decimals, like USDC). */
  readonly shares: bigint;
  /** Stakes paid into the position, in units. */
  readonly costBasis: bigint;
  readonly currentPrice: number;
  /** shares * current_price, rounded to the unit. */
  readonly currentValue: bigint;
  /** current_value - cost_basis, in units. */
  readonly pnl: bigint;
  /** pnl / cost_basis * 100 (0 when cost_basis is 0). */
  readonly pnlPercent: number;
  /** cost_basis / shares (0 when there are no shares). */
  readonly avgPrice: number;
}

/** The Position fields of the market API as JSON numbers (USDC for money). */
export interface PositionMarkJson {
  readonly shares: number;
  readonly avg_price: number;
  readonly current_price: number;
  readonly current_value: number;
  readonly cost_basis: number;
  readonly pnl: number;
  readonly pnl_percent: number;
}

/** Marks a position (its added-up stakes and shares) at its outcome's current display price. */
export function markPosition(position: { readonly shares: bigint; readonly costBasis: bigint }, currentPrice: number): PositionMark {
  const { shares, costBasis } = position;
  if (shares < 0n || costBasis < 0n) throw new RangeError('shares and cost basis must not be negative');
  if (!Number.isFinite(currentPrice) || currentPrice < 0 || currentPrice > 1) throw new RangeError(`price out of range: ${currentPrice}`);
  // Shares stay below 2^53 (quoteTrade refuses more), so Number(shares) is exact; one rounding.
  const currentValue = BigInt(Math.round(Number(shares) * currentPrice));
  const pnl = currentValue - costBasis;
  return {
    shares,
    costBasis,
    currentPrice,
    currentValue,
    pnl,
    pnlPercent: costBasis === 0n ? 0 : (Number(pnl) / Number(costBasis)) * 100,
    avgPrice: shares === 0n ? 0 : Number(costBasis) / Number(shares),
  };
}

/** A mark as the API's Position numbers: shares and money in USDC (units / 1e6). */
export function positionMarkJson(mark: PositionMark): PositionMarkJson {
  return {
    shares: formatUsdc(mark.shares),
    avg_price: mark.avgPrice,
    current_price: mark.currentPrice,
    current_value: formatUsdc(mark.currentValue),
    cost_basis: formatUsdc(mark.costBasis),
    pnl: formatUsdc(mark.pnl),
    pnl_percent: mark.pnlPercent,
  };
}

/**
 * A user's result on one settled (resolved or cancelled) market they held a position in, from
 * the ledger: `staked` = their stakes there, `settled` = their `settlement` entries, `refunded` =
 * their `refund` entries. They won it when settled > 0 (winners always get at least their stake).
 */
export interface SettledMarketResult {
  readonly staked: bigint;
  readonly settled: bigint;
  readonly refunded: bigint;
}

/** total_pnl and win_rate of a user, with their parts; money in units. */
export interface TraderSummary {
  /** Realized (settled + refunded - staked over settled markets) plus the open marks' pnl. */
  readonly totalPnl: bigint;
  readonly realizedPnl: bigint;
  readonly unrealizedPnl: bigint;
  readonly wonMarkets: number;
  readonly settledMarkets: number;
  /** wonMarkets / settledMarkets, 0 when there are none. */
  readonly winRate: number;
}

/**
 * Sums a user's results (docs/pool-arithmetic.md, "Marks"). win_rate counts every settled market held,
 * cancelled and no-winner ones included (as not won), as the spec words it.
 */
export function summarizeTrader(settled: readonly SettledMarketResult[], open: readonly Pick<PositionMark, 'pnl'>[]): TraderSummary {
  const realizedPnl = settled.reduce((sum, m) => sum + m.settled + m.refunded - m.staked, 0n);
  const unrealizedPnl = open.reduce((sum, m) => sum + m.pnl, 0n);
  const wonMarkets = settled.filter((m) => m.settled > 0n).length;
  return {
    totalPnl: realizedPnl + unrealizedPnl,
    realizedPnl,
    unrealizedPnl,
    wonMarkets,
    settledMarkets: settled.length,
    winRate: settled.length === 0 ? 0 : wonMarkets / settled.length,
  };
}
