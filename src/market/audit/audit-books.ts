import { sql, type Kysely } from 'kysely';
import type { Database } from '../../storage/schema.ts';
import { isSettled } from '../markets/markets.repository.ts';
import { parseAccount } from '../ledger/ledger.accounts.ts';
import { auditRecords } from './audit-records.ts';

/** Totals of the whole service, in units. */
export interface BooksTotals {
  /** Sum of wallets.balance. */
  readonly wallets: bigint;
  /** Sum of markets.escrow over unsettled markets. */
  readonly escrow: bigint;
  /** The `fees` account. */
  readonly fees: bigint;
  /** Money deposited (the `external` account's deposit entries, sign flipped). */
  readonly deposits: bigint;
  /** Money withdrawn (the `external` account's withdraw entries). */
  readonly withdrawals: bigint;
  /** -sum(external) = deposits - completed withdrawals. */
  readonly net_external: bigint;
  readonly movements: number;
  readonly entries: number;
  readonly wallets_count: number;
  readonly markets_count: number;
  readonly settled_markets: number;
}

export interface BooksReport {
  readonly balanced: boolean;
  /** One line per discrepancy (capped); empty when balanced. */
  readonly problems: readonly string[];
  readonly totals: BooksTotals;
}

const MAX_PROBLEMS = 200;

/**
 * Re-adds the ledger and compares it with every balance kept beside it (docs/pool-arithmetic.md,
 * "Invariant"): each movement sums to zero; each wallet's balance is its account's sum; each
 * unsettled market's escrow is its account's sum and its pools' sum, and its pools, shares and
 * positions agree with its trades; each settled market has zero escrow, every position paid (0
 * for a loser), and payouts + refunds + fee + dust = T; and wallets + escrow + fees =
 * deposits - withdrawals; and each trade, position, withdrawal and chain deposit agrees with its
 * ledger movement (auditRecords). Reads one snapshot (repeatable read), so it can run while trading.
 */
