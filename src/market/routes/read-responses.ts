import { Type } from 'typebox';
import { IsoTime, Price, Usdc, nullable } from './read-schemas.ts';

/** Response records of the public read routes, as /openapi.json documents them. */

const marketItemFields = {
  id: Type.Integer(),
  title: Type.String(),
  slug: Type.String(),
  description: Type.String(),
  category: Type.String(),
  market_type: Type.String({ enum: ['yesno', 'threeway', 'updown', 'custom'] }),
  status: Type.String({ enum: ['active', 'resolved', 'cancelled', 'pending'] }),
  yes_price: Price('Price of yes, 0 to 1'),
  no_price: Price('Price of no, 0 to 1'),
  draw_price: Type.Optional(Price('Price of draw; threeway markets only')),
  volume: Usdc('Sum of every stake'),
  volume_24h: Usdc('Sum of the stakes of the last 24 hours'),
  liquidity: Usdc('Money in the pools (sum of real pools, seeds excluded)'),
  spread: Price('best_ask - best_bid of yes: how far a minimum (1 USDC) trade moves the price'),
  price_change_1d: Price('yes_price now minus 24 hours ago'),
  end_date: IsoTime(),
  image_url: Type.String({ description: 'Relative path' }),
  created_at: IsoTime(),
};

export const MarketItem = Type.Object(marketItemFields, { description: 'Market (list item)' });

export const EventItem = Type.Object(
  {
    id: Type.Integer(),
    title: Type.String(),
    slug: Type.String(),
    description: Type.String(),
    category: Type.String(),
    image_url: Type.String(),
    status: Type.String({ enum: ['active', 'resolved'] }),
    // Not IsoTime: "" is no date-time, and the field is a string either way (docs/decisions-market-reads.md).
    end_date: Type.String({ description: 'ISO 8601 UTC timestamp: its own end, else the end of its last market; "" with neither' }),
    created_at: IsoTime(),
    markets_count: Type.Integer(),
    total_volume: Usdc('Sum of its markets\u2019 volume'),
  },
  { description: 'Event (list item)' },
);

export const EventWithMarkets = Type.Object({ ...EventItem.properties, markets: Type.Array(MarketItem) }, { description: 'Event with its markets, most traded first' });

export const OutcomeDetail = Type.Object({
  outcome: Type.String({ enum: ['yes', 'no', 'draw'] }),
  label: Type.String({ description: 'Shown name: Yes/No/Draw, Up/Down on updown markets, or the market\u2019s own' }),
  price: Price(),
  pool: Usdc('Real pool P[o]: stakes on this outcome'),
  seed: Usdc('Virtual seed V[o]: shapes prices, never paid'),
  shares: Usdc('Shares sold on this outcome (millionths, shown like USDC)'),
});

export const MarketDetail = Type.Object(
  {
    ...marketItemFields,
    best_bid: Price('yes price after a 1 USDC stake against yes'),
    best_ask: Price('yes price after a 1 USDC stake on yes'),
    outcomes: Type.Array(OutcomeDetail),
    event_id: nullable(Type.Integer()),
    event: Type.Union([EventItem, Type.Null()]),
    featured: Type.Boolean(),
    trade_count: Type.Integer(),
    last_trade_at: nullable(IsoTime()),
    last_updated: IsoTime('Last trade, else creation'),
    resolved_outcome: nullable(Type.String({ enum: ['yes', 'no', 'draw'] })),
    resolved_at: nullable(IsoTime()),
    cancelled_at: nullable(IsoTime()),
  },
  { description: 'Market with its outcomes and event' },
);

const priceCommon = {
  market_id: Type.Integer(),
  yes_price: Price(),
  no_price: Price(),
  draw_price: Type.Optional(Price('threeway markets only')),
  market_type: Type.String(),
  volume: Usdc(),
  volume_24h: Usdc(),
  liquidity: Usdc('Sum of real pools'),
  spread: Price('best_ask - best_bid'),
  status: Type.String(),
  last_updated: IsoTime('Last trade, else creation'),
};

export const PriceRecord = Type.Object(
  {
    ...priceCommon,
    best_bid: Price('yes price after a minimum (1 USDC) stake against yes'),
    best_ask: Price('yes price after a minimum (1 USDC) stake on yes'),
    change: Type.Object(
      { '1h': Type.Number(), '1d': Type.Number(), '1w': Type.Number(), '1m': Type.Number() },
      { description: 'yes_price now minus 1 hour, 1 day, 1 week, 30 days ago' },
    ),
  },
  { description: 'Price record' },
);

export const BatchPriceRecord = Type.Object(
  {
    ...priceCommon,
    price_change_1h: Type.Number(),
    price_change_1d: Type.Number(),
    price_change_1w: Type.Number(),
  },
  { description: 'Batch price record' },
);

