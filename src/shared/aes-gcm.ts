import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/** AES-256-GCM as both sealed formats use it (sealed-box.ts, market/auth/secret-box.ts). */
export const IV_BYTES = 12;
export const TAG_BYTES = 16;

export interface GcmParts {
  readonly iv: Buffer;
  readonly ct: Buffer;
  readonly tag: Buffer;
}

/** Encrypts `plaintext` under `key` with a fresh IV, `context` bound as associated data. */
export function gcmSeal(key: Buffer, plaintext: string, context: string): GcmParts {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(Buffer.from(context, 'utf8'));
  const ct = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return { iv, ct, tag: cipher.getAuthTag() };
}

/**
 * The plaintext under the first of `keys` that authenticates it in `context`, or null (tampered,
 * another context, or no key given sealed it).
 */
export function gcmOpen(keys: readonly Buffer[], parts: GcmParts, context: string): string | null {
  for (const key of keys) {
    const decipher = createDecipheriv('aes-256-gcm', key, parts.iv, { authTagLength: TAG_BYTES });
    decipher.setAAD(Buffer.from(context, 'utf8'));
    decipher.setAuthTag(parts.tag);
    try {
      return Buffer.concat([decipher.update(parts.ct), decipher.final()]).toString('utf8');
    } catch {
      // Not this key (two keys may share an id): the next, if any.
    }
  }
  return null;
}
