import { gcmOpen, gcmSeal, IV_BYTES, TAG_BYTES } from '../../shared/aes-gcm.ts';
import { candidates, identify, keyId, KEY_ID_BYTES, keysInOrder, type SealingKeys } from '../../shared/sealing-keys.ts';

/**
 * AES-256-GCM sealing of short secrets kept in the database. The text form is
 * `v2.<key id>.<iv>.<ciphertext>.<tag>` (base64url), the key id naming the key that sealed it
 * (sealing-keys.ts), so after a rotation the opener picks that key among the current and previous
 * ones. Texts sealed before key ids, `v1.<iv>.<ciphertext>.<tag>`, still open: every key is tried.
 * `context` is bound as associated data (the API key's public id), so a sealed secret copied to
 * another row does not open.
 */
const VERSION = 'v2';
const VERSION_WITHOUT_KEY_ID = 'v1';

/** Seals with `key` (the current SECRETS_KEY). */
export function sealSecret(key: Buffer, plaintext: string, context: string): string {
  const { iv, ct, tag } = gcmSeal(key, plaintext, context);
  return [VERSION, keyId(key).toString('base64url'), iv.toString('base64url'), ct.toString('base64url'), tag.toString('base64url')].join('.');
}

/** Whether `sealed` names `key` as its sealer (what a re-seal with `key` can skip). */
export function isSealedWith(key: Buffer, sealed: string): boolean {
  return sealed.startsWith(`${VERSION}.${keyId(key).toString('base64url')}.`);
}

/**
 * The plaintext, or an Error when the text is not sealed with one of `keys` (a bare key: that one
 * alone) in this context.
 */
export function openSecret(keys: Buffer | SealingKeys, sealed: string, context: string): string {
  const ring = identify(Buffer.isBuffer(keys) ? [keys] : keysInOrder(keys));
  const parts = sealed.split('.');
  let id: Buffer | null;
  let rest: string[];
  if (parts.length === 5 && parts[0] === VERSION) {
    id = Buffer.from(parts[1]!, 'base64url');
    if (id.length !== KEY_ID_BYTES) throw new Error('sealed secret: unknown format');
    rest = parts.slice(2);
  } else if (parts.length === 4 && parts[0] === VERSION_WITHOUT_KEY_ID) {
    id = null;
    rest = parts.slice(1);
  } else {
    throw new Error('sealed secret: unknown format');
  }
  const [ivText, ctText, tagText] = rest as [string, string, string];
  const iv = Buffer.from(ivText, 'base64url');
  const tag = Buffer.from(tagText, 'base64url');
  if (iv.length !== IV_BYTES || tag.length !== TAG_BYTES) throw new Error('sealed secret: unknown format');
  const opened = gcmOpen(candidates(ring, id), { iv, ct: Buffer.from(ctText, 'base64url'), tag }, context);
  if (opened !== null) return opened;
  throw new Error(
    id === null || candidates(ring, id).length > 0
      ? 'sealed secret: does not open with SECRETS_KEY or SECRETS_KEY_PREVIOUS (SECRETS_KEY changed?)'
      : `sealed secret: sealed with key ${id.toString('base64url')}, which is neither SECRETS_KEY nor in SECRETS_KEY_PREVIOUS`,
  );
}
