import { sql, type Transaction } from 'kysely';
import type { Database } from '../../storage/schema.ts';

const LIMIT = 50;

/**
 * Checks each record against the ledger movement and balances it must have produced, so nothing
 * is half-written (a crash inside a transaction must leave all of it or none):
 * - every trade has its `trade` movement (wallet -amount, escrow +amount, nothing else), every
 *   `trade` movement its trade, and each position equals the sum of its wallet's trades;
 * - each wallet's `locked` equals its open (pending or sending) withdrawals;
 * - every completed withdrawal has its `withdraw` movement of its amount, and every `withdraw`
 *   movement belongs to a completed withdrawal;
 * - every credited chain deposit has its `deposit` movement of its amount to its wallet.
 */
export async function auditRecords(trx: Transaction<Database>, problem: (p: string) => void): Promise<void> {
  const trades = await sql<{ id: number; amount: bigint; debited: bigint; escrowed: bigint; entries: number }>`
    select t.id, t.amount,
      coalesce(sum(l.amount) filter (where l.account = 'wallet:' || t.wallet), 0)::bigint as debited,
      coalesce(sum(l.amount) filter (where l.account = 'escrow:' || t.market_id), 0)::bigint as escrowed,
      count(l.id)::int as entries
    from trades t left join ledger_entries l on l.trade_id = t.id and l.type = 'trade'
    group by t.id, t.amount
    having coalesce(sum(l.amount) filter (where l.account = 'wallet:' || t.wallet), 0) <> -t.amount
      or coalesce(sum(l.amount) filter (where l.account = 'escrow:' || t.market_id), 0) <> t.amount
      or count(l.id) <> 2
    order by t.id limit ${LIMIT}`.execute(trx);
  for (const t of trades.rows) {
    problem(`trade ${t.id} of ${t.amount}: its ledger movement debits ${-t.debited} and escrows ${t.escrowed} in ${t.entries} entries`);
  }

  const orphanTrades = await sql<{ trade_id: number | null; movement_id: string }>`
    select l.trade_id, l.movement_id from ledger_entries l
    where l.type = 'trade' and (l.trade_id is null or not exists (select 1 from trades t where t.id = l.trade_id))
    limit ${LIMIT}`.execute(trx);
  for (const o of orphanTrades.rows) problem(`trade movement ${o.movement_id} has no trade (trade_id ${o.trade_id})`);

  const positions = await sql<{ market_id: number; wallet: string; outcome: string; stake: bigint; shares: bigint; traded: bigint; traded_shares: bigint }>`
    select coalesce(p.market_id, t.market_id) as market_id, coalesce(p.wallet, t.wallet) as wallet,
      coalesce(p.outcome, t.outcome) as outcome,
      coalesce(p.cost_basis, 0)::bigint as stake, coalesce(p.shares, 0)::bigint as shares,
      coalesce(t.amount, 0)::bigint as traded, coalesce(t.shares, 0)::bigint as traded_shares
    from positions p
    full join (select market_id, wallet, outcome, sum(amount) as amount, sum(shares) as shares from trades group by 1, 2, 3) t
      on t.market_id = p.market_id and t.wallet = p.wallet and t.outcome = p.outcome
    where coalesce(p.cost_basis, 0) <> coalesce(t.amount, 0) or coalesce(p.shares, 0) <> coalesce(t.shares, 0)
    limit ${LIMIT}`.execute(trx);
  for (const p of positions.rows) {
    problem(
      `position ${p.wallet} ${p.outcome} on market ${p.market_id}: stake ${p.stake} and ${p.shares} shares, ` +
        `but its trades add up to ${p.traded} and ${p.traded_shares} shares`,
    );
  }

  const locked = await sql<{ address: string; locked: bigint; open: bigint }>`
    select w.address, w.locked, coalesce(o.total, 0)::bigint as open
    from wallets w
    left join (select wallet, sum(amount) as total from withdrawals where status in ('pending', 'sending') group by wallet) o
      on o.wallet = w.address
    where w.locked <> coalesce(o.total, 0)
    limit ${LIMIT}`.execute(trx);
  for (const l of locked.rows) problem(`wallet ${l.address}: locked ${l.locked} but its open withdrawals add up to ${l.open}`);

  const completed = await sql<{ id: number; amount: bigint; paid: bigint | null }>`
    select d.id, d.amount, (
      select sum(l.amount)::bigint from ledger_entries l
      where l.movement_id = d.movement_id and l.account = 'external' and l.type = 'withdraw'
    ) as paid
    from withdrawals d where d.status = 'completed'
      and (select coalesce(sum(l.amount), 0) from ledger_entries l
           where l.movement_id = d.movement_id and l.account = 'external' and l.type = 'withdraw') <> d.amount
    limit ${LIMIT}`.execute(trx);
  for (const c of completed.rows) problem(`withdrawal ${c.id} of ${c.amount} is completed but its ledger movement pays ${c.paid ?? 0}`);

  const strayWithdrawals = await sql<{ movement_id: string; amount: bigint }>`
    select l.movement_id, l.amount from ledger_entries l
    where l.type = 'withdraw' and l.account = 'external'
      and not exists (select 1 from withdrawals d where d.movement_id = l.movement_id and d.status = 'completed')
    limit ${LIMIT}`.execute(trx);
  for (const s of strayWithdrawals.rows) problem(`withdraw movement ${s.movement_id} (${s.amount}) has no completed withdrawal`);

  const deposits = await sql<{ chain: string; tx_hash: string; amount: bigint; credited: bigint }>`
    select c.chain, c.tx_hash, c.amount, coalesce((
      select sum(l.amount) from ledger_entries l
      where l.movement_id = c.movement_id and l.account = 'wallet:' || c.wallet and l.type = 'deposit'
    ), 0)::bigint as credited
    from chain_deposits c
    where coalesce((
      select sum(l.amount) from ledger_entries l
      where l.movement_id = c.movement_id and l.account = 'wallet:' || c.wallet and l.type = 'deposit'
    ), 0) <> c.amount
    limit ${LIMIT}`.execute(trx);
  for (const d of deposits.rows) problem(`chain deposit ${d.chain} ${d.tx_hash} of ${d.amount}: its ledger movement credits ${d.credited}`);
}
