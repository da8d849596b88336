import type { Kysely, Selectable } from 'kysely';
import type { Database } from '../../storage/schema.ts';
import type { LedgerEntriesTable } from '../market.tables.ts';
import { walletAccount } from './ledger.accounts.ts';

/** The ledger types a wallet's own account can carry (`fee` moves escrow to fees only). */
export const WALLET_LEDGER_TYPES = ['deposit', 'withdraw', 'trade', 'settlement', 'refund'] as const;
export type WalletLedgerType = (typeof WALLET_LEDGER_TYPES)[number];

export type WalletLedgerRow = Pick<
  Selectable<LedgerEntriesTable>,
  'id' | 'type' | 'amount' | 'tx_hash' | 'chain' | 'note' | 'market_id' | 'trade_id' | 'created_at'
>;

/**
 * A wallet's side of its movements, newest first: one row per movement, the amount signed as the
 * wallet saw it (a trade or withdrawal negative, a deposit, payout or refund positive). `beforeId`
 * lists the entries older than that id, so every entry is reachable a page at a time.
 */
export async function listWalletLedger(
  db: Kysely<Database>,
  wallet: string,
  opts: { readonly limit: number; readonly type?: WalletLedgerType; readonly beforeId?: number },
): Promise<WalletLedgerRow[]> {
  let q = db
    .selectFrom('ledger_entries')
    .select(['id', 'type', 'amount', 'tx_hash', 'chain', 'note', 'market_id', 'trade_id', 'created_at'])
    .where('account', '=', walletAccount(wallet));
  if (opts.type) q = q.where('type', '=', opts.type);
  if (opts.beforeId !== undefined) q = q.where('id', '<', opts.beforeId);
  return q.orderBy('id', 'desc').limit(opts.limit).execute();
}
