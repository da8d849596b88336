import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../../storage/schema.ts';
import { authError } from './auth.errors.ts';

/**
 * Idempotency-Key for money-moving calls. The key is claimed inside the same transaction as the
 * money move: the claim inserts the key's row, the move happens, the answer is written to the
 * row, and all of it commits together or not at all. A second request with the same key:
 * - arrives after the commit: finds the row and gets the stored answer (or 409 for another body);
 * - races the first: its insert waits on the first transaction's uncommitted row (PostgreSQL
 *   unique index), then finds the committed row and replays it; under REPEATABLE READ or
 *   SERIALIZABLE it fails with 40001 instead, and the caller's retry finds the row;
 * - follows a first attempt that failed and rolled back: runs as new, since nothing was moved.
 * So money is never moved twice for one key.
 */
export interface IdempotentRequest {
  /** Whose key space: the authenticated wallet (lower case). */
  readonly principal: string;
  /** A stable name of the operation, e.g. `pool.trade`; not the URL, which may change. */
  readonly route: string;
  readonly key: string;
  /** Lower-case hex SHA-256 of the exact request body bytes. */
  readonly requestSha256: string;
}

export interface StoredAnswer {
  readonly status: number;
  /** JSON-serialisable (no bigint); stored as JSON text and given back parsed. */
  readonly body: unknown;
}

export type IdempotencyClaim = { readonly kind: 'new' } | { readonly kind: 'replay'; readonly answer: StoredAnswer };

/** The header's accepted form: 1 to 255 visible ASCII characters. */
export function isValidIdempotencyKey(key: string): boolean {
  return /^[\x21-\x7e]{1,255}$/.test(key);
}

/**
 * Claims `req.key` for this transaction, or finds the answer already stored for it. Throws 409
 * when the key was used with another body.
 */
export async function claimIdempotencyKey(trx: Transaction<Database>, req: IdempotentRequest, now: Date): Promise<IdempotencyClaim> {
  // Two rounds: a row seen as conflicting can be pruned before it is read back.
  for (let attempt = 0; attempt < 2; attempt++) {
    const inserted = await trx
      .insertInto('idempotency_keys')
      .values({ principal: req.principal, route: req.route, key: req.key, request_sha256: req.requestSha256, created_at: now })
      .onConflict((oc) => oc.columns(['principal', 'route', 'key']).doNothing())
      .returning('key')
      .executeTakeFirst();
    if (inserted) return { kind: 'new' };
    const row = await trx
      .selectFrom('idempotency_keys')
      .select(['request_sha256', 'response_status', 'response_json'])
      .where('principal', '=', req.principal)
      .where('route', '=', req.route)
      .where('key', '=', req.key)
      .executeTakeFirst();
    if (!row) continue;
    if (row.request_sha256 !== req.requestSha256) throw authError('idempotencyBodyMismatch');
    if (row.response_status === null || row.response_json === null) throw authError('idempotencyInProgress');
    return { kind: 'replay', answer: { status: row.response_status, body: JSON.parse(row.response_json) as unknown } };
  }
  throw authError('idempotencyInProgress');
}

/**
 * Stores the answer of a claimed key: in the claiming transaction, or on `db` after the commit
 * when the call's outside effects changed what was sent (idempotency-outside.ts).
 */
export async function recordIdempotentAnswer(db: Kysely<Database>, req: IdempotentRequest, answer: StoredAnswer, now: Date): Promise<void> {
  await db
    .updateTable('idempotency_keys')
    .set({ response_status: answer.status, response_json: JSON.stringify(answer.body), completed_at: now })
    .where('principal', '=', req.principal)
    .where('route', '=', req.route)
    .where('key', '=', req.key)
    .execute();
}

/**
 * Runs `work` (the money move, on `trx`) once per key: claim, work, record, all in `trx`. With no
 * key (`req` null) it simply runs `work`. Errors thrown by `work` roll the transaction back with
 * the claim, so a failed attempt is not remembered and may be retried with the same key.
 */
export async function withIdempotency(
  trx: Transaction<Database>,
  req: IdempotentRequest | null,
  now: Date,
  work: () => Promise<StoredAnswer>,
): Promise<StoredAnswer & { readonly replayed: boolean }> {
  if (!req) return { ...(await work()), replayed: false };
  const claim = await claimIdempotencyKey(trx, req, now);
  if (claim.kind === 'replay') return { ...claim.answer, replayed: true };
  const answer = await work();
  // Stored as JSON text and given back parsed, so the first answer has the same shape as a replay.
  const stored: StoredAnswer = { status: answer.status, body: JSON.parse(JSON.stringify(answer.body)) as unknown };
  await recordIdempotentAnswer(trx, req, stored, now);
  return { ...stored, replayed: false };
}

/** Deletes keys created before `before` (e.g. 24 hours ago); returns how many. */
export async function pruneIdempotencyKeys(db: Kysely<Database>, before: Date): Promise<number> {
  const res = await db.deleteFrom('idempotency_keys').where('created_at', '<', before).executeTakeFirst();
  return Number(res.numDeletedRows);
}
