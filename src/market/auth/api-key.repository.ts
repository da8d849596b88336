import { randomBytes } from 'node:crypto';
import { ADVISORY_LOCK_CLASS, lockNameForTransaction } from '../../storage/advisory-locks.ts';
import type { SealingKeys } from '../../shared/sealing-keys.ts';
import type { Db } from '../../storage/database.ts';
import { inTransaction } from '../market-transaction.ts';
import { openSecret, sealSecret } from './secret-box.ts';

/** An API key as authentication needs it: the secret opened, the revocation visible. */
export interface ApiKeyRecord {
  readonly id: bigint;
  readonly key: string;
  readonly wallet: string;
  readonly secret: string;
  readonly revokedAt: Date | null;
}

export interface IssuedApiKey {
  readonly api_key: string;
  /** Shown once, to the caller of issueApiKey; only its sealed form is stored. */
  readonly api_secret: string;
  readonly wallet: string;
  readonly created_at: string;
}

const WALLET = /^0x[0-9a-fA-F]{40}$/;

/** Issues a key to `wallet` (any case, stored lower case). The secret is returned only here. */
export async function issueApiKey(db: Db, secretsKey: Buffer, wallet: string, now: Date = new Date()): Promise<IssuedApiKey> {
  if (!WALLET.test(wallet)) throw new Error(`issueApiKey: not a wallet address: ${wallet}`);
  const key = `mk_${randomBytes(16).toString('hex')}`;
  const secret = `mks_${randomBytes(32).toString('base64url')}`;
  const owner = wallet.toLowerCase();
  await db
    .insertInto('market_api_keys')
    .values({ key, wallet: owner, secret_ciphertext: sealSecret(secretsKey, secret, key), created_at: now })
    .execute();
  return { api_key: key, api_secret: secret, wallet: owner, created_at: now.toISOString() };
}

/**
 * Revokes `key` if it belongs to `wallet` and is live; false otherwise (unknown key, another
 * wallet's key, already revoked), so a caller cannot learn whether another wallet's key exists.
 */
export async function revokeApiKey(db: Db, key: string, wallet: string, now: Date = new Date()): Promise<boolean> {
  const res = await db
    .updateTable('market_api_keys')
    .set({ revoked_at: now })
    .where('key', '=', key)
    .where('wallet', '=', wallet.toLowerCase())
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return res.numUpdatedRows > 0n;
}

/** The key with its secret opened (by the current or a previous key), or null when no such key was ever issued. */
export async function findApiKey(db: Db, keys: SealingKeys, key: string): Promise<ApiKeyRecord | null> {
  const row = await db
    .selectFrom('market_api_keys')
    .select(['id', 'key', 'wallet', 'secret_ciphertext', 'revoked_at'])
    .where('key', '=', key)
    .executeTakeFirst();
  if (!row) return null;
  return {
    id: BigInt(row.id),
    key: row.key,
    wallet: row.wallet,
    secret: openSecret(keys, row.secret_ciphertext, row.key),
    revokedAt: row.revoked_at,
  };
}

/**
 * The live keys of a wallet, newest first, without secrets (`GET /api/keys`). Revoked keys are
 * left out: they sign nothing and count toward no cap, and a wallet that mints and revokes keys
 * for years would otherwise page through them all.
 */
export async function listLiveApiKeys(db: Db, wallet: string): Promise<{ api_key: string; created_at: Date; last_used_at: Date | null }[]> {
  const rows = await db
    .selectFrom('market_api_keys')
    .select(['key', 'created_at', 'last_used_at'])
    .where('wallet', '=', wallet.toLowerCase())
    .where('revoked_at', 'is', null)
    .orderBy('id', 'desc')
    .execute();
  return rows.map((r) => ({ api_key: r.key, created_at: r.created_at, last_used_at: r.last_used_at }));
}

export async function touchApiKey(db: Db, id: bigint, now: Date): Promise<void> {
  await db.updateTable('market_api_keys').set({ last_used_at: now }).where('id', '=', id).execute();
}

/**
 * Issues a key unless `wallet` already holds `max` live keys (null then). The count and the insert
 * are one transaction under a lock of the wallet's key set, so requests racing at the cap cannot
 * all pass it (docs/api-decisions.md, "Market API: ninth audit").
 */
export async function issueApiKeyUnderCap(db: Db, secretsKey: Buffer, wallet: string, max: number, now: Date): Promise<IssuedApiKey | null> {
  return inTransaction(db, async (trx) => {
    await lockNameForTransaction(trx, ADVISORY_LOCK_CLASS.walletKeySet, wallet.toLowerCase());
    if ((await countLiveApiKeys(trx, wallet)) >= max) return null;
    return issueApiKey(trx, secretsKey, wallet, now);
  });
}

/** How many keys of a wallet are live (not revoked). */
export async function countLiveApiKeys(db: Db, wallet: string): Promise<number> {
  const row = await db
    .selectFrom('market_api_keys')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('wallet', '=', wallet.toLowerCase())
    .where('revoked_at', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
