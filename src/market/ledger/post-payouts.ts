import { randomUUID } from 'node:crypto';
import { sql, type Transaction } from 'kysely';
import type { Database } from '../../storage/schema.ts';
import { intArrayLiteral, textArrayLiteral } from '../../storage/array-literal.ts';
import { checkMovement, LedgerError, type Movement } from './check-movement.ts';
import { escrowAccount, walletAccount } from './ledger.accounts.ts';

/** One payout out of a market's escrow to a wallet. */
export interface Payout {
  readonly wallet: string;
  /** Units, more than zero. */
  readonly amount: bigint;
  readonly type: 'settlement' | 'refund';
  readonly note: string;
}

/**
 * Posts many payouts of one market as one movement each (escrow -> wallet, the rows postMovement
 * would write, in the given order) with the wallets' balances and the market's escrow, in three
 * statements however many there are: settling a market one movement at a time held every paid
 * wallet locked for a round trip per position, seconds for a market of thousands
 * (docs/market-money.md). The wallets are locked first, in address order, the order every
 * transaction takes them in. A wallet or market that does not exist aborts the transaction.
 */
export async function postPayouts(trx: Transaction<Database>, marketId: number, payouts: readonly Payout[], at: Date): Promise<void> {
  if (payouts.length === 0) return;
  const escrow = escrowAccount(marketId);
  const movementIds = payouts.map((p) => {
    const movement: Movement = {
      type: p.type,
      entries: [
        { account: escrow, amount: -p.amount },
        { account: walletAccount(p.wallet), amount: p.amount },
      ],
      wallet: p.wallet,
      market_id: marketId,
      note: p.note,
    };
    checkMovement(movement);
    if (p.amount < 0n) throw new LedgerError(`payout of ${p.amount} to ${p.wallet}`);
    return randomUUID();
  });
  const wallets = [...new Set(payouts.map((p) => p.wallet))].sort();
  const locked = await sql<{ address: string }>`
    select address from wallets where address = any(${textArrayLiteral(wallets)}::text[]) order by address for update`.execute(trx);
  if (locked.rows.length !== wallets.length) {
    const found = new Set(locked.rows.map((r) => r.address));
    throw new LedgerError(`no wallet ${wallets.find((w) => !found.has(w))}`);
  }
  const r = await sql<{ entries: number; wallets: number; escrows: number }>`
    with v as (
      select * from unnest(
        ${textArrayLiteral(movementIds)}::uuid[], ${textArrayLiteral(payouts.map((p) => p.wallet))}::text[],
        ${textArrayLiteral(payouts.map((p) => walletAccount(p.wallet)))}::text[], ${intArrayLiteral(payouts.map((p) => p.amount))}::bigint[],
        ${textArrayLiteral(payouts.map((p) => p.type))}::text[], ${textArrayLiteral(payouts.map((p) => p.note))}::text[]
      ) with ordinality as v(movement_id, wallet, account, amount, type, note, ord)
    ), entries as (
      insert into ledger_entries (movement_id, account, amount, type, wallet, market_id, note, created_at)
      select movement_id, account, amount, type, wallet, ${marketId}::int, note, ${at}::timestamptz from (
        select ord, 0 as step, movement_id, ${escrow}::text as account, -amount as amount, type, wallet, note from v
        union all
        select ord, 1, movement_id, account, amount, type, wallet, note from v
      ) x order by ord, step
      returning 1
    ), per_wallet as (
      select wallet, sum(amount)::bigint as amount from v group by wallet
    ), credited as (
      update wallets w set balance = w.balance + p.amount, updated_at = ${at}::timestamptz from per_wallet p where w.address = p.wallet returning 1
    ), debited as (
      update markets set escrow = escrow - (select sum(amount) from v)::bigint where id = ${marketId} returning 1
    )
    select (select count(*) from entries)::int as entries, (select count(*) from credited)::int as wallets,
      (select count(*) from debited)::int as escrows`.execute(trx);
  const counts = r.rows[0];
  if (counts?.entries !== 2 * payouts.length || counts.wallets !== wallets.length || counts.escrows !== 1) {
    throw new LedgerError(`payouts of market ${marketId} wrote ${JSON.stringify(counts)} for ${payouts.length} payouts to ${wallets.length} wallets`);
  }
}
