import assert from 'node:assert/strict';
import { after, afterEach, before } from 'node:test';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { startTestApp, TEST_ADMIN_TOKEN, type TestApp } from './app.ts';
import { signedRequest, type ApiKeyCredentials, type MarketSigner, type SignedRequestInput } from './market-client.ts';
import { assertBooksBalanced } from './market.ts';

export interface SocketAnswer {
  readonly status: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  readonly body: any;
}

/**
 * The market API as a client meets it: over a real socket at `base()` (known once the app listens), with fetch and the server's
 * own clock (the audit tests). marketHttp (market-http.ts) is the same through inject with a
 * manual clock.
 */
export function marketOverSocket(base: () => string) {
  const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<SocketAnswer> => {
    const res = await fetch(base() + path, {
      method,
      headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.status, body: await res.json() };
  };
  const admin = (method: string, path: string, body?: unknown): Promise<SocketAnswer> =>
    call(method, path, body, { authorization: `Bearer ${TEST_ADMIN_TOKEN}` });
  const ok = async (p: Promise<SocketAnswer>, status = 200) => {
    const a = await p;
    assert.equal(a.status, status, JSON.stringify(a.body));
    return a.body;
  };
  // A signature is accepted once and names its second: every request gets a second of its own,
  // taken from the last 25 (the service accepts 30 either way).
  const usedSeconds = new Set<number>();
  const freshSecond = () => {
    const now = Math.floor(Date.now() / 1000);
    for (let k = 0; k < 25; k++) {
      if (!usedSeconds.has(now - k)) {
        usedSeconds.add(now - k);
        return now - k;
      }
    }
    throw new Error('more than 25 signed requests in 25 seconds');
  };
  /** A signed request; `dropContentType` sends it without its content-type header. */
  const send = async (signer: MarketSigner, r: SignedRequestInput, dropContentType = false): Promise<SocketAnswer> => {
    const req = await signedRequest(signer, { ...r, timestamp: freshSecond() });
    const headers = { ...req.headers };
    if (dropContentType) delete headers['content-type'];
    const res = await fetch(base() + req.url, { method: req.method, headers, ...(req.payload === undefined ? {} : { body: req.payload }) });
    return { status: res.status, body: await res.json() };
  };
  /** A new wallet with `usdc` deposited and an API key. */
  const trader = async (usdc: string) => {
    const account = privateKeyToAccount(generatePrivateKey());
    await ok(admin('POST', `/admin/wallets/${account.address}/deposit`, { amount: usdc }));
    const key = (await ok(admin('POST', `/admin/wallets/${account.address}/api-keys`), 201)) as ApiKeyCredentials;
    return { account, wallet: account.address, viaKey: { apiKey: key } as MarketSigner, viaWallet: { account } as MarketSigner };
  };
  const endIn = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString();
  /** A yes/no market ending in 30 days, in `category`, with `fields` on top. */
  const market = async (category: string, fields: Record<string, unknown> = {}) =>
    (await ok(admin('POST', '/admin/markets', { title: `${category} ${Math.random()}`, category, market_type: 'yesno', end_date: endIn(30), ...fields }), 201)) as {
      id: number;
    };
  return { call, admin, ok, send, trader, endIn, market };
}

/** A test app on a socket with a generous market rate limit: the set-up of the spec-audit suites. */
export async function startMarketOverSocket(): Promise<{ t: TestApp; base: string }> {
  const t = await startTestApp({ env: { RATE_LIMIT_MARKET_PER_MINUTE: '1000000' } });
  return { t, base: await t.listen() };
}

/**
 * The market audit suites' set-up, registered on the describe that calls it: an app on a socket
 * (startMarketOverSocket) for the whole suite and the books checked after every test. `app()` and
 * `base()` answer once the suite's `before` ran; the rest is marketOverSocket at that base.
 */
export function marketAuditSuite() {
  let t: TestApp | undefined;
  let url = '';
  const app = (): TestApp => {
    if (!t) throw new Error('the market audit suite has not started');
    return t;
  };
  const base = () => url;
  before(async () => void ({ t, base: url } = await startMarketOverSocket()));
  after(() => t?.close());
  afterEach(() => assertBooksBalanced(app().deps.db));
  return { app, base, ...marketOverSocket(base) };
}
