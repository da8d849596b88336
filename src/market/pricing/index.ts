/**
 * Pure pool arithmetic of the parimutuel market (docs/pool-arithmetic.md): no database,
 * no Fastify. Money and shares are bigint units (1 USDC = 1,000,000); prices are display numbers.
 * Client mistakes throw HttpError 400 with the documented messages; broken books throw Error.
 */
export {
  type MarketPools,
  type MarketType,
  type Outcome,
  type OutcomePool,
  type OutcomeRecord,
  isOutcome,
  mapOutcomes,
  marketOutcomes,
  marketPools,
  poolTotals,
  recordOutcomes,
} from './market-pools.ts';
export { type PriceFraction, type Prices, poolPrice, poolPrices, priceFraction } from './pool-price.ts';
export { DEFAULT_SEED_UNITS, OPENING_PRICE_TOLERANCE, type OpeningOptions, openingSeeds } from './opening-seeds.ts';
export { MAX_STAKE_UNITS, MIN_STAKE_UNITS, type TradeQuote, quoteTrade } from './quote-trade.ts';
export { FEE_BPS, type MarketSettlement, type PositionPayout, type SettlementPosition, settleMarket } from './settle-market.ts';
export { refundMarket } from './refund-market.ts';
export { MAX_AMOUNT_UNITS, UNITS_PER_USDC, formatUsdc, parseUsdcAmount, stakeNumberToUnits, usdcNumberToUnits, usdcText } from './usdc-amount.ts';
export {
  type PositionMark,
  type PositionMarkJson,
  type SettledMarketResult,
  type TraderSummary,
  markPosition,
  positionMarkJson,
  summarizeTrader,
} from './position-marks.ts';
export {
  CHANGE_WINDOWS,
  type ChangeWindow,
  DEFAULT_FIDELITY,
  type HistoryInterval,
  type HistoryQuery,
  MAX_HISTORY_POINTS,
  type PricePoint,
  type StakeEvent,
  priceAt,
  priceChange,
  priceChanges,
  priceHistory,
  windowFidelity,
  replayPrices,
} from './price-history.ts';
export { type PayoutIfWon, payoutIfWon } from './payout-if-won.ts';
