import { Type, type TSchema } from 'typebox';

/** Schemas shared by the market's authenticated routes (checked by strictValidatorCompiler). */
export const strict = { additionalProperties: false } as const;
export const tags = ['market'];

export const WalletAddress = Type.String({ pattern: '^0x[0-9a-fA-F]{40}$', description: '0x followed by 40 hex digits, any case' });
export const MarketId = Type.Integer({ minimum: 1, maximum: 2_147_483_647 });
export const Side = Type.String({ description: '`yes`, `no`, or `draw` (threeway markets only), lower case' });
export const UsdcNumber = Type.Number({ description: 'USDC as a JSON number, at least 1, at most 6 decimals' });

/** The `{success: true, data}` envelope of market-api.md around `data`. */
export const Envelope = <T extends TSchema>(data: T) => Type.Object({ success: Type.Boolean(), data });

/** The error body of every /api error. */
export const ErrorBody = Type.Object({ success: Type.Boolean(), error: Type.String() });

/** How the authenticated routes are signed, for their OpenAPI descriptions. */
export const AUTH_DESCRIPTION =
  'Authenticated: either an API key (`x-api-key`, `x-api-timestamp`, `x-api-signature` = hex ' +
  'HMAC-SHA256 with the API secret of timestamp + METHOD + path + raw body) or a wallet signature ' +
  '(`x-wallet-message` = `svc-auth v1 <wallet> <unix seconds> <METHOD> <path> <sha256 hex of body>`, ' +
  '`x-wallet-signature` = its EIP-191 signature). Timestamps within 30 s; each signature is accepted once.';
