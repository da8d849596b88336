import { sql, type Kysely, type Migration } from 'kysely';

/**
 * The books audit (src/market/audit/audit-records.ts) joins every trade with its `trade`
 * movement, `ledger_entries.trade_id = trades.id and type = 'trade'`, and lists `trade` entries
 * whose trade is missing; ledger_entries had no index on trade_id, so each audit hashed the whole
 * ledger and sorted the join on disk. This partial index holds exactly the `trade` entries (two
 * per trade) in trade order: PostgreSQL then merge-joins it with trades_pkey and groups without
 * a sort (EXPLAIN in docs/api-decisions.md, "Market API: inputs and shapes"). Its cost is two
 * index entries per trade, written by the trading transaction.
 */
export const ledgerTradeIndexMigration: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await sql`create index if not exists ledger_trade on ledger_entries (trade_id) where type = 'trade'`.execute(db);
  },
  async down(db: Kysely<unknown>): Promise<void> {
    await sql`drop index if exists ledger_trade`.execute(db);
  },
};
