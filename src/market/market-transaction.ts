import type { Kysely, Transaction } from 'kysely';
import { HttpError } from '../shared/errors.ts';
import type { Database } from '../storage/schema.ts';

/** Deadlock and serialization failures: the whole transaction rolled back and may run again. */
const RETRYABLE = new Set(['40001', '40P01']);
const ATTEMPTS = 4;

/**
 * Runs `fn` in one transaction, again (from scratch) if PostgreSQL aborted it as a deadlock or a
 * serialization failure; after the last attempt answers 503 rather than a 500. The market code
 * takes its locks in one order (market, then wallets by address), so retries are a safety net.
 */
export async function inTransaction<T>(db: Kysely<Database>, fn: (trx: Transaction<Database>) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await db.transaction().execute(fn);
    } catch (e) {
      const code = (e as { code?: unknown }).code;
      if (typeof code !== 'string' || !RETRYABLE.has(code)) throw e;
      if (attempt >= ATTEMPTS) throw new HttpError(503, 'Busy, try again', { 'retry-after': '1' });
    }
  }
}
