import { randomBytes } from 'node:crypto';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/**
 * A service-issued id such as `chatcmpl-Xy3...` or `call_Ab9...`. Upstream ids never reach a client;
 * every id in an answer comes from here. 24 base62 characters carry ~142 bits.
 */
export function createId(prefix: string, length = 24): string {
  // 248 = 4 * 62: bytes at or above it are dropped so every character is equally likely.
  let out = '';
  while (out.length < length) {
    for (const b of randomBytes(length * 2)) {
      if (b < 248 && out.length < length) out += ALPHABET[b % 62];
    }
  }
  return prefix + out;
}
