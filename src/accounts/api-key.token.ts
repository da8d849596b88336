import { hash, randomBytes } from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** 32 random bytes in base62 take at most 43 digits (62^43 > 2^256); shorter ones are padded. */
const BODY_LENGTH = 43;
const KEY_SHAPE = /^svk_[0-9A-Za-z]{43}$/;
/** `svk_` and the first 6 characters: enough to tell keys apart on a page, useless to an attacker. */
const PREFIX_LENGTH = 4 + 6;

export interface NewApiKey {
  /** The whole key; shown to its owner once and never stored. */
  readonly key: string;
  readonly hash: string;
  readonly prefix: string;
}

/** Base62 so a key is one "word" (double-click selects it) and needs no URL escaping. */
export function encodeBase62(bytes: Uint8Array, length: number): string {
  let n = BigInt(`0x${Buffer.from(bytes).toString('hex') || '0'}`);
  let out = '';
  while (n > 0n) {
    out = ALPHABET[Number(n % 62n)]! + out;
    n /= 62n;
  }
  if (out.length > length) throw new RangeError(`value needs ${out.length} base62 digits, more than ${length}`);
  return out.padStart(length, '0');
}

/**
 * The sha256 hex of the key. A plain (unsalted) hash is enough: the key carries 256 bits of
 * randomness, so there is nothing to guess, and an unsalted hash can be looked up by index.
 */
export function hashApiKey(key: string): string {
  // One-shot hash: no Hash object per request.
  return hash('sha256', key, 'hex');
}

/** Cheap shape check, so a malformed credential never costs a cache slot or a query. */
export function isApiKeyShaped(value: string): boolean {
  return KEY_SHAPE.test(value);
}

export function displayPrefix(key: string): string {
  return key.slice(0, PREFIX_LENGTH);
}

export function generateApiKey(random: (size: number) => Uint8Array = randomBytes): NewApiKey {
  const key = `svk_${encodeBase62(random(32), BODY_LENGTH)}`;
  return { key, hash: hashApiKey(key), prefix: displayPrefix(key) };
}
