import { createHash, timingSafeEqual } from 'node:crypto';

/** Constant-time string equality: both sides are hashed first so lengths leak nothing. */
export function secureEqual(a: string, b: string): boolean {
  const ha = createHash('sha256').update(a).digest();
  const hb = createHash('sha256').update(b).digest();
  return timingSafeEqual(ha, hb);
}
