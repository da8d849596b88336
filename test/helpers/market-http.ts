import assert from 'node:assert/strict';
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import type { TestApp } from './app.ts';
import type { ManualClock } from './market.ts';
import { nowSeconds, signedRequest, type ApiKeyCredentials, type MarketSigner, type SignedRequestInput } from './market-client.ts';

/** A wallet that trades: its viem account and an API key issued by the operator. */
export interface Trader {
  readonly account: PrivateKeyAccount;
  /** Checksummed, as viem gives it. */
  readonly wallet: string;
  readonly key: ApiKeyCredentials;
  readonly viaKey: MarketSigner;
  readonly viaWallet: MarketSigner;
}

export interface Answer {
  readonly status: number;
  readonly body: Record<string, unknown>;
  readonly headers: Record<string, unknown>;
}

/** A public read's envelope, its data loosely typed for the read tests. */
export interface ReadBody {
  success: boolean;
  data: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  total?: number;
  page?: number;
  limit?: number;
  error?: string;
}

/** A public GET of the market API through inject: its status and envelope. */
export async function marketRead(t: TestApp, url: string): Promise<{ status: number; body: ReadBody }> {
  const r = await t.app.inject({ url });
  return { status: r.statusCode, body: r.json() as ReadBody };
}

/**
 * The market API of one test app, driven through HTTP (inject): the operator's admin calls and
 * signed client calls. Every signed call moves the shared manual clock one second forward, so
 * two identical calls are two signed requests (a signature names its second).
 */
export function marketHttp(t: TestApp, clock: ManualClock) {
  const adminCall = async (method: 'GET' | 'POST', url: string, body?: unknown): Promise<Answer> => {
    const res = await t.app.inject({
      method,
      url,
      headers: { ...t.admin, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
    });
    return { status: res.statusCode, body: res.json(), headers: res.headers };
  };
  const ok = async (p: Promise<Answer>, status = 200): Promise<Record<string, unknown>> => {
    const a = await p;
    assert.equal(a.status, status, JSON.stringify(a.body));
    return a.body;
  };

  const api = {
    adminCall,
    async createMarket(fields: Record<string, unknown> = {}): Promise<{ id: number; status: string }> {
      const body = {
        title: `Market ${Math.random().toString(36).slice(2)}`,
        category: 'test',
        market_type: 'yesno',
        end_date: new Date(clock.now() + 30 * 86_400_000).toISOString(),
        ...fields,
      };
      return (await ok(adminCall('POST', '/admin/markets', body), 201)) as { id: number; status: string };
    },
    deposit: (wallet: string, usdc: string) => ok(adminCall('POST', `/admin/wallets/${wallet}/deposit`, { amount: usdc })),
    resolve: (id: number, outcome: string) => ok(adminCall('POST', `/admin/markets/${id}/resolve`, { outcome })),
    cancel: (id: number) => ok(adminCall('POST', `/admin/markets/${id}/cancel`)),
    issueKey: async (wallet: string): Promise<ApiKeyCredentials> =>
      (await ok(adminCall('POST', `/admin/wallets/${wallet}/api-keys`), 201)) as unknown as ApiKeyCredentials,

    /** A fresh wallet with `usdc` deposited (none when omitted) and an API key. */
    async trader(usdc?: string): Promise<Trader> {
      const account = privateKeyToAccount(generatePrivateKey());
      if (usdc !== undefined) await api.deposit(account.address, usdc);
      const key = await api.issueKey(account.address);
      return { account, wallet: account.address, key, viaKey: { apiKey: key }, viaWallet: { account } };
    },

    /** Signs (timestamp: the clock, advanced one second) and sends. */
    async send(signer: MarketSigner | null, r: SignedRequestInput): Promise<Answer> {
      clock.advance(1000);
      const req = await signedRequest(signer, { timestamp: nowSeconds(clock.now()), ...r });
      const res = await t.app.inject(req);
      return { status: res.statusCode, body: res.json(), headers: res.headers };
    },
    trade: (signer: MarketSigner | null, body: unknown, extra: Partial<SignedRequestInput> = {}) =>
      api.send(signer, { method: 'POST', url: '/api/pool/trade', body, ...extra }),
    estimate: (body: unknown) => api.send(null, { method: 'POST', url: '/api/pool/estimate', body }),

    /** Balance (units) and trade count of a wallet, to show that nothing moved. */
    async moneyOf(wallet: string): Promise<{ balance: bigint; trades: number }> {
      const w = wallet.toLowerCase();
      const row = await t.deps.db.selectFrom('wallets').select('balance').where('address', '=', w).executeTakeFirst();
      const trades = await t.deps.db.selectFrom('trades').select((eb) => eb.fn.countAll<string>().as('n')).where('wallet', '=', w).executeTakeFirstOrThrow();
      return { balance: row?.balance ?? 0n, trades: Number(trades.n) };
    },
  };
  return api;
}

export const failure = (status: number, error: string) => ({ status, body: { success: false, error } });
export const outcomeOf = (a: Answer) => ({ status: a.status, body: a.body });