export async function auditBooks(db: Kysely<Database>): Promise<BooksReport> {
  return db
    .transaction()
    .setIsolationLevel('repeatable read')
    .execute(async (trx) => {
      const problems: string[] = [];
      const problem = (p: string) => {
        if (problems.length < MAX_PROBLEMS) problems.push(p);
      };

      const unbalanced = await sql<{ movement_id: string; total: bigint }>`
        select movement_id, sum(amount)::bigint as total from ledger_entries
        group by movement_id having sum(amount) <> 0 limit 50`.execute(trx);
      for (const m of unbalanced.rows) problem(`movement ${m.movement_id} sums to ${m.total}, not 0`);

      const counts = await sql<{ movements: number; entries: number }>`
        select count(distinct movement_id)::int as movements, count(*)::int as entries from ledger_entries`.execute(trx);

      const accounts = await sql<{ account: string; total: bigint }>`
        select account, sum(amount)::bigint as total from ledger_entries group by account`.execute(trx);
      const accountSum = new Map<string, bigint>();
      for (const a of accounts.rows) {
        accountSum.set(a.account, a.total);
        if (parseAccount(a.account) === null) problem(`unknown ledger account ${a.account}`);
      }

      const external = await sql<{ type: string; total: bigint }>`
        select type, sum(amount)::bigint as total from ledger_entries where account = 'external' group by type`.execute(trx);
      let deposits = 0n;
      let withdrawals = 0n;
      for (const e of external.rows) {
        if (e.type === 'deposit') deposits = -e.total;
        else if (e.type === 'withdraw') withdrawals = e.total;
        else problem(`external account has ${e.type} entries`);
      }

      // Wallets.
      const wallets = await trx.selectFrom('wallets').select(['address', 'balance', 'locked']).execute();
      let walletTotal = 0n;
      const walletAddresses = new Set<string>();
      for (const w of wallets) {
        walletAddresses.add(w.address);
        walletTotal += w.balance;
        const ledger = accountSum.get(`wallet:${w.address}`) ?? 0n;
        if (ledger !== w.balance) problem(`wallet ${w.address}: balance ${w.balance} but its ledger sums to ${ledger}`);
        if (w.locked < 0n || w.locked > w.balance) problem(`wallet ${w.address}: locked ${w.locked} outside 0..${w.balance}`);
      }
      for (const [account, total] of accountSum) {
        const parsed = parseAccount(account);
        if (parsed?.kind === 'wallet' && !walletAddresses.has(parsed.address)) problem(`ledger account ${account} (${total}) has no wallet`);
      }

      // Markets, with what their trades, positions and ledger say.
      const markets = await trx
        .selectFrom('markets')
        .select([
          'id', 'status', 'market_type', 'escrow', 'pool_yes', 'pool_no', 'pool_draw', 'shares_yes', 'shares_no', 'shares_draw',
          'volume', 'trade_count', 'settled_fee', 'settled_dust', 'settled_paid',
        ])
        .orderBy('id')
        .execute();
      const trades = await sql<{ market_id: number; outcome: string; amount: bigint; shares: bigint; n: number }>`
        select market_id, outcome, sum(amount)::bigint as amount, sum(shares)::bigint as shares, count(*)::int as n
        from trades group by market_id, outcome`.execute(trx);
      const positions = await sql<{ market_id: number; outcome: string; stake: bigint; shares: bigint; payout: bigint; unpaid: number }>`
        select market_id, outcome, sum(cost_basis)::bigint as stake, sum(shares)::bigint as shares,
               coalesce(sum(payout), 0)::bigint as payout, count(*) filter (where payout is null)::int as unpaid
        from positions group by market_id, outcome`.execute(trx);
      const paid = await sql<{ market_id: number; type: string; total: bigint }>`
        select market_id, type, sum(amount)::bigint as total from ledger_entries
        where market_id is not null and type in ('settlement', 'refund', 'fee') and account not like 'escrow:%'
        group by market_id, type`.execute(trx);

      const key = (id: number, o: string) => `${id}:${o}`;
      const tradeBy = new Map(trades.rows.map((r) => [key(r.market_id, r.outcome), r]));
      const positionBy = new Map(positions.rows.map((r) => [key(r.market_id, r.outcome), r]));
      const paidBy = new Map(paid.rows.map((r) => [key(r.market_id, r.type), r.total]));

      let escrowTotal = 0n;
      let settledCount = 0;
      for (const m of markets) {
        const escrowLedger = accountSum.get(`escrow:${m.id}`) ?? 0n;
        if (escrowLedger !== m.escrow) problem(`market ${m.id}: escrow ${m.escrow} but its ledger sums to ${escrowLedger}`);
        const outcomes = m.market_type === 'threeway' ? (['yes', 'no', 'draw'] as const) : (['yes', 'no'] as const);
        const pool = { yes: m.pool_yes, no: m.pool_no, draw: m.pool_draw };
        const shares = { yes: m.shares_yes, no: m.shares_no, draw: m.shares_draw };
        const T = m.pool_yes + m.pool_no + m.pool_draw;
        if (m.market_type !== 'threeway' && (m.pool_draw !== 0n || m.shares_draw !== 0n)) problem(`market ${m.id}: draw pool on a two-outcome market`);
        let tradeCount = 0;
        let tradeVolume = 0n;
        let payoutSum = 0n;
        let unpaid = 0;
        for (const o of outcomes) {
          const t = tradeBy.get(key(m.id, o));
          const p = positionBy.get(key(m.id, o));
          tradeCount += t?.n ?? 0;
          tradeVolume += t?.amount ?? 0n;
          payoutSum += p?.payout ?? 0n;
          unpaid += p?.unpaid ?? 0;
          if ((t?.amount ?? 0n) !== pool[o]) problem(`market ${m.id}: ${o} pool ${pool[o]} but its trades add up to ${t?.amount ?? 0n}`);
          if ((p?.stake ?? 0n) !== pool[o]) problem(`market ${m.id}: ${o} pool ${pool[o]} but its positions' stakes add up to ${p?.stake ?? 0n}`);
          if ((t?.shares ?? 0n) !== shares[o]) problem(`market ${m.id}: ${o} shares ${shares[o]} but its trades add up to ${t?.shares ?? 0n}`);
          if ((p?.shares ?? 0n) !== shares[o]) problem(`market ${m.id}: ${o} shares ${shares[o]} but its positions add up to ${p?.shares ?? 0n}`);
        }
        if (tradeCount !== m.trade_count) problem(`market ${m.id}: trade_count ${m.trade_count} but ${tradeCount} trades`);
        if (tradeVolume !== m.volume) problem(`market ${m.id}: volume ${m.volume} but its trades add up to ${tradeVolume}`);

        const payoutsLedger = (paidBy.get(key(m.id, 'settlement')) ?? 0n) + (paidBy.get(key(m.id, 'refund')) ?? 0n);
        const feeLedger = paidBy.get(key(m.id, 'fee')) ?? 0n;
        if (!isSettled(m.status)) {
          escrowTotal += m.escrow;
          if (m.escrow !== T) problem(`market ${m.id}: escrow ${m.escrow} but its pools add up to ${T}`);
          if (payoutsLedger !== 0n || feeLedger !== 0n) problem(`market ${m.id}: open but has settlement, refund or fee entries`);
          if (payoutSum !== 0n) problem(`market ${m.id}: open but positions carry payouts`);
          continue;
        }
        settledCount++;
        if (m.escrow !== 0n) problem(`market ${m.id}: ${m.status} but escrow is ${m.escrow}`);
        if (unpaid > 0) problem(`market ${m.id}: ${m.status} but ${unpaid} positions have no payout`);
        const fee = m.settled_fee;
        const dust = m.settled_dust;
        const settledPaid = m.settled_paid;
        if (fee === null || dust === null || settledPaid === null) {
          problem(`market ${m.id}: ${m.status} without settlement totals`);
          continue;
        }
        if (settledPaid + fee + dust !== T) problem(`market ${m.id}: paid ${settledPaid} + fee ${fee} + dust ${dust} != T ${T}`);
        if (payoutsLedger !== settledPaid) problem(`market ${m.id}: settled_paid ${settledPaid} but the ledger paid ${payoutsLedger}`);
        if (payoutSum !== settledPaid) problem(`market ${m.id}: settled_paid ${settledPaid} but positions' payouts add up to ${payoutSum}`);
        if (feeLedger !== fee + dust) problem(`market ${m.id}: fee ${fee} + dust ${dust} but the fees account got ${feeLedger}`);
      }

      const fees = accountSum.get('fees') ?? 0n;
      const netExternal = -(accountSum.get('external') ?? 0n);
      if (walletTotal + escrowTotal + fees !== netExternal) {
        problem(`wallets ${walletTotal} + escrow ${escrowTotal} + fees ${fees} != deposits - withdrawals ${netExternal}`);
      }
      await auditRecords(trx, problem);

      return {
        balanced: problems.length === 0,
        problems,
        totals: {
          wallets: walletTotal,
          escrow: escrowTotal,
          fees,
          deposits,
          withdrawals,
          net_external: netExternal,
          movements: counts.rows[0]?.movements ?? 0,
          entries: counts.rows[0]?.entries ?? 0,
          wallets_count: wallets.length,
          markets_count: markets.length,
          settled_markets: settledCount,
        },
      };
    });
}
