import { HttpError } from '../../shared/errors.ts';

/**
 * Every answer the market authentication gives, in one table. The first five are the documented
 * exact words (docs/signing.md); the others are decisions recorded in
 * docs/decisions-market-auth.md.
 */
export const AUTH_ERRORS = {
  signatureRequired: [401, 'Signature required'],
  timestampOutOfRange: [401, 'Timestamp out of range'],
  apiTimestampMilliseconds: [401, 'Timestamp out of range: x-api-timestamp must be Unix seconds, not milliseconds'],
  apiTimestampFraction: [401, 'Timestamp out of range: x-api-timestamp must be whole Unix seconds'],
  walletTimestampMilliseconds: [401, 'Timestamp out of range: the timestamp in x-wallet-message must be Unix seconds, not milliseconds'],
  walletTimestampFraction: [401, 'Timestamp out of range: the timestamp in x-wallet-message must be whole Unix seconds'],
  signatureAlreadyUsed: [401, 'Signature already used'],
  invalidSignature: [401, 'Invalid signature'],
  hmacSignatureCase: [401, 'Invalid signature: x-api-signature must be lower-case hex'],
  hmacSignatureHexPrefix: [401, 'Invalid signature: x-api-signature must be hex without 0x'],
  hmacSignatureBase64: [401, 'Invalid signature: x-api-signature must be lower-case hex, not base64'],
  hmacSignedQuery: [401, 'Invalid signature: the signed path must be the URL path without the query string'],
  walletSignatureWithout0x: [401, 'Invalid signature: x-wallet-signature must start with 0x'],
  walletMessageWalletCase: [401, 'Invalid signature: the wallet in x-wallet-message must be lower case'],
  walletMessageMethodCase: [401, 'Invalid signature: the method in x-wallet-message must be upper case'],
  walletMessageDigestCase: [401, 'Invalid signature: the body digest in x-wallet-message must be lower-case hex'],
  walletMessageQuery: [401, 'Invalid signature: the path in x-wallet-message must be the URL path without the query string'],
  apiKeyWalletMismatch: [403, 'API key wallet mismatch'],
  invalidApiKey: [401, 'Invalid API key'],
  walletMismatch: [403, 'Wallet mismatch'],
  invalidWalletAddr: [400, 'invalid wallet_addr: must be 0x followed by 40 hex digits'],
  idempotencyBodyMismatch: [409, 'Idempotency-Key reused with a different body'],
  idempotencyInProgress: [409, 'Idempotency-Key request still in progress'],
  invalidIdempotencyKey: [400, 'Invalid Idempotency-Key'],
  replayStoreUnavailable: [503, 'Authentication temporarily unavailable'],
} as const satisfies Record<string, readonly [number, string]>;

export type AuthErrorName = keyof typeof AUTH_ERRORS;

export function authError(name: AuthErrorName): HttpError {
  const [status, message] = AUTH_ERRORS[name];
  return new HttpError(status, message);
}
