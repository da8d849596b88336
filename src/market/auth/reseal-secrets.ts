import type { SealingKeys } from '../../shared/sealing-keys.ts';
import type { Db } from '../../storage/database.ts';
import { isSealedWith, openSecret, sealSecret } from './secret-box.ts';

export interface ResealReport {
  /** Stored market API secrets looked at (live and revoked: a revoked key's row is still read). */
  readonly checked: number;
  /** Sealed again with the current key now. */
  readonly resealed: number;
  /** Already sealed with the current key (a second run re-seals nothing). */
  readonly current: number;
  /** Public ids of the keys whose secret opens with none of the keys held: they stay as they are. */
  readonly unopened: readonly string[];
}

const PAGE = 500;

/**
 * Seals every stored market API secret with the current key, so the previous keys can be dropped
 * (docs/operations.md, "Rotating the sealing key"). Safe while serving: a secret never changes
 * once issued, and each row is replaced only if it still holds the text read (a row re-sealed
 * meanwhile by another run is left as it is); authentication opens either text. Idempotent: rows
 * already sealed with the current key are skipped.
 */
export async function resealApiSecrets(db: Db, keys: SealingKeys): Promise<ResealReport> {
  let checked = 0;
  let resealed = 0;
  let current = 0;
  const unopened: string[] = [];
  for (let after = 0n; ; ) {
    const rows = await db
      .selectFrom('market_api_keys')
      .select(['id', 'key', 'secret_ciphertext'])
      .where('id', '>', after)
      .orderBy('id')
      .limit(PAGE)
      .execute();
    if (rows.length === 0) break;
    after = BigInt(rows[rows.length - 1]!.id);
    for (const row of rows) {
      checked++;
      if (isSealedWith(keys.current, row.secret_ciphertext)) {
        current++;
        continue;
      }
      let secret: string;
      try {
        secret = openSecret(keys, row.secret_ciphertext, row.key);
      } catch {
        unopened.push(row.key);
        continue;
      }
      const res = await db
        .updateTable('market_api_keys')
        .set({ secret_ciphertext: sealSecret(keys.current, secret, row.key) })
        .where('id', '=', row.id)
        .where('secret_ciphertext', '=', row.secret_ciphertext)
        .executeTakeFirst();
      if (res.numUpdatedRows > 0n) resealed++;
      else current++;
    }
  }
  return { checked, resealed, current, unopened };
}
