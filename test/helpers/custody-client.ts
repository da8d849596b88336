import type { LightMyRequestResponse } from 'fastify';
import type { PrivateKeyAccount } from 'viem/accounts';
import { sha256Hex } from '../../src/market/auth/digest.ts';
import type { IssuedApiKey } from '../../src/market/auth/api-key.repository.ts';
import { signHmacHex } from '../../src/market/auth/hmac.signature.ts';
import { buildWalletMessage } from '../../src/market/auth/wallet-message.ts';
import type { TestApp } from './app.ts';

/** Who signs: a wallet (EIP-191 message) or an API key (HMAC). */
export type Signer = { readonly account: PrivateKeyAccount } | { readonly apiKey: IssuedApiKey };

const signedBefore = new Set<string>();
/**
 * A timestamp (now, or up to 29 s before) under which this signer never signed this request,
 * so two identical requests are two signed requests, as a client re-signing would send them.
 * Tests of the replay cache pass `ts` or the earlier headers explicitly.
 */
function freshTimestamp(who: string, path: string, rawBody: string): number {
  const now = Math.floor(Date.now() / 1000);
  for (let back = 0; back < 30; back++) {
    const id = `${who}|${path}|${rawBody}|${now - back}`;
    if (!signedBefore.has(id)) {
      signedBefore.add(id);
      return now - back;
    }
  }
  throw new Error('custody-client: more than 30 identical signed requests within 30 s; vary the body');
}

export async function signedHeaders(signer: Signer, path: string, rawBody: string, at?: number): Promise<Record<string, string>> {
  const who = 'apiKey' in signer ? signer.apiKey.api_key : signer.account.address;
  const ts = at ?? freshTimestamp(who, path, rawBody);
  if ('apiKey' in signer) {
    const timestamp = String(ts);
    const signature = signHmacHex(signer.apiKey.api_secret, { timestamp, method: 'POST', path, rawBody: Buffer.from(rawBody) });
    return { 'x-api-key': signer.apiKey.api_key, 'x-api-timestamp': timestamp, 'x-api-signature': signature };
  }
  const message = buildWalletMessage({ wallet: signer.account.address, timestamp: ts, method: 'POST', path, bodySha256: sha256Hex(rawBody) });
  return { 'x-wallet-message': message, 'x-wallet-signature': await signer.account.signMessage({ message }) };
}

export interface SignedPostOptions {
  readonly idempotencyKey?: string;
  readonly ts?: number;
  /** Replaces the signature headers (e.g. to replay an earlier request's). */
  readonly headers?: Record<string, string>;
}

/** A signed POST through the app; `body` is sent as the exact JSON text given (or serialized). */
export async function signedPost(
  t: TestApp,
  signer: Signer,
  path: string,
  body: unknown,
  opts: SignedPostOptions = {},
): Promise<LightMyRequestResponse & { sentHeaders: Record<string, string> }> {
  const raw = typeof body === 'string' ? body : JSON.stringify(body);
  const auth = opts.headers ?? (await signedHeaders(signer, path, raw, opts.ts));
  const headers = {
    'content-type': 'application/json',
    ...auth,
    ...(opts.idempotencyKey ? { 'idempotency-key': opts.idempotencyKey } : {}),
  };
  const res = await t.app.inject({ method: 'POST', url: path, headers, payload: raw });
  return Object.assign(res, { sentHeaders: headers });
}

/** GET through the app, JSON answer. */
export async function getJson(t: TestApp, url: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await t.app.inject({ method: 'GET', url });
  return { status: res.statusCode, body: res.json() as Record<string, unknown> };
}

/** An admin call through the app. */
export async function admin(t: TestApp, method: 'GET' | 'POST', url: string, body?: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await t.app.inject({
    method,
    url,
    headers: { ...t.admin, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
  });
  return { status: res.statusCode, body: res.json() as Record<string, unknown> };
}
