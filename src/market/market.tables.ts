import type { ColumnType, Generated, Selectable } from 'kysely';
import type { MarketType, Outcome } from './pricing/market-pools.ts';

/** A timestamp column: written as Date or ISO text, read as Date. */
type Timestamp = ColumnType<Date, Date | string, Date | string>;
type CreatedAt = ColumnType<Date, Date | string | undefined, never>;

export type MarketStatus = 'pending' | 'active' | 'resolved' | 'cancelled';
export type EventStatus = 'active' | 'resolved';
export type LedgerType = 'deposit' | 'withdraw' | 'trade' | 'settlement' | 'refund' | 'fee';

export interface EventsTable {
  id: Generated<number>;
  slug: string;
  title: string;
  description: string;
  category: string;
  image_url: string;
  status: EventStatus;
  end_date: Timestamp | null;
  featured_at: Timestamp | null;
  created_at: CreatedAt;
}

/**
 * Pools live on the market row (draw columns are 0 on two-outcome markets) so a list page
 * prices every market from one table. `escrow` is what the market holds for its traders
 * until settlement; it is also the `escrow:<id>` ledger account.
 */
export interface MarketsTable {
  id: Generated<number>;
  event_id: number | null;
  slug: string;
  title: string;
  description: string;
  category: string;
  market_type: MarketType;
  status: MarketStatus;
  image_url: string;
  end_date: Timestamp;
  featured_at: Timestamp | null;
  /** Labels shown for yes/no/draw (Up/Down on updown markets). */
  outcome_labels: ColumnType<Record<string, string>, string, string>;
  pool_yes: bigint;
  pool_no: bigint;
  pool_draw: bigint;
  seed_yes: bigint;
  seed_no: bigint;
  seed_draw: bigint;
  shares_yes: bigint;
  shares_no: bigint;
  shares_draw: bigint;
  escrow: bigint;
  /** Sum of all stakes ever placed (units). */
  volume: bigint;
  trade_count: number;
  last_trade_at: Timestamp | null;
  resolved_outcome: Outcome | null;
  resolved_at: Timestamp | null;
  cancelled_at: Timestamp | null;
  /** Settlement totals, set once in the settling transaction. */
  settled_fee: bigint | null;
  settled_dust: bigint | null;
  settled_paid: bigint | null;
  created_at: CreatedAt;
  updated_at: Timestamp;
}

/** A whole market row as read from the table. */
export type MarketRow = Selectable<MarketsTable>;

export interface TradesTable {
  id: Generated<number>;
  market_id: number;
  wallet: string;
  outcome: Outcome;
  amount: bigint;
  shares: bigint;
  /** Average price paid (amount / shares). */
  price: number;
  /** Prices of every outcome after the trade (draw null on two-outcome markets). */
  price_yes_after: number;
  price_no_after: number;
  price_draw_after: number | null;
  created_at: Timestamp;
}

export interface PositionsTable {
  market_id: number;
  wallet: string;
  outcome: Outcome;
  shares: bigint;
  cost_basis: bigint;
  /** What settlement or cancellation paid this position (null while open). */
  payout: bigint | null;
  created_at: CreatedAt;
  updated_at: Timestamp;
}

export interface WalletsTable {
  address: string;
  balance: bigint;
  locked: bigint;
  total_deposited: bigint;
  total_withdrawn: bigint;
  username: string | null;
  avatar_url: string | null;
  created_at: CreatedAt;
  updated_at: Timestamp;
}

/**
 * Double-entry ledger: every movement writes two or more rows sharing `movement_id` whose
 * amounts sum to zero. Accounts: `wallet:<0x..>`, `escrow:<market id>`, `fees`, `external`
 * (money that entered or left the service). A wallet's balance is the sum of its account's rows.
 */
export interface LedgerEntriesTable {
  id: Generated<number>;
  movement_id: string;
  account: string;
  amount: bigint;
  type: LedgerType;
  wallet: string | null;
  market_id: number | null;
  trade_id: number | null;
  tx_hash: string | null;
  chain: string | null;
  note: string | null;
  created_at: ColumnType<Date, Date | string | undefined, never>;
}

export interface MarketTables {
  events: EventsTable;
  markets: MarketsTable;
  trades: TradesTable;
  positions: PositionsTable;
  wallets: WalletsTable;
  ledger_entries: LedgerEntriesTable;
}
