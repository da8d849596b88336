import { randomUUID } from 'node:crypto';
import { sql, type Transaction } from 'kysely';
import type { Database } from '../../storage/schema.ts';
import { checkMovement, LedgerError, type Movement } from './check-movement.ts';
import { parseAccount } from './ledger.accounts.ts';

export interface PostMovementInput extends Movement {
  /** When the movement happened (default now); the demo seed back-dates its history. */
  readonly at?: Date;
}

export interface PostedMovement {
  readonly movement_id: string;
  /** Ledger row ids, in the order of the entries. */
  readonly entry_ids: readonly number[];
}

/**
 * Writes one balanced movement and, in the same transaction, the balance columns it explains:
 * `wallets.balance` (plus total_deposited / total_withdrawn for deposit / withdraw) and
 * `markets.escrow`. A wallet or market that does not exist, or a balance that would go below zero
 * (a check constraint), aborts the transaction. Callers that debit must have locked the row and
 * checked the amount first.
 */
export async function postMovement(trx: Transaction<Database>, input: PostMovementInput): Promise<PostedMovement> {
  checkMovement(input);
  const movement_id = randomUUID();
  const at = input.at ?? new Date();
  const rows = await trx
    .insertInto('ledger_entries')
    .values(
      input.entries.map((e) => ({
        movement_id,
        account: e.account,
        amount: e.amount,
        type: input.type,
        wallet: input.wallet ?? null,
        market_id: input.market_id ?? null,
        trade_id: input.trade_id ?? null,
        tx_hash: input.tx_hash ?? null,
        chain: input.chain ?? null,
        note: input.note ?? null,
        created_at: at,
      })),
    )
    .returning('id')
    .execute();

  for (const e of input.entries) {
    const account = parseAccount(e.account)!;
    if (account.kind === 'wallet') {
      const deposited = input.type === 'deposit' && e.amount > 0n ? e.amount : 0n;
      const withdrawn = input.type === 'withdraw' && e.amount < 0n ? -e.amount : 0n;
      const updated = await trx
        .updateTable('wallets')
        .set({
          balance: sql<bigint>`balance + ${e.amount}`,
          total_deposited: sql<bigint>`total_deposited + ${deposited}`,
          total_withdrawn: sql<bigint>`total_withdrawn + ${withdrawn}`,
          updated_at: at,
        })
        .where('address', '=', account.address)
        .executeTakeFirst();
      if (updated.numUpdatedRows !== 1n) throw new LedgerError(`no wallet ${account.address}`);
    } else if (account.kind === 'escrow') {
      const updated = await trx
        .updateTable('markets')
        .set({ escrow: sql<bigint>`escrow + ${e.amount}` })
        .where('id', '=', account.marketId)
        .executeTakeFirst();
      if (updated.numUpdatedRows !== 1n) throw new LedgerError(`no market ${account.marketId}`);
    }
  }
  return { movement_id, entry_ids: rows.map((r) => Number(r.id)) };
}
