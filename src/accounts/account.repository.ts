import { sql, type Selectable } from 'kysely';
import { conflict, notFound } from '../shared/errors.ts';
import type { Db } from '../storage/database.ts';
import type { AccountsTable, CreditLedgerTable } from './accounts.tables.ts';

export type Account = Selectable<AccountsTable>;
export type CreditLedgerRow = Selectable<CreditLedgerTable>;

const UNIQUE_VIOLATION = '23505';

export async function insertAccount(db: Db, input: { email: string; emailVerified: boolean }): Promise<Account> {
  try {
    return await db
      .insertInto('accounts')
      .values({ email: input.email, email_verified: input.emailVerified })
      .returningAll()
      .executeTakeFirstOrThrow();
  } catch (e) {
    if ((e as { code?: string }).code === UNIQUE_VIOLATION) throw conflict('an account with this email already exists');
    throw e;
  }
}

export async function findAccount(db: Db, id: number): Promise<Account | undefined> {
  return db.selectFrom('accounts').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function getAccountOrThrow(db: Db, id: number): Promise<Account> {
  const a = await findAccount(db, id);
  if (!a) throw notFound('account not found');
  return a;
}

export async function markEmailVerified(db: Db, id: number): Promise<Account> {
  const a = await db
    .updateTable('accounts')
    .set({ email_verified: true, updated_at: sql<Date>`now()` })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
  if (!a) throw notFound('account not found');
  return a;
}

/**
 * Adds (or, negative, removes) micro-credits and writes the ledger row in the same
 * transaction. Positive amounts are grants, negative ones adjustments.
 */
export async function grantCredits(db: Db, id: number, amount: bigint, note: string | null): Promise<Account> {
  if (amount === 0n) throw new RangeError('a grant of zero changes nothing');
  return db.transaction().execute(async (trx) => {
    const a = await trx
      .updateTable('accounts')
      .set({ credits: sql<bigint>`credits + ${amount}`, updated_at: sql<Date>`now()` })
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirst();
    if (!a) throw notFound('account not found');
    await trx
      .insertInto('credit_ledger')
      .values({
        account_id: id,
        amount,
        kind: amount > 0n ? 'grant' : 'adjustment',
        balance_after: a.credits,
        usage_id: null,
        note,
      })
      .execute();
    return a;
  });
}

/** An account's ledger rows newest first, those older than row `before` when given. */
export async function listLedger(db: Db, accountId: number, limit: number, before?: bigint): Promise<CreditLedgerRow[]> {
  let q = db.selectFrom('credit_ledger').selectAll().where('account_id', '=', accountId);
  if (before !== undefined) q = q.where('id', '<', before);
  return q.orderBy('id', 'desc').limit(limit).execute();
}
