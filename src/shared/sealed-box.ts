import { hkdfSync } from 'node:crypto';
import { gcmOpen, gcmSeal, IV_BYTES, TAG_BYTES } from './aes-gcm.ts';
import { candidates, identify, KEY_ID_BYTES } from './sealing-keys.ts';

/**
 * Authenticated encryption of short texts handed to clients, which they give back unchanged
 * (docs/api-decisions.md, "Reasoning"): AES-256-GCM under a key derived with HKDF-SHA256 from the
 * instance secret (SECRETS_KEY, shared by every instance on one database) and a label naming its
 * one use, so the sealing key itself never encrypts anything else. A token is the base64url of
 * `2 (1 byte) | key id (4) | iv (12) | ciphertext | tag (16)`, the key id naming the sub-key
 * that sealed it (sealing-keys.ts); the context (e.g. an account) is authenticated as additional
 * data, so a token opens only in the context it was sealed for. Tokens of version 1 (no key id,
 * issued before key rotation) still open: every key is tried on them.
 *
 * The current secret seals; previous ones (SECRETS_KEY_PREVIOUS) only open, so tokens in clients'
 * hands survive a rotation. A token of a key this box does not hold opens as nothing, like a
 * tampered one.
 */
export interface SealedBox {
  seal(plaintext: string, context: string): string;
  /** The plaintext, or null for anything this box did not seal in this context (tampered, foreign, another key). */
  open(token: string, context: string): string | null;
}

const VERSION = 2;
/** Before key ids: `1 | iv | ciphertext | tag`. */
const VERSION_WITHOUT_KEY_ID = 1;
const KEY_BYTES = 32;
const BASE64URL = /^[A-Za-z0-9_-]+$/;

/** The sub-key of `label` (HKDF-SHA256, no salt: the secret is already uniformly random). */
export function deriveKey(secret: Buffer, label: string): Buffer {
  return Buffer.from(hkdfSync('sha256', secret, Buffer.alloc(0), Buffer.from(label, 'utf8'), KEY_BYTES));
}

export function createSealedBox(secret: Buffer, label: string, previous: readonly Buffer[] = []): SealedBox {
  const key = deriveKey(secret, label);
  const keys = identify([key, ...previous.filter((p) => !p.equals(secret)).map((p) => deriveKey(p, label))]);
  const header = Buffer.concat([Buffer.of(VERSION), keys[0]!.id]);
  return {
    seal(plaintext, context) {
      const { iv, ct, tag } = gcmSeal(key, plaintext, context);
      return Buffer.concat([header, iv, ct, tag]).toString('base64url');
    },
    open(token, context) {
      if (typeof token !== 'string' || !BASE64URL.test(token)) return null;
      const bytes = Buffer.from(token, 'base64url');
      // Only the canonical spelling: another text decoding to the same bytes is not what was issued.
      if (bytes.length < 1 || bytes.toString('base64url') !== token) return null;
      const idBytes = bytes[0] === VERSION ? KEY_ID_BYTES : bytes[0] === VERSION_WITHOUT_KEY_ID ? 0 : -1;
      if (idBytes < 0 || bytes.length < 1 + idBytes + IV_BYTES + TAG_BYTES) return null;
      const id = idBytes === 0 ? null : bytes.subarray(1, 1 + idBytes);
      const iv = bytes.subarray(1 + idBytes, 1 + idBytes + IV_BYTES);
      const ct = bytes.subarray(1 + idBytes + IV_BYTES, bytes.length - TAG_BYTES);
      const tag = bytes.subarray(bytes.length - TAG_BYTES);
      return gcmOpen(candidates(keys, id), { iv, ct, tag }, context);
    },
  };
}
