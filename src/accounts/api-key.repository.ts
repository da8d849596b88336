import { sql, type Selectable } from 'kysely';
import type { Db } from '../storage/database.ts';
import type { ApiKeysTable } from './accounts.tables.ts';
import type { Principal } from './principal.ts';

export type ApiKeyRow = Omit<Selectable<ApiKeysTable>, 'key_hash'>;

const PUBLIC_COLUMNS = ['id', 'account_id', 'name', 'prefix', 'created_at', 'revoked_at', 'last_used_at'] as const;

export async function insertApiKey(
  db: Db,
  input: { accountId: number; name: string; hash: string; prefix: string },
): Promise<ApiKeyRow> {
  return db
    .insertInto('api_keys')
    .values({ account_id: input.accountId, name: input.name, key_hash: input.hash, prefix: input.prefix })
    .returning(PUBLIC_COLUMNS)
    .executeTakeFirstOrThrow();
}

/** Revokes a key; revoking it again keeps the first time. Undefined when there is no such key. */
export async function revokeApiKey(db: Db, id: number): Promise<ApiKeyRow | undefined> {
  return db
    .updateTable('api_keys')
    .set({ revoked_at: sql<Date>`coalesce(revoked_at, now())` })
    .where('id', '=', id)
    .returning(PUBLIC_COLUMNS)
    .executeTakeFirst();
}

/** Sets a key's name; undefined when there is no such key. */
export async function renameApiKey(db: Db, id: number, name: string): Promise<ApiKeyRow | undefined> {
  return db.updateTable('api_keys').set({ name }).where('id', '=', id).returning(PUBLIC_COLUMNS).executeTakeFirst();
}

/** How many keys of an account are live (not revoked). */
export async function countLiveAccountKeys(db: Db, accountId: number): Promise<number> {
  const row = await db
    .selectFrom('api_keys')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('account_id', '=', accountId)
    .where('revoked_at', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function listAccountKeys(db: Db, accountId: number): Promise<ApiKeyRow[]> {
  return db.selectFrom('api_keys').select(PUBLIC_COLUMNS).where('account_id', '=', accountId).orderBy('id').execute();
}

/** The caller behind a key hash, or null when the key does not exist or is revoked. */
export async function findPrincipalByKeyHash(db: Db, hash: string): Promise<Principal | null> {
  const row = await db
    .selectFrom('api_keys as k')
    .innerJoin('accounts as a', 'a.id', 'k.account_id')
    .select(['k.id', 'k.account_id', 'k.prefix', 'k.revoked_at', 'a.email_verified'])
    .where('k.key_hash', '=', hash)
    .executeTakeFirst();
  if (!row || row.revoked_at !== null) return null;
  return { keyId: row.id, accountId: row.account_id, emailVerified: row.email_verified, keyPrefix: row.prefix };
}

/** One statement for a whole batch; an older time never overwrites a newer one. */
export async function writeLastUsed(db: Db, batch: ReadonlyMap<number, Date>): Promise<void> {
  if (batch.size === 0) return;
  const rows = [...batch].map(([id, at]) => sql`(${id}::integer, ${at.toISOString()}::timestamptz)`);
  await sql`
    update api_keys set last_used_at = v.at
    from (values ${sql.join(rows)}) as v(id, at)
    where api_keys.id = v.id and (api_keys.last_used_at is null or api_keys.last_used_at < v.at)`.execute(db);
}
