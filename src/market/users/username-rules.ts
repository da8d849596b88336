/**
 * Rules for usernames and avatars (docs/decisions-market-reads.md). A username is 3 to 20
 * characters: ASCII letters, digits and underscores, starting with a letter (so it can never be
 * mistaken for a 0x wallet or an id). Case is kept for display; uniqueness ignores case.
 */
export const USERNAME_MIN = 3;
export const USERNAME_MAX = 20;
export const AVATAR_URL_MAX = 500;

/** Names that would impersonate the service or confuse clients, compared case-insensitively. */
export const RESERVED_USERNAMES: ReadonlySet<string> = new Set([
  'admin',
  'administrator',
  'anonymous',
  'api',
  'help',
  'mod',
  'moderator',
  'null',
  'official',
  'owner',
  'root',
  'staff',
  'support',
  'svc',
  'system',
  'undefined',
]);

export type RuleCheck = { readonly ok: true } | { readonly ok: false; readonly reason: string };

export function checkUsernameRules(name: string): RuleCheck {
  if (name.length < USERNAME_MIN || name.length > USERNAME_MAX) {
    return { ok: false, reason: `must be between ${USERNAME_MIN} and ${USERNAME_MAX} characters` };
  }
  if (!/^[A-Za-z]/.test(name)) return { ok: false, reason: 'must start with a letter' };
  if (!/^[A-Za-z0-9_]+$/.test(name)) return { ok: false, reason: 'may contain only letters, digits and underscores' };
  if (RESERVED_USERNAMES.has(name.toLowerCase())) return { ok: false, reason: 'is reserved' };
  return { ok: true };
}

/** An avatar is an https URL of at most AVATAR_URL_MAX characters, without credentials. */
export function checkAvatarUrl(url: string): RuleCheck {
  if (url.length > AVATAR_URL_MAX) return { ok: false, reason: `must be at most ${AVATAR_URL_MAX} characters` };
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return { ok: false, reason: 'must be an https URL' };
  }
  const control = [...url].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f);
  if (u.protocol !== 'https:' || /\s/.test(url) || control) return { ok: false, reason: 'must be an https URL' };
  if (u.username || u.password) return { ok: false, reason: 'must not contain credentials' };
  return { ok: true };
}
