import { sql, type Transaction } from 'kysely';
import type { Database } from '../../storage/schema.ts';
import { intArrayLiteral, textArrayLiteral } from '../../storage/array-literal.ts';
import { escrowAccount, FEES_ACCOUNT } from '../ledger/ledger.accounts.ts';
import { LedgerError } from '../ledger/check-movement.ts';
import { postMovement } from '../ledger/post-movement.ts';
import { postPayouts } from '../ledger/post-payouts.ts';
import type { MarketRow } from '../market.tables.ts';
import { poolsOf } from '../markets/market-row-pools.ts';
import { type MarketSettlement, type Outcome, refundMarket, settleMarket } from '../pricing/index.ts';

/** What settling a market did, in units. */
export interface SettlementSummary {
  readonly market_id: number;
  readonly status: 'resolved' | 'cancelled';
  /** `resolved` (winners paid), `no_winners` (resolved, nobody held the outcome: all refunded), `cancelled`. */
  readonly mode: MarketSettlement<unknown>['mode'];
  readonly outcome: Outcome | null;
  /** T: every stake the market held. */
  readonly total: bigint;
  readonly fee: bigint;
  readonly dust: bigint;
  /** Sum of payouts and refunds. */
  readonly paid: bigint;
  /** Positions paid something (winners or refunds). */
  readonly positions_paid: number;
  readonly positions: number;
}

interface PositionKey {
  readonly wallet: string;
  readonly outcome: Outcome;
}

/**
 * Pays out a locked, unsettled market (resolve to `outcome`, or cancel when null) inside the
 * caller's transaction: one ledger movement per paid position (escrow -> wallet, `settlement` or
 * `refund`), fee and dust to `fees` (`fee`), every position's payout set (0 for a losing one),
 * the totals and the new status on the market row (no longer featured), and the event resolved once none of its
 * markets is open. A handful of statements however many positions (postPayouts, setPayouts).
 */
export async function settleLockedMarket(
  trx: Transaction<Database>,
  market: MarketRow,
  outcome: Outcome | null,
  now: Date,
): Promise<SettlementSummary> {
  const rows = await trx
    .selectFrom('positions')
    .select(['wallet', 'outcome', 'shares', 'cost_basis'])
    .where('market_id', '=', market.id)
    .orderBy('wallet')
    .orderBy('outcome')
    .execute();
  const positions = rows.map((p) => ({
    id: { wallet: p.wallet, outcome: p.outcome } as PositionKey,
    outcome: p.outcome,
    stake: p.cost_basis,
    shares: p.shares,
  }));
  const pools = poolsOf(market);
  const s = outcome === null ? refundMarket(pools, positions) : settleMarket(pools, positions, outcome);
  const escrow = escrowAccount(market.id);

  const paid = s.payouts.filter((p) => p.amount > 0n);
  await postPayouts(
    trx,
    market.id,
    paid.map((p) => ({
      wallet: p.id.wallet,
      amount: p.amount,
      type: p.kind === 'settlement' ? 'settlement' : 'refund',
      note: noteFor(p.kind, p.outcome, market.id, outcome === null),
    })),
    now,
  );
  await setPayouts(trx, market.id, s.payouts, now);

  const protocol = s.fee + s.dust;
  if (protocol > 0n) {
    await postMovement(trx, {
      type: 'fee',
      entries: [
        { account: escrow, amount: -protocol },
        { account: FEES_ACCOUNT, amount: protocol },
      ],
      market_id: market.id,
      note: `fee ${s.fee} + dust ${s.dust} units of market ${market.id}`,
      at: now,
    });
  }

  const status = outcome === null ? 'cancelled' : 'resolved';
  const after = await trx
    .updateTable('markets')
    .set({
      status,
      resolved_outcome: outcome,
      ...(outcome === null ? { cancelled_at: now } : { resolved_at: now }),
      settled_fee: s.fee,
      settled_dust: s.dust,
      settled_paid: s.paidOut,
      // Featuring shows a market open to trade: a settled one is featured no more (docs/market-money.md).
      featured_at: null,
      updated_at: now,
    })
    .where('id', '=', market.id)
    .returning('escrow')
    .executeTakeFirstOrThrow();
  // The escrow held exactly T; anything left means the books were already wrong.
  if (after.escrow !== 0n) throw new LedgerError(`escrow of market ${market.id} is ${after.escrow} after settlement`);

  if (market.event_id !== null) await resolveEventIfSettled(trx, market.event_id);

  return {
    market_id: market.id,
    status,
    mode: s.mode,
    outcome,
    total: s.total,
    fee: s.fee,
    dust: s.dust,
    paid: s.paidOut,
    positions_paid: paid.length,
    positions: positions.length,
  };
}

/** Sets every position's payout in one statement; each must be there. */
async function setPayouts(
  trx: Transaction<Database>,
  marketId: number,
  payouts: readonly { readonly id: PositionKey; readonly amount: bigint }[],
  now: Date,
): Promise<void> {
  if (payouts.length === 0) return;
  const r = await sql`
    update positions p set payout = v.payout, updated_at = ${now}::timestamptz
    from unnest(${textArrayLiteral(payouts.map((p) => p.id.wallet))}::text[], ${textArrayLiteral(payouts.map((p) => p.id.outcome))}::text[],
      ${intArrayLiteral(payouts.map((p) => p.amount))}::bigint[]) as v(wallet, outcome, payout)
    where p.market_id = ${marketId} and p.wallet = v.wallet and p.outcome = v.outcome`.execute(trx);
  if (r.numAffectedRows !== BigInt(payouts.length)) {
    throw new LedgerError(`set the payout of ${r.numAffectedRows} of market ${marketId}'s ${payouts.length} positions`);
  }
}

function noteFor(kind: 'settlement' | 'refund' | 'lost', outcome: Outcome, marketId: number, cancelled: boolean): string {
  if (kind === 'settlement') return `won ${outcome} on market ${marketId}`;
  return cancelled
    ? `refund of ${outcome} stake: market ${marketId} cancelled`
    : `refund of ${outcome} stake: market ${marketId} resolved with no winning shares`;
}

/**
 * Marks an event resolved (and no longer featured) once every one of its markets is resolved or cancelled. The event row
 * is locked so two markets of one event settled at once cannot both miss the last one.
 */
async function resolveEventIfSettled(trx: Transaction<Database>, eventId: number): Promise<void> {
  await trx.selectFrom('events').select('id').where('id', '=', eventId).forUpdate().executeTakeFirst();
  const open = await trx
    .selectFrom('markets')
    .select(sql<number>`count(*)::int`.as('n'))
    .where('event_id', '=', eventId)
    .where('status', 'in', ['pending', 'active'])
    .executeTakeFirstOrThrow();
  // A resolved event is featured no more, like a settled market (docs/market-money.md).
  if (open.n === 0) await trx.updateTable('events').set({ status: 'resolved', featured_at: null }).where('id', '=', eventId).execute();
}
