import { createHmac, timingSafeEqual } from 'node:crypto';

/** What an API-key request signs: `timestamp + METHOD + path + rawBody` (docs/signing.md). */
export interface HmacParts {
  /** The `x-api-timestamp` header exactly as sent. */
  readonly timestamp: string;
  readonly method: string;
  /** URL path as sent on the request line, without the query string. */
  readonly path: string;
  /** The exact body bytes; empty for none. */
  readonly rawBody: Uint8Array;
}

/** Lower-case hex HMAC-SHA256 keyed with the secret's UTF-8 bytes. */
export function signHmac(secret: string, parts: HmacParts): Buffer {
  return createHmac('sha256', Buffer.from(secret, 'utf8'))
    .update(Buffer.from(`${parts.timestamp}${parts.method.toUpperCase()}${parts.path}`, 'utf8'))
    .update(parts.rawBody)
    .digest();
}

export function signHmacHex(secret: string, parts: HmacParts): string {
  return signHmac(secret, parts).toString('hex');
}

/** The one accepted form of `x-api-signature`: 64 lower-case hex digits (docs/signing.md). */
const SIGNATURE_HEX = /^[0-9a-f]{64}$/;

/** Whether `signature` is 64 hex digits with upper-case ones: the right length in the wrong case. */
export function isHexInWrongCase(signature: string): boolean {
  return /^[0-9a-fA-F]{64}$/.test(signature) && !SIGNATURE_HEX.test(signature);
}

/**
 * What is wrong with an `x-api-signature` that holds the right digest in another encoding, so the
 * refusal can name it: `0x` before the 64 hex digits, or base64 (standard or URL-safe, padded or
 * not) of the 32 bytes. Null for any other header (docs/decisions-market-auth.md).
 */
export function hmacEncodingProblem(signature: string): 'hexPrefix' | 'base64' | null {
  if (/^0[xX][0-9a-fA-F]{64}$/.test(signature)) return 'hexPrefix';
  if (/^[A-Za-z0-9+/]{43}=?$/.test(signature) || /^[A-Za-z0-9_-]{43}=?$/.test(signature)) return 'base64';
  return null;
}

/**
 * Whether `signatureHex` is the HMAC of `parts`, in lower-case hex. The header is decoded to bytes
 * only when it is exactly 64 lower-case hex digits, so both buffers have the same length and
 * timingSafeEqual compares them in constant time.
 */
export function verifyHmac(secret: string, parts: HmacParts, signatureHex: string): boolean {
  if (!SIGNATURE_HEX.test(signatureHex)) return false;
  const given = Buffer.from(signatureHex, 'hex');
  const expected = signHmac(secret, parts);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
