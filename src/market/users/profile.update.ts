import { sql } from 'kysely';
import { HttpError, badRequest } from '../../shared/errors.ts';
import type { Db } from '../../storage/database.ts';
import { checkAvatarUrl, checkUsernameRules } from './username-rules.ts';

export const WALLET_RE = /^0x[0-9a-fA-F]{40}$/;

export interface ProfileChange {
  /** A new username; null clears it; undefined leaves it as it is. */
  readonly username?: string | null;
  /** A new avatar URL; null (or '') clears it; undefined leaves it as it is. */
  readonly avatar_url?: string | null;
}

export interface Profile {
  readonly wallet: string;
  readonly username: string | null;
  readonly avatar_url: string | null;
}

/** Whether some other wallet holds `username`, ignoring case. */
export async function usernameTaken(db: Db, username: string, exceptWallet?: string): Promise<boolean> {
  const r = await sql<{ n: number }>`select count(*)::int as n from wallets
    where lower(username) = lower(${username}) and address <> ${exceptWallet ?? ''}`.execute(db);
  return (r.rows[0]?.n ?? 0) > 0;
}

/**
 * Sets a wallet's username and avatar (the caller has authenticated the wallet). Creates the
 * wallet row when the wallet was never seen. 400 `Invalid wallet`, `Invalid username: <rule>`,
 * `Invalid avatar_url: <rule>`; 409 `Username taken` when another wallet has it in any case.
 */
export async function updateProfile(db: Db, wallet: string, change: ProfileChange): Promise<Profile> {
  if (!WALLET_RE.test(wallet)) throw badRequest('Invalid wallet: must be 0x followed by 40 hex digits');
  const address = wallet.toLowerCase();
  const username = change.username === undefined ? undefined : change.username === null ? null : change.username.trim();
  if (typeof username === 'string') {
    const rule = checkUsernameRules(username);
    if (!rule.ok) throw badRequest(`Invalid username: ${rule.reason}`);
  }
  const avatar = change.avatar_url === undefined ? undefined : change.avatar_url === null || change.avatar_url === '' ? null : change.avatar_url;
  if (typeof avatar === 'string') {
    const rule = checkAvatarUrl(avatar);
    if (!rule.ok) throw badRequest(`Invalid avatar_url: ${rule.reason}`);
  }
  if (typeof username === 'string' && (await usernameTaken(db, username, address))) throw new HttpError(409, 'Username taken');
  try {
    const r = await sql<Profile & { address: string }>`
      insert into wallets (address, username, avatar_url) values (${address}, ${username ?? null}, ${avatar ?? null})
      on conflict (address) do update set
        username = ${username === undefined ? sql`wallets.username` : sql`excluded.username`},
        avatar_url = ${avatar === undefined ? sql`wallets.avatar_url` : sql`excluded.avatar_url`},
        updated_at = now()
      returning address, username, avatar_url`.execute(db);
    const row = r.rows[0]!;
    return { wallet: row.address, username: row.username, avatar_url: row.avatar_url };
  } catch (e) {
    // Two wallets racing for one name: the unique index on lower(username) decides.
    if ((e as { code?: string }).code === '23505') throw new HttpError(409, 'Username taken');
    throw e;
  }
}

/** GET /api/users/check-username/:username: whether it follows the rules and is free. */
export async function checkUsername(db: Db, username: string) {
  const rule = checkUsernameRules(username);
  if (!rule.ok) return { username, valid: false, available: false, reason: `Username ${rule.reason}` };
  const taken = await usernameTaken(db, username);
  return { username, valid: true, available: !taken, reason: taken ? 'Username taken' : null };
}
