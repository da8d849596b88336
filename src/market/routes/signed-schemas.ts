import { Type } from 'typebox';
import { ErrorBody, MAX_ID, WALLET_PATTERN } from './read-schemas.ts';

/**
 * Schemas of the market's state-changing routes (trade, estimate, keys). Their bodies are
 * checked by strictValidatorCompiler: no coercion, so a string where a number belongs is a 400.
 */
export const strict = { additionalProperties: false } as const;
export const tags = ['market'];

export const WalletAddress = Type.String({ pattern: WALLET_PATTERN, description: '0x followed by 40 hex digits, any case' });
export const MarketId = Type.Integer({ minimum: 1, maximum: MAX_ID });
/**
 * Any JSON value passes the schema: whatever is not `yes`, `no` or `draw` (on threeway markets),
 * a number or null included, is the market API's 400 `Invalid side` (sideOf), checked with the
 * market like a wrong string.
 */
export const Side = Type.Unsafe<unknown>({ description: 'A string: `yes`, `no`, or `draw` (threeway markets only), lower case; anything else is 400 `Invalid side`' });

/** The side as the trade checks take it: a non-string is no outcome (`Invalid side` there). */
export const sideOf = (side: unknown): string => (typeof side === 'string' ? side : '');
export const UsdcNumber = Type.Number({ description: 'USDC as a JSON number, at least 1, at most 6 decimals' });

/** Error answers of the signed routes (plus 429 from the market's rate limit). */
export const signedErrors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 429: ErrorBody };

/** How the authenticated routes are signed, for their OpenAPI descriptions. */
export const AUTH_DESCRIPTION =
  'Authenticated: either an API key (`x-api-key`, `x-api-timestamp`, `x-api-signature` = lower-case hex ' +
  'HMAC-SHA256 with the API secret of timestamp + METHOD + path + raw body) or a wallet signature ' +
  '(`x-wallet-message` = `svc-auth v1 <wallet lower case> <unix seconds> <METHOD> <path> <sha256 hex of body>`, ' +
  '`x-wallet-signature` = its EIP-191 signature). Timestamps within 30 s; each signature is accepted once.';