export const BatchPrices = Type.Record(Type.String({ pattern: '^[0-9]+$' }), BatchPriceRecord, {
  description: 'Keyed by market id; unknown ids are left out',
});

const OutcomePrices = Type.Object({ yes: Type.Number(), no: Type.Number(), draw: Type.Optional(Type.Number()) });

export const PriceHistory = Type.Object({
  market_id: Type.Integer(),
  market_type: Type.String(),
  outcome: Type.String({ description: 'The outcome p follows' }),
  interval: Type.String({ description: 'The interval asked, or `custom` for a startTs/endTs window' }),
  start_ts: Type.Optional(Type.Integer({ description: 'A window\'s sampled start, unix seconds (startTs, no earlier than the opening)' })),
  end_ts: Type.Optional(Type.Integer({ description: 'A window\'s sampled end, unix seconds (endTs, no later than now)' })),
  fidelity: Type.Integer({ description: 'Minutes between points' }),
  history: Type.Array(
    Type.Object({
      t: Type.Integer({ description: 'Unix time, seconds' }),
      p: Type.Number({ description: 'Price of `outcome` at t' }),
      prices: OutcomePrices,
    }),
  ),
});

export const Category = Type.Object({
  category: Type.String(),
  count: Type.Integer({ description: 'Markets of every status' }),
  active_count: Type.Integer({ description: 'Active markets' }),
});

export const TradeRecord = Type.Object({
  id: Type.Integer(),
  market_id: Type.Integer(),
  wallet: Type.String(),
  side: Type.String({ enum: ['YES', 'NO', 'DRAW'] }),
  amount: Usdc('Stake'),
  price: Price('Average price paid: amount / shares'),
  shares: Type.Number(),
  timestamp: IsoTime(),
  tx_hash: Type.String({
    description: 'The trade\u2019s receipt, not a chain transaction (pool trades happen in the ledger): 0x + sha256 of `svc-trade v1 <id> <market_id> <wallet> <side> <amount units> <shares units> <unix ms>`',
  }),
});

export const Position = Type.Object({
  market_id: Type.Integer(),
  market_title: Type.String(),
  side: Type.String({ enum: ['YES', 'NO', 'DRAW'] }),
  shares: Type.Number(),
  avg_price: Price('cost_basis / shares'),
  current_price: Price(),
  current_value: Usdc('shares * current_price'),
  cost_basis: Usdc('Sum of stakes'),
  pnl: Usdc('current_value - cost_basis'),
  pnl_percent: Type.Number(),
  status: Type.String(),
});

export const PortfolioStats = Type.Object({
  wallet: Type.String(),
  open_positions: Type.Integer(),
  open_markets: Type.Integer(),
  total_value: Usdc('Sum of current_value of open positions'),
  total_cost: Usdc('Sum of cost_basis of open positions'),
  unrealized_pnl: Usdc('total_value - total_cost'),
  realized_pnl: Usdc('Payouts and refunds minus stakes on settled markets'),
  total_pnl: Usdc('realized_pnl + unrealized_pnl'),
  total_volume: Usdc('Every stake placed'),
  markets_traded: Type.Integer(),
  settled_markets: Type.Integer({ description: 'Resolved or cancelled markets held' }),
  won_markets: Type.Integer(),
  win_rate: Type.Number({ description: 'won_markets / settled_markets, 0 when none' }),
});

export const UserProfile = Type.Object({
  wallet: Type.String(),
  username: Type.String({ description: '"" when unset' }),
  avatar_url: Type.String({ description: '"" when unset' }),
  total_volume: Usdc(),
  total_pnl: Usdc(),
  markets_traded: Type.Integer(),
  rank: Type.Integer({ description: '1 + traders with a larger total_pnl' }),
  win_rate: Type.Number(),
  joined_at: IsoTime(),
});

export const LeaderboardEntry = Type.Object({
  rank: Type.Integer(),
  wallet: Type.String(),
  username: Type.String({ description: '"" when unset' }),
  avatar_url: Type.String({ description: '"" when unset' }),
  total_pnl: Usdc(),
  total_volume: Usdc(),
  markets_traded: Type.Integer(),
  win_rate: Type.Number(),
});

export const UsernameCheck = Type.Object({
  username: Type.String(),
  valid: Type.Boolean(),
  available: Type.Boolean(),
  reason: nullable(Type.String()),
});

export const SearchResult = Type.Object({
  markets: Type.Array(
    Type.Object({
      id: Type.Integer(),
      title: Type.String(),
      category: Type.String(),
      yes_price: Price(),
      volume: Usdc(),
      status: Type.String(),
    }),
  ),
  events: Type.Array(Type.Object({ id: Type.Integer(), title: Type.String(), slug: Type.String(), markets_count: Type.Integer() })),
});
