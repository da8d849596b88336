import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

/**
 * Authenticated encryption of short texts handed to clients, which they give back unchanged
 * (docs/api-decisions.md, "Reasoning"): AES-256-GCM under a key derived with HKDF-SHA256 from the
 * instance secret (SECRETS_KEY, shared by every instance on one database) and a label naming its
 * one use, so the sealing key itself never encrypts anything else. A token is the base64url of
 * `version (1 byte) | iv (12) | ciphertext | tag (16)`; the context (e.g. an account) is
 * authenticated as additional data, so a token opens only in the context it was sealed for.
 */
export interface SealedBox {
  seal(plaintext: string, context: string): string;
  /** The plaintext, or null for anything this box did not seal in this context (tampered, foreign, another key). */
  open(token: string, context: string): string | null;
}

const VERSION = 1;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const KEY_BYTES = 32;
const BASE64URL = /^[A-Za-z0-9_-]+$/;

/** The sub-key of `label` (HKDF-SHA256, no salt: the secret is already uniformly random). */
export function deriveKey(secret: Buffer, label: string): Buffer {
  return Buffer.from(hkdfSync('sha256', secret, Buffer.alloc(0), Buffer.from(label, 'utf8'), KEY_BYTES));
}

export function createSealedBox(secret: Buffer, label: string): SealedBox {
  const key = deriveKey(secret, label);
  return {
    seal(plaintext, context) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
      cipher.setAAD(Buffer.from(context, 'utf8'));
      const ct = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return Buffer.concat([Buffer.of(VERSION), iv, ct, cipher.getAuthTag()]).toString('base64url');
    },
    open(token, context) {
      if (typeof token !== 'string' || !BASE64URL.test(token)) return null;
      const bytes = Buffer.from(token, 'base64url');
      // Only the canonical spelling: another text decoding to the same bytes is not what was issued.
      if (bytes.length < 1 + IV_BYTES + TAG_BYTES || bytes[0] !== VERSION || bytes.toString('base64url') !== token) return null;
      const iv = bytes.subarray(1, 1 + IV_BYTES);
      const tag = bytes.subarray(bytes.length - TAG_BYTES);
      const decipher = createDecipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
      decipher.setAAD(Buffer.from(context, 'utf8'));
      decipher.setAuthTag(tag);
      try {
        return Buffer.concat([decipher.update(bytes.subarray(1 + IV_BYTES, bytes.length - TAG_BYTES)), decipher.final()]).toString('utf8');
      } catch {
        return null;
      }
    },
  };
}
