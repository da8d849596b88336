import {
  type MarketPools,
  type Outcome,
  type PricePoint,
  type Prices,
  formatUsdc,
  mapOutcomes,
  marketOutcomes,
  marketPools,
  poolPrices,
  poolTotals,
} from '../pricing/index.ts';
import type { MarketRow, TradePrices } from './market-row.ts';
import { quoteDepth } from './quote-depth.ts';

/** The real pools and seeds of a market row, checked. */
export function poolsOf(row: MarketRow): MarketPools {
  const outcomes = marketOutcomes(row.market_type);
  const seed = { yes: row.seed_yes, no: row.seed_no, draw: row.seed_draw };
  const real = { yes: row.pool_yes, no: row.pool_no, draw: row.pool_draw };
  return marketPools(
    mapOutcomes(outcomes, (o) => seed[o]),
    mapOutcomes(outcomes, (o) => real[o]),
  );
}

/** The prices before any trade: seeds alone. */
export function openingPricesOf(row: MarketRow): Prices {
  const outcomes = marketOutcomes(row.market_type);
  const seed = { yes: row.seed_yes, no: row.seed_no, draw: row.seed_draw };
  return poolPrices(marketPools(mapOutcomes(outcomes, (o) => seed[o])));
}

/** A stored trade's prices-after as a point of the price series. */
export function pricePoint(trade: TradePrices, row: MarketRow): PricePoint {
  const prices: Prices =
    row.market_type === 'threeway' ? { yes: trade.yes, no: trade.no, draw: trade.draw ?? 0 } : { yes: trade.yes, no: trade.no };
  return { at: trade.at.getTime(), prices };
}

/**
 * The price series of a market as far as some reads need it: the given trades (each the last one
 * at or before some moment of interest) and the current pools at the last trade, sorted by time.
 */
export function sparseSeries(row: MarketRow, trades: readonly (TradePrices | null)[]): PricePoint[] {
  const points = new Map<number, PricePoint>();
  for (const t of trades) if (t) points.set(t.at.getTime(), pricePoint(t, row));
  if (row.last_trade_at) points.set(row.last_trade_at.getTime(), { at: row.last_trade_at.getTime(), prices: poolPrices(poolsOf(row)) });
  return [...points.values()].sort((a, b) => a.at - b.at);
}

const DEFAULT_LABELS: Record<string, Record<Outcome, string>> = {
  updown: { yes: 'Up', no: 'Down', draw: 'Draw' },
  other: { yes: 'Yes', no: 'No', draw: 'Draw' },
};

/** The label shown for each outcome: the market's own, else Yes/No/Draw (Up/Down on updown). */
export function outcomeLabel(row: MarketRow, outcome: Outcome): string {
  const own = row.outcome_labels?.[outcome];
  if (typeof own === 'string' && own !== '') return own;
  return (DEFAULT_LABELS[row.market_type] ?? DEFAULT_LABELS.other!)[outcome];
}

/** The price fields every market read shares: yes/no(/draw) prices, liquidity and depth. */
export function priceFigures(row: MarketRow) {
  const pools = poolsOf(row);
  const prices = poolPrices(pools);
  const depth = quoteDepth(pools, 'yes');
  return {
    prices,
    yes_price: prices.yes,
    no_price: prices.no,
    ...(prices.draw !== undefined ? { draw_price: prices.draw } : {}),
    liquidity: formatUsdc(poolTotals(pools).real),
    spread: depth.spread,
    best_bid: depth.bestBid,
    best_ask: depth.bestAsk,
  };
}

/** When the market's prices last moved: its last trade, else its creation. */
export function lastUpdated(row: MarketRow): string {
  return (row.last_trade_at ?? row.created_at).toISOString();
}

export interface MarketItem {
  id: number;
  title: string;
  slug: string;
  description: string;
  category: string;
  market_type: string;
  status: string;
  yes_price: number;
  no_price: number;
  draw_price?: number;
  volume: number;
  volume_24h: number;
  liquidity: number;
  spread: number;
  price_change_1d: number;
  end_date: string;
  image_url: string;
  created_at: string;
}

/** The Market list item of market-api.md (draw_price added on threeway markets). */
export function marketItem(row: MarketRow, volume24h: bigint, priceChange1d: number): MarketItem {
  const f = priceFigures(row);
  return {
    id: row.id,
    title: row.title,
    slug: row.slug,
    description: row.description,
    category: row.category,
    market_type: row.market_type,
    status: row.status,
    yes_price: f.yes_price,
    no_price: f.no_price,
    ...(f.draw_price !== undefined ? { draw_price: f.draw_price } : {}),
    volume: formatUsdc(row.volume),
    volume_24h: formatUsdc(volume24h),
    liquidity: f.liquidity,
    spread: f.spread,
    price_change_1d: priceChange1d,
    end_date: row.end_date.toISOString(),
    image_url: row.image_url,
    created_at: row.created_at.toISOString(),
  };
}
