import { badRequest, notFound } from '../shared/errors.ts';
import type { Db } from '../storage/database.ts';
import { getAccountOrThrow, grantCredits, insertAccount, markEmailVerified, type Account } from './account.repository.ts';
import { ADVISORY_LOCK_CLASS, lockNameForTransaction } from '../storage/advisory-locks.ts';
import { countLiveAccountKeys, insertApiKey, renameApiKey, revokeApiKey, type ApiKeyRow } from './api-key.repository.ts';
import type { ApiKeyService } from './api-key.service.ts';
import { generateApiKey } from './api-key.token.ts';
import { CreditsAmountError, parseCredits } from './credits.amount.ts';
import { isEmailAddress } from './email-address.ts';
import { checkKeyName } from './key-name.ts';

/** Refuses an address no account may have (isEmailAddress), in the words both the admin API and sign-up answer. */
export function checkEmail(email: string): void {
  if (!isEmailAddress(email.trim())) throw badRequest('invalid email: expected an address like name@example.com');
}

/** A key's name as stored, or 400 naming `name` (checkKeyName). */
function keyName(name: string, allowBlank: boolean): string {
  const checked = checkKeyName(name, { allowBlank });
  if ('problem' in checked) throw badRequest(`name: ${checked.problem}`);
  return checked.name;
}

/** Account operations shared by the admin API (and, later, the dashboard). */
export interface AccountsService {
  createAccount(input: { email: string; emailVerified?: boolean }): Promise<Account>;
  /**
   * Marks the email verified and drops this instance's cached key lookups of the account. Given
   * `trx`, inside the caller's transaction: the change notification sent at its commit
   * (migration 2026_11_26_97_api_key_notify) drops them again on every instance.
   */
  verifyEmail(accountId: number, trx?: Db): Promise<Account>;
  /** Credits as a decimal number of credits; negative takes credits away. */
  grantCredits(accountId: number, credits: number | string, note: string | null): Promise<Account>;
  /** The whole key is in the answer and nowhere else, ever. The name may be blank (the admin API's unnamed key). */
  issueKey(accountId: number, name: string): Promise<ApiKeyRow & { key: string }>;
  /**
   * issueKey unless the account already holds `max` live keys (null then): the dashboard's cap.
   * The count and the insert are one transaction under a lock of the account's key set, so
   * requests racing at the cap cannot all pass it. The name must not be blank.
   */
  issueKeyUnderCap(accountId: number, name: string, max: number): Promise<(ApiKeyRow & { key: string }) | null>;
  revokeKey(keyId: number): Promise<ApiKeyRow>;
  /** A new name for a key (revoked or not); the key itself does not change. */
  renameKey(keyId: number, name: string, opts: { allowBlank: boolean }): Promise<ApiKeyRow>;
}

export function createAccountsService(db: Db, keys: Pick<ApiKeyService, 'forgetKey' | 'forgetAccount'>): AccountsService {
  return {
    async createAccount(input) {
      checkEmail(input.email);
      const email = input.email.trim();
      return insertAccount(db, { email, emailVerified: input.emailVerified ?? false });
    },
    async verifyEmail(accountId, trx) {
      const a = await markEmailVerified(trx ?? db, accountId);
      keys.forgetAccount(accountId);
      return a;
    },
    async grantCredits(accountId, credits, note) {
      let micro: bigint;
      try {
        micro = parseCredits(credits);
      } catch (e) {
        if (e instanceof CreditsAmountError) throw badRequest(`invalid credits: ${e.message}`);
        throw e;
      }
      if (micro === 0n) throw badRequest('invalid credits: must not be zero');
      return grantCredits(db, accountId, micro, note);
    },
    async issueKey(accountId, name) {
      const stored = keyName(name, true);
      await getAccountOrThrow(db, accountId);
      const k = generateApiKey();
      const row = await insertApiKey(db, { accountId, name: stored, hash: k.hash, prefix: k.prefix });
      return { ...row, key: k.key };
    },
    async issueKeyUnderCap(accountId, name, max) {
      const stored = keyName(name, false);
      await getAccountOrThrow(db, accountId);
      return db.transaction().execute(async (trx) => {
        await lockNameForTransaction(trx, ADVISORY_LOCK_CLASS.accountKeySet, String(accountId));
        if ((await countLiveAccountKeys(trx, accountId)) >= max) return null;
        const k = generateApiKey();
        const row = await insertApiKey(trx, { accountId, name: stored, hash: k.hash, prefix: k.prefix });
        return { ...row, key: k.key };
      });
    },
    async revokeKey(keyId) {
      const row = await revokeApiKey(db, keyId);
      if (!row) throw notFound('key not found');
      keys.forgetKey(keyId);
      return row;
    },
    async renameKey(keyId, name, opts) {
      const row = await renameApiKey(db, keyId, keyName(name, opts.allowBlank));
      if (!row) throw notFound('key not found');
      return row;
    },
  };
}
