/**
 * A small signing client of the market API, written from docs/signing.md with node:crypto and
 * viem, not from the server's code, so a mistake on one side
 * cannot hide behind the same mistake on the other. Used by the tests and by bench/market-trades.
 */
import { createHash, createHmac } from 'node:crypto';
import type { PrivateKeyAccount } from 'viem/accounts';

export interface ApiKeyCredentials {
  readonly api_key: string;
  readonly api_secret: string;
}

/** Who signs: an API key (HMAC) or a wallet (EIP-191 personal_sign). */
export type MarketSigner = { readonly apiKey: ApiKeyCredentials } | { readonly account: PrivateKeyAccount };

export interface SignParts {
  readonly method: string;
  /** URL path as sent, without the query string. */
  readonly path: string;
  /** The exact body bytes sent ('' for none). */
  readonly body: string;
  /** Unix seconds. */
  readonly timestamp: number;
}

/** `x-api-key`, `x-api-timestamp`, `x-api-signature`: lower-case hex HMAC-SHA256 of timestamp + METHOD + path + body. */
export function hmacHeaders(creds: ApiKeyCredentials, p: SignParts): Record<string, string> {
  const ts = String(p.timestamp);
  const signature = createHmac('sha256', Buffer.from(creds.api_secret, 'utf8'))
    .update(ts + p.method.toUpperCase() + p.path)
    .update(Buffer.from(p.body, 'utf8'))
    .digest('hex');
  return { 'x-api-key': creds.api_key, 'x-api-timestamp': ts, 'x-api-signature': signature };
}

/** `svc-auth v1 <wallet lower case> <unix seconds> <METHOD> <path> <sha256 hex of body>`. */
export function walletMessage(wallet: string, p: SignParts): string {
  const digest = createHash('sha256').update(Buffer.from(p.body, 'utf8')).digest('hex');
  return `svc-auth v1 ${wallet.toLowerCase()} ${p.timestamp} ${p.method.toUpperCase()} ${p.path} ${digest}`;
}

/** `x-wallet-message` and `x-wallet-signature` (EIP-191) for a request. */
export async function walletHeaders(account: PrivateKeyAccount, p: SignParts, claimedWallet = account.address): Promise<Record<string, string>> {
  const message = walletMessage(claimedWallet, p);
  return { 'x-wallet-message': message, 'x-wallet-signature': await account.signMessage({ message }) };
}

export async function signatureHeaders(signer: MarketSigner, p: SignParts): Promise<Record<string, string>> {
  return 'apiKey' in signer ? hmacHeaders(signer.apiKey, p) : walletHeaders(signer.account, p);
}

export interface SignedRequestInput {
  readonly method: 'POST' | 'DELETE' | 'PUT' | 'GET';
  /** Path with an optional query string, e.g. /api/pool/trade. */
  readonly url: string;
  /** An object is sent as JSON.stringify(body); a string is sent exactly as given. */
  readonly body?: unknown;
  /** Unix seconds; default now. */
  readonly timestamp?: number;
  readonly headers?: Record<string, string>;
  /** Sign other bytes or another path than the ones sent (hostile-client tests). */
  readonly signedBody?: string;
  readonly signedPath?: string;
}

/** A request ready for `app.inject` (method, url, headers, payload) or fetch. */
export interface SignedRequest {
  readonly method: SignedRequestInput['method'];
  readonly url: string;
  readonly headers: Record<string, string>;
  readonly payload?: string;
}

export const nowSeconds = (ms = Date.now()): number => Math.floor(ms / 1000);

export function bodyText(body: unknown): string | undefined {
  if (body === undefined) return undefined;
  return typeof body === 'string' ? body : JSON.stringify(body);
}

/** Signs one request; the headers carry content-type when there is a body. */
export async function signedRequest(signer: MarketSigner | null, r: SignedRequestInput): Promise<SignedRequest> {
  const payload = bodyText(r.body);
  const q = r.url.indexOf('?');
  const path = q === -1 ? r.url : r.url.slice(0, q);
  const auth = signer
    ? await signatureHeaders(signer, {
        method: r.method,
        path: r.signedPath ?? path,
        body: r.signedBody ?? payload ?? '',
        timestamp: r.timestamp ?? nowSeconds(),
      })
    : {};
  return {
    method: r.method,
    url: r.url,
    headers: { ...(payload !== undefined ? { 'content-type': 'application/json' } : {}), ...auth, ...r.headers },
    ...(payload !== undefined ? { payload } : {}),
  };
}

/** The trade body of POST /api/pool/trade. */
export const tradeBody = (wallet: string, marketId: number, side: string, amount: number | string) => ({
  wallet_addr: wallet,
  market_id: marketId,
  side,
  amount,
});
