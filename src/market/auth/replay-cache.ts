/**
 * Remembers which signatures were already accepted, for every instance at once. A signature is
 * accepted only in the 30-second window around its timestamp, so remembering it a little longer
 * than the whole window (60 s) is enough.
 */
export interface ReplayCache {
  readonly kind: 'redis' | 'postgres';
  /** True the first time `key` is claimed within `ttlMs`; false when it was already used. */
  claim(key: string, ttlMs: number): Promise<boolean>;
}
