import {
  type MarketPools,
  type Outcome,
  type PricePoint,
  type Prices,
  formatUsdc,
  poolPrices,
  poolTotals,
} from '../pricing/index.ts';
import { type PoolColumns, openingPricesOf, poolsOf } from '../markets/market-row-pools.ts';
import type { ListColumns, MarketReadRow, TradePrices } from './market-row.ts';
import { type QuoteDepth, quoteDepth } from './quote-depth.ts';

/** What every market read derives from the pools, computed once per row. */
export interface MarketFigures {
  readonly pools: MarketPools;
  readonly prices: Prices;
  readonly opening: Prices;
  /** Sum of the real pools, USDC. */
  readonly liquidity: number;
  readonly depth: QuoteDepth;
}

export function figuresOf(row: PoolColumns): MarketFigures {
  const pools = poolsOf(row);
  return {
    pools,
    prices: poolPrices(pools),
    opening: openingPricesOf(row),
    liquidity: formatUsdc(poolTotals(pools).real),
    depth: quoteDepth(pools, 'yes'),
  };
}

/** A stored trade's prices-after as a point of the price series. */
export function pricePoint(trade: TradePrices, row: Pick<MarketReadRow, 'market_type'>): PricePoint {
  const prices: Prices =
    row.market_type === 'threeway' ? { yes: trade.yes, no: trade.no, draw: trade.draw ?? 0 } : { yes: trade.yes, no: trade.no };
  return { at: trade.at.getTime(), prices };
}

/**
 * The price series of a market as far as some reads need it: the given trades (each the last one
 * at or before some moment of interest) and the current prices at the last trade, sorted by time.
 */
export function sparseSeries(row: Pick<MarketReadRow, 'market_type' | 'last_trade_at'>, figures: MarketFigures, trades: readonly (TradePrices | null)[]): PricePoint[] {
  const points = new Map<number, PricePoint>();
  for (const t of trades) if (t) points.set(t.at.getTime(), pricePoint(t, row));
  if (row.last_trade_at) points.set(row.last_trade_at.getTime(), { at: row.last_trade_at.getTime(), prices: figures.prices });
  return [...points.values()].sort((a, b) => a.at - b.at);
}

const DEFAULT_LABELS: Record<string, Record<Outcome, string>> = {
  updown: { yes: 'Up', no: 'Down', draw: 'Draw' },
  other: { yes: 'Yes', no: 'No', draw: 'Draw' },
};

/** The label shown for each outcome: the market's own, else Yes/No/Draw (Up/Down on updown). */
export function outcomeLabel(row: MarketReadRow, outcome: Outcome): string {
  const own = row.outcome_labels?.[outcome];
  if (typeof own === 'string' && own !== '') return own;
  return (DEFAULT_LABELS[row.market_type] ?? DEFAULT_LABELS.other!)[outcome];
}

/** The yes/no(/draw) price fields of a market read. */
export function priceFields(f: MarketFigures): { yes_price: number; no_price: number; draw_price?: number } {
  return f.prices.draw !== undefined
    ? { yes_price: f.prices.yes, no_price: f.prices.no, draw_price: f.prices.draw }
    : { yes_price: f.prices.yes, no_price: f.prices.no };
}

/** When the market's prices last moved: its last trade, else its creation. */
export function lastUpdated(row: Pick<MarketReadRow, 'last_trade_at' | 'created_at'>): string {
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

/** The Market list item of the market API (draw_price added on threeway markets). */
export function marketItem(row: ListColumns, f: MarketFigures, volume24h: bigint, priceChange1d: number): MarketItem {
  return {
    id: row.id,
    title: row.title,
    slug: row.slug,
    description: row.description,
    category: row.category,
    market_type: row.market_type,
    status: row.status,
    ...priceFields(f),
    volume: formatUsdc(row.volume),
    volume_24h: formatUsdc(volume24h),
    liquidity: f.liquidity,
    spread: f.depth.spread,
    price_change_1d: priceChange1d,
    end_date: row.end_date.toISOString(),
    image_url: row.image_url,
    created_at: row.created_at.toISOString(),
  };
}
