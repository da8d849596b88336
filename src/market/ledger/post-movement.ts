import { randomUUID } from 'node:crypto';
import { sql, type RawBuilder, type Transaction } from 'kysely';
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
 *
 * One statement, one round trip to the database (see movementSql).
 */
export async function postMovement(trx: Transaction<Database>, input: PostMovementInput): Promise<PostedMovement> {
  const m = movementSql(input);
  const result = await sql<{ id: bigint | number; updated: number[] }>`
    with ${sql.join(m.ctes)}
    select id, ${m.updated} as updated from ${sql.id(m.entriesCte)} order by id`.execute(trx);
  m.check(result.rows[0]?.updated);
  return { movement_id: m.movementId, entry_ids: result.rows.map((r) => Number(r.id)) };
}

export interface MovementSqlOptions {
  /** Prefix of the CTE names, to keep them apart from a caller's own CTEs. */
  readonly prefix?: string;
  /** SQL giving `trade_id` when the trade row is inserted by the same statement, e.g. `(select id from t)`. */
  readonly tradeId?: RawBuilder<unknown>;
  /**
   * More assignments for the escrow update of one market, and the columns that update returns.
   * PostgreSQL applies only one change per row in a statement, so a caller that also changes the
   * market row (a trade adding to its pools) does it here, in the same UPDATE.
   */
  readonly escrowRow?: { readonly marketId: number; readonly set: readonly RawBuilder<unknown>[]; readonly returning: readonly string[] };
}

/** A movement as SQL pieces: run alone by postMovement, or inside a caller's statement. */
export interface MovementSql {
  readonly movementId: string;
  /** The data-modifying CTEs: the entries' insert, then one update per balance row. */
  readonly ctes: readonly RawBuilder<unknown>[];
  /** Name of the CTE returning the new entries' ids. */
  readonly entriesCte: string;
  /** An int[] expression: how many rows each balance update changed (each must be 1). */
  readonly updated: RawBuilder<number[]>;
  /** Name of the escrowRow market's update CTE (returning escrowRow.returning), when asked for. */
  readonly escrowCte: string | null;
  /** Throws LedgerError unless every balance row was there (`updated` as read back). */
  check(updated: readonly number[] | undefined): void;
}

/**
 * Builds a checked movement as data-modifying CTEs: one statement inserts the entries and
 * updates every balance column, so the movement costs one round trip, or none of its own inside
 * a caller's statement. Entries on one account are added up into one update first, since
 * PostgreSQL applies only one change per row in a statement.
 */
export function movementSql(input: PostMovementInput, opts: MovementSqlOptions = {}): MovementSql {
  checkMovement(input);
  const prefix = opts.prefix ?? '';
  const movementId = randomUUID();
  const at = input.at ?? new Date();
  const tradeId = opts.tradeId ?? sql`${input.trade_id ?? null}`;
  const rows = input.entries.map(
    (e) =>
      sql`(${movementId}, ${e.account}, ${e.amount}, ${input.type}, ${input.wallet ?? null}, ${input.market_id ?? null}, ${tradeId}, ${input.tx_hash ?? null}, ${input.chain ?? null}, ${input.note ?? null}, ${at})`,
  );
  const changes = balanceChanges(input, at, opts.escrowRow);
  if (opts.escrowRow && !changes.some((c) => c.marketId === opts.escrowRow!.marketId)) {
    throw new LedgerError(`the movement has no escrow entry of market ${opts.escrowRow.marketId}`);
  }
  const entriesCte = `${prefix}entries`;
  const cteName = (i: number) => `${prefix}u${i}`;
  const ctes = [
    sql`${sql.id(entriesCte)} as (
      insert into ledger_entries (movement_id, account, amount, type, wallet, market_id, trade_id, tx_hash, chain, note, created_at)
      values ${sql.join(rows)} returning id)`,
    ...changes.map((c, i) => sql`${sql.id(cteName(i))} as (${c.update} returning ${c.returning})`),
  ];
  const counts = changes.map((_, i) => sql`(select count(*) from ${sql.id(cteName(i))})::int`);
  const escrowIndex = opts.escrowRow ? changes.findIndex((c) => c.marketId === opts.escrowRow!.marketId) : -1;
  return {
    movementId,
    ctes,
    entriesCte,
    updated: sql<number[]>`array[${counts.length ? sql.join(counts) : sql`0`}]::int[]`,
    escrowCte: escrowIndex === -1 ? null : cteName(escrowIndex),
    check(updated) {
      changes.forEach((c, i) => {
        if (updated?.[i] !== 1) throw new LedgerError(`no ${c.label}`);
      });
    },
  };
}

/** What one movement does to one balance row (a wallet or a market's escrow). */
interface BalanceChange {
  readonly label: string;
  readonly marketId?: number;
  readonly update: RawBuilder<unknown>;
  readonly returning: RawBuilder<unknown>;
}

/** The balance updates of a movement, one per wallet or market account, in entry order. */
function balanceChanges(input: PostMovementInput, at: Date, escrowRow: MovementSqlOptions['escrowRow']): BalanceChange[] {
  const wallets = new Map<string, { amount: bigint; deposited: bigint; withdrawn: bigint }>();
  const escrows = new Map<number, bigint>();
  for (const e of input.entries) {
    const account = parseAccount(e.account)!;
    if (account.kind === 'wallet') {
      const w = wallets.get(account.address) ?? { amount: 0n, deposited: 0n, withdrawn: 0n };
      w.amount += e.amount;
      if (input.type === 'deposit' && e.amount > 0n) w.deposited += e.amount;
      if (input.type === 'withdraw' && e.amount < 0n) w.withdrawn -= e.amount;
      wallets.set(account.address, w);
    } else if (account.kind === 'escrow') {
      escrows.set(account.marketId, (escrows.get(account.marketId) ?? 0n) + e.amount);
    }
  }
  return [
    ...[...wallets].map(([address, w]) => ({
      label: `wallet ${address}`,
      update: sql`update wallets set balance = balance + ${w.amount}, total_deposited = total_deposited + ${w.deposited},
        total_withdrawn = total_withdrawn + ${w.withdrawn}, updated_at = ${at} where address = ${address}`,
      returning: sql`1`,
    })),
    ...[...escrows].map(([marketId, amount]) => {
      const extra = escrowRow?.marketId === marketId ? escrowRow : undefined;
      return {
        label: `market ${marketId}`,
        marketId,
        update: sql`update markets set escrow = escrow + ${amount}${extra ? sql`, ${sql.join(extra.set)}` : sql``} where id = ${marketId}`,
        returning: extra ? sql.join(extra.returning.map((c) => sql.ref(c))) : sql`1`,
      };
    }),
  ];
}
