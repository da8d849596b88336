import { createHash } from 'node:crypto';

/**
 * The keys that seal (docs/operations.md, "Rotating the sealing key"): the current key seals
 * everything new; the previous ones only open what was sealed before a rotation, until every
 * stored secret is sealed again with the current key and the previous ones can be dropped.
 */
export interface SealingKeys {
  readonly current: Buffer;
  readonly previous: readonly Buffer[];
}

/** Bytes of a key id: enough to tell a handful of keys apart, too few to say anything about a key. */
export const KEY_ID_BYTES = 4;

/**
 * A short public name of a key, written beside what it sealed so the opener picks the key
 * instead of trying each. A hash under its own label, so it matches no other hash of the key
 * (instance_secrets records the SHA-256 of its base64 text).
 */
export function keyId(key: Buffer): Buffer {
  return createHash('sha256').update('svc sealing key id v1\0').update(key).digest().subarray(0, KEY_ID_BYTES);
}

/** The current key, then the previous ones, each once. */
export function keysInOrder(keys: SealingKeys): Buffer[] {
  const out: Buffer[] = [keys.current];
  for (const k of keys.previous) if (!out.some((o) => o.equals(k))) out.push(k);
  return out;
}

/** Keys with their ids, for openers that look the sealing key up by id. */
export interface IdentifiedKey {
  readonly id: Buffer;
  readonly key: Buffer;
}

export function identify(keys: readonly Buffer[]): IdentifiedKey[] {
  return keys.map((key) => ({ id: keyId(key), key }));
}

/**
 * The keys to try on a text: those named by its key id (two keys may share an id, once in four
 * billion), or all of them for a text sealed before key ids were written.
 */
export function candidates(keys: readonly IdentifiedKey[], id: Buffer | null): Buffer[] {
  return id === null ? keys.map((k) => k.key) : keys.filter((k) => k.id.equals(id)).map((k) => k.key);
}
