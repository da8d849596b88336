import { sql, type Kysely } from 'kysely';
import type { Database } from './schema.ts';

/**
 * Every PostgreSQL advisory lock the service takes, in one list, so that no two uses share a key
 * by accident. Single keys are bigints; a keyed class is the first half of the two-key form (its
 * own key space: PostgreSQL never confuses the one-key and two-key forms).
 */
export const ADVISORY_LOCK = {
  /** Hot-wallet sends, one at a time across instances (the nonce). */
  withdrawalSender: 0x5356_4357_4452n,
  /** The one featured market: picks racing each other would each clear only what they saw. */
  featuredMarket: 0x5356_4346_4d4bn,
  /** The one featured event, likewise. */
  featuredEvent: 0x5356_4346_4556n,
} as const;

export const ADVISORY_LOCK_CLASS = {
  /** One wallet's set of market API keys (the cap of live keys), keyed by the wallet's hash. */
  walletKeySet: 0x6b657973, // 'keys'
  /** One account's set of svk_ keys (the dashboard's cap of live keys), keyed by the account id's hash. */
  accountKeySet: 0x736b6579, // 'skey'
} as const;

/** Holds `key` until the transaction `trx` ends. */
export async function lockForTransaction(trx: Kysely<Database>, key: bigint): Promise<void> {
  await sql`select pg_advisory_xact_lock(${key})`.execute(trx);
}

/** Holds the lock of `name` within `keyClass` until the transaction `trx` ends. */
export async function lockNameForTransaction(trx: Kysely<Database>, keyClass: number, name: string): Promise<void> {
  await sql`select pg_advisory_xact_lock(${keyClass}::int4, hashtext(${name}))`.execute(trx);
}
