import type { ColumnType } from 'kysely';

type Timestamp = ColumnType<Date, Date | string, Date | string>;

/**
 * On-chain deposits already credited: the primary key (chain, tx_hash, log_index) is what makes
 * a transfer credit exactly once. `log_index` is the lowest matching Transfer log of the
 * transaction (see VerifiedDeposit); `amount` sums all of them.
 */
export interface ChainDepositsTable {
  chain: string;
  tx_hash: string;
  log_index: number;
  wallet: string;
  amount: bigint;
  block_number: bigint;
  movement_id: string;
  created_at: Timestamp;
}

export interface ChainDepositsTables {
  chain_deposits: ChainDepositsTable;
}
