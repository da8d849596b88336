import type { Kysely } from 'kysely';
import type { Database } from '../../storage/schema.ts';
import { authError } from './auth.errors.ts';
import { recordIdempotentAnswer, type IdempotentRequest, type StoredAnswer } from './idempotency.ts';

/**
 * Idempotency-Key helpers for calls that also act outside the database (the chain): a repeat is
 * answered before the chain is asked again, and the stored answer follows what happened after
 * the commit. withIdempotency (one transaction) stays the guard against moving money twice.
 */

/**
 * The answer already stored for this key, or null when there is none (yet). Throws 409 when the
 * key was used with another body. A key claimed but not answered yet reads as none: the caller's
 * own withIdempotency then waits for it and replays it.
 */
export async function findStoredAnswer(db: Kysely<Database>, req: IdempotentRequest): Promise<StoredAnswer | null> {
  const row = await db
    .selectFrom('idempotency_keys')
    .select(['request_sha256', 'response_status', 'response_json'])
    .where('principal', '=', req.principal)
    .where('route', '=', req.route)
    .where('key', '=', req.key)
    .executeTakeFirst();
  if (!row) return null;
  if (row.request_sha256 !== req.requestSha256) throw authError('idempotencyBodyMismatch');
  if (row.response_status === null || row.response_json === null) return null;
  return { status: row.response_status, body: JSON.parse(row.response_json) as unknown };
}

/** Replaces the stored answer with the one actually sent after the commit's outside effects. */
export function replaceStoredAnswer(db: Kysely<Database>, req: IdempotentRequest, answer: StoredAnswer, now: Date): Promise<void> {
  return recordIdempotentAnswer(db, req, answer, now);
}

/**
 * Forgets a key whose call ended in an error after its commit (the chain refused a withdrawal
 * that was then unlocked): like an error inside withIdempotency, it is not remembered, so the
 * client may retry with the same key.
 */
export async function forgetIdempotencyKey(db: Kysely<Database>, req: IdempotentRequest): Promise<void> {
  await db
    .deleteFrom('idempotency_keys')
    .where('principal', '=', req.principal)
    .where('route', '=', req.route)
    .where('key', '=', req.key)
    .execute();
}
