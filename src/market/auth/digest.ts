import { createHash } from 'node:crypto';

/** Lower-case hex SHA-256 of bytes (the empty body hashes like any other). */
export function sha256Hex(data: Uint8Array | string): string {
  return createHash('sha256').update(data).digest('hex');
}
