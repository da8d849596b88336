import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { startTestApp, TEST_ADMIN_TOKEN, type TestApp } from './helpers/app.ts';
import { assertBooksBalanced } from './helpers/market.ts';
import { signedRequest, tradeBody, type ApiKeyCredentials, type MarketSigner, type SignedRequestInput } from './helpers/market-client.ts';

/**
 * The second fresh-eyes audit of the market API against market-api.md and market-math.md, over a
 * real socket with fetch and the server's own clock. Each case is a gap the earlier audits
 * (market-spec-audit.test.ts, market-polish.test.ts) did not cover.
 */

interface Answer {
  readonly status: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  readonly body: any;
}

describe('market API against market-api.md (second audit, over HTTP)', () => {
  let t: TestApp;
  let base: string;

  before(async () => {
    t = await startTestApp({ env: { RATE_LIMIT_MARKET_PER_MINUTE: '1000000' } });
    base = await t.listen();
  });
  after(() => t.close());
  afterEach(() => assertBooksBalanced(t.deps.db));

  const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Answer> => {
    const res = await fetch(base + path, {
      method,
      headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.status, body: await res.json() };
  };
  const admin = async (method: string, path: string, body?: unknown): Promise<Answer> =>
    call(method, path, body ?? {}, { authorization: `Bearer ${TEST_ADMIN_TOKEN}` });
  const ok = async (p: Promise<Answer>, status = 200) => {
    const a = await p;
    assert.equal(a.status, status, JSON.stringify(a.body));
    return a.body;
  };
  // A signature names its second and is accepted once: each signed request gets a second of its own.
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
  const send = async (signer: MarketSigner, r: SignedRequestInput): Promise<Answer> => {
    const req = await signedRequest(signer, { ...r, timestamp: freshSecond() });
    const res = await fetch(base + req.url, { method: req.method, headers: req.headers, ...(req.payload === undefined ? {} : { body: req.payload }) });
    return { status: res.status, body: await res.json() };
  };
  const trader = async (usdc: string) => {
    const account = privateKeyToAccount(generatePrivateKey());
    await ok(admin('POST', `/admin/wallets/${account.address}/deposit`, { amount: usdc }));
    const key = (await ok(admin('POST', `/admin/wallets/${account.address}/api-keys`), 201)) as ApiKeyCredentials;
    return { wallet: account.address, viaKey: { apiKey: key } as MarketSigner };
  };
  const endIn = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString();
  const market = async (fields: Record<string, unknown> = {}) =>
    (await ok(admin('POST', '/admin/markets', { title: `Audit2 ${Math.random()}`, category: 'audit2', market_type: 'yesno', end_date: endIn(30), ...fields }), 201)) as {
      id: number;
    };

  it('sorts ending_soon by the markets still running: a settled market is not "ending soon", whatever its end_date', async () => {
    const category = `ending-${Math.random().toString(36).slice(2)}`;
    const w = await trader('10');
    const resolvedSoon = await market({ category, end_date: endIn(1) });
    const cancelledSoon = await market({ category, end_date: endIn(2) });
    const running = await market({ category, end_date: endIn(5) });
    const pendingLater = await market({ category, end_date: endIn(8), status: 'pending' });
    const runningLater = await market({ category, end_date: endIn(10) });
    assert.equal((await send(w.viaKey, { method: 'POST', url: '/api/pool/trade', body: tradeBody(w.wallet, resolvedSoon.id, 'yes', 2) })).status, 200);
    await ok(admin('POST', `/admin/markets/${resolvedSoon.id}/resolve`, { outcome: 'yes' }));
    await ok(admin('POST', `/admin/markets/${cancelledSoon.id}/cancel`));
    const list = (await ok(call('GET', `/api/markets?category=${category}&sort=ending_soon`))).data as { id: number }[];
    // Running (active or pending, end in the future) soonest first; then the rest, latest end first.
    assert.deepEqual(
      list.map((m) => m.id),
      [running.id, pendingLater.id, runningLater.id, cancelledSoon.id, resolvedSoon.id],
    );
  });

  it('keeps image_url a relative path (the Market field is "string, relative path"): absolute and protocol-relative URLs are refused', async () => {
    const RULE = { error: 'invalid image_url: must be a relative path starting with a single /' };
    const title = () => `Img ${Math.random()}`;
    for (const url of ['https://cdn.example/x.png', 'http://cdn.example/x.png', '//cdn.example/x.png', '/\\cdn.example/x.png', 'x.png']) {
      const m = await admin('POST', '/admin/markets', { title: title(), category: 'audit2', market_type: 'yesno', end_date: endIn(3), image_url: url });
      assert.deepEqual(m, { status: 400, body: RULE }, url);
      const e = await admin('POST', '/admin/events', { title: title(), category: 'audit2', image_url: url });
      assert.deepEqual(e, { status: 400, body: RULE }, `event ${url}`);
    }
    const made = await market({ image_url: '/images/markets/audit.png' });
    const patched = await admin('PATCH', `/admin/markets/${made.id}`, { image_url: '//cdn.example/y.png' });
    assert.deepEqual(patched, { status: 400, body: RULE });
    const item = (await ok(call('GET', `/api/markets/${made.id}`))).data;
    assert.equal(item.image_url, '/images/markets/audit.png');
  });

  it('answers a stream of a market that does not exist with 404 Market not found, not a silent stream', async () => {
    const real = await market();
    for (const q of ['markets=2147483647', `markets=${real.id},2147483646`]) {
      const res = await fetch(`${base}/api/stream?${q}`);
      assert.equal(res.status, 404, q);
      assert.deepEqual(await res.json(), { success: false, error: 'Market not found' }, q);
    }
    // A stream of markets that exist opens as before.
    const ctrl = new AbortController();
    const open = await fetch(`${base}/api/stream?markets=${real.id}`, { signal: ctrl.signal });
    assert.equal(open.status, 200);
    assert.match(open.headers.get('content-type') ?? '', /^text\/event-stream/);
    ctrl.abort();
    await open.body?.cancel().catch(() => undefined);
  });

  it('filters the markets list by category as categories are stored (trimmed, lower case), so the name the operator typed finds its markets', async () => {
    const name = `Audit Cat ${Math.random().toString(36).slice(2, 8)}`;
    const made = await market({ category: name });
    const stored = (await ok(call('GET', `/api/markets/${made.id}`))).data.category;
    assert.equal(stored, name.toLowerCase());
    for (const asked of [stored, name, name.toUpperCase(), `  ${name}  `]) {
      const list = await ok(call('GET', `/api/markets?category=${encodeURIComponent(asked)}`));
      assert.deepEqual({ ids: list.data.map((m: { id: number }) => m.id), total: list.total }, { ids: [made.id], total: 1 }, JSON.stringify(asked));
    }
  });
});
