import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, afterEach, before, describe, it } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import type { DatabaseHandle } from '../src/storage/database.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { freshDatabase, openSameDatabase } from './helpers/database.ts';
import { createTestAccount } from './helpers/inference.ts';
import { assertBooksBalanced } from './helpers/market.ts';
import { marketOverSocket } from './helpers/market-socket.ts';
import { sseReader } from './helpers/sse-reader.ts';

/** An SSE stream read over fetch: its whole events, a wait for one, and its close. */
async function openStream(url: string, headers: Record<string, string> = {}) {
  const ac = new AbortController();
  const res = await fetch(url, { headers, signal: ac.signal });
  assert.equal(res.status, 200);
  return { ...sseReader(res.body as unknown as AsyncIterable<Uint8Array>), close: () => ac.abort() };
}

/**
 * The eleventh audit of the market API against market-api.md and market-math.md
 * (docs/api-decisions.md, "Market API: eleventh audit"), over real sockets: `offset` paging, CORS
 * on the market and inference APIs (not on the dashboard or /admin), and the stream's status
 * events, seen on a second instance.
 */
describe('market API against market-api.md (eleventh audit, over HTTP)', () => {
  let database: DatabaseHandle & { url: string | null };
  let second: DatabaseHandle | null = null;
  let t: TestApp;
  let other: TestApp;
  let base: string;
  let otherBase: string;

  before(async () => {
    const env = { RATE_LIMIT_MARKET_PER_MINUTE: '1000000', SECRETS_KEY: randomBytes(32).toString('base64') };
    const redisPrefix = `t${randomBytes(6).toString('hex')}`;
    database = await freshDatabase();
    t = await startTestApp({ database, redisPrefix, env });
    second = database.url ? await openSameDatabase(database.url) : null;
    other = await startTestApp({ database: second ? { ...second, url: database.url } : database, redisPrefix, env });
    base = await t.listen();
    otherBase = await other.listen();
  });
  after(async () => {
    await t?.close();
    await other?.close();
    if (second) await second.close();
    await database.close();
  });
  afterEach(() => assertBooksBalanced(t.deps.db));

  const { call, admin, ok, send, trader, market: marketIn } = marketOverSocket(() => base);
  const market = (category: string, fields: Record<string, unknown> = {}) => marketIn(category, fields);

  describe('offset paging', () => {
    it('reads `offset` as the number of items to skip on every paged list, and says which page and offset it answers', async () => {
      const category = `off${randomBytes(3).toString('hex')}`;
      const ids: number[] = [];
      for (let i = 0; i < 5; i++) ids.push((await market(category)).id);
      const all = (await ok(call('GET', `/api/markets?category=${category}&limit=5`))) as { data: { id: number }[] };
      const order = all.data.map((m) => m.id);
      assert.deepEqual([...order].sort((x, y) => x - y), ids);
      assert.ok(!('offset' in all), 'an answer paged by page is unchanged');

      const at = async (q: string) => (await ok(call('GET', `/api/markets?category=${category}&${q}`))) as Record<string, unknown> & { data: { id: number }[] };
      const one = await at('limit=2&offset=1');
      assert.deepEqual(one.data.map((m) => m.id), order.slice(1, 3));
      assert.deepEqual({ ...one, data: null }, { success: true, data: null, total: 5, page: 1, limit: 2, offset: 1 });
      const last = await at('limit=2&offset=4');
      assert.deepEqual(last.data.map((m) => m.id), order.slice(4));
      assert.deepEqual([last.page, last.offset, last.total], [3, 4, 5]);
      const zero = await at('offset=0');
      assert.deepEqual([zero.data.length, zero.page, zero.offset, zero.limit], [5, 1, 0, 20]);
      const past = await at('offset=99&limit=3');
      assert.deepEqual([past.data.length, past.page, past.offset, past.total], [0, 34, 99, 5]);
      // Sorted lists page the same order.
      const byVolume = (await ok(call('GET', `/api/markets?category=${category}&sort=volume&limit=5`))) as { data: { id: number }[] };
      const vol = await at('sort=volume&limit=3&offset=2');
      assert.deepEqual(vol.data.map((m) => m.id), byVolume.data.map((m) => m.id).slice(2));

      // Events.
      const events: number[] = [];
      for (let i = 0; i < 3; i++) {
        events.push((await ok(admin('POST', '/admin/events', { title: `off event ${category} ${i}`, category }), 201)).id as number);
      }
      const eventPage = (await ok(call('GET', '/api/events?limit=3'))) as { data: { id: number }[] };
      const eventOffset = (await ok(call('GET', '/api/events?limit=2&offset=1'))) as Record<string, unknown> & { data: { id: number }[] };
      assert.deepEqual(eventOffset.data.map((e) => e.id), eventPage.data.map((e) => e.id).slice(1, 3));
      assert.deepEqual([eventOffset.page, eventOffset.offset, eventOffset.limit], [1, 1, 2]);

      // Trades, of one market and of all.
      const p = await trader('100');
      for (const amount of [1, 2, 3]) {
        await ok(send(p.viaKey, { method: 'POST', url: '/api/pool/trade', body: { wallet_addr: p.wallet, market_id: ids[0], side: 'yes', amount } }));
      }
      const trades = (await ok(call('GET', `/api/trades?market=${ids[0]}`))) as { data: { id: number; amount: number }[] };
      assert.deepEqual(trades.data.map((x) => x.amount), [3, 2, 1]);
      const tradeOffset = (await ok(call('GET', `/api/trades?market=${ids[0]}&offset=2&limit=1`))) as Record<string, unknown> & { data: { amount: number }[] };
      assert.deepEqual(tradeOffset.data.map((x) => x.amount), [1]);
      assert.deepEqual([tradeOffset.page, tradeOffset.offset, tradeOffset.total], [3, 2, 3]);
      const allTrades = (await ok(call('GET', '/api/trades?offset=1&limit=1'))) as { data: { amount: number }[]; offset: number };
      assert.deepEqual([allTrades.data.map((x) => x.amount), allTrades.offset], [[2], 1]);
    });

    it('refuses `page` with `offset` (400 naming both) and an offset that is not a count within the deepest page', async () => {
      for (const path of ['/api/markets', '/api/events', '/api/trades']) {
        for (const q of ['page=1&offset=0', 'offset=20&page=2', 'page=abc&offset=1']) {
          assert.deepEqual(await call('GET', `${path}?${q}`), { status: 400, body: { success: false, error: 'Invalid page and offset: send one of them, not both' } }, `${path}?${q}`);
        }
        for (const bad of ['-1', 'abc', '1e1', '1.5', '+1', '', '99999901', '1e400']) {
          assert.deepEqual(
            await call('GET', `${path}?offset=${bad}`),
            { status: 400, body: { success: false, error: 'Invalid offset: must be between 0 and 99999900' } },
            `${path}?offset=${bad}`,
          );
        }
        const deepest = await call('GET', `${path}?offset=99999900&limit=100`);
        assert.equal(deepest.status, 200, JSON.stringify(deepest.body));
        assert.deepEqual([deepest.body.page, deepest.body.offset, deepest.body.data], [1_000_000, 99_999_900, []]);
      }
    });

    it('documents `offset` in /openapi.json on every paged list', async () => {
      const doc = (await (await fetch(`${base}/openapi.json`)).json()) as {
        paths: Record<string, { get: { parameters: { name: string; in: string; schema: Record<string, unknown> }[]; responses: Record<string, { content: Record<string, { schema: { properties: Record<string, unknown> } }> }> } }>;
      };
      for (const path of ['/api/markets', '/api/events', '/api/trades']) {
        const op = doc.paths[path]!.get;
        const offset = op.parameters.find((p) => p.name === 'offset' && p.in === 'query');
        assert.ok(offset, `${path} documents offset`);
        assert.deepEqual([offset.schema.type, offset.schema.minimum, offset.schema.maximum], ['integer', 0, 99_999_900]);
        assert.ok(op.responses['200']!.content['application/json']!.schema.properties.offset, `${path}: the answer's offset`);
      }
    });
  });

  describe('CORS', () => {
    const origin = 'https://app.example.org';
    const allowed = (res: Response) => (res.headers.get('access-control-allow-headers') ?? '').split(',').map((h) => h.trim().toLowerCase());
    const exposed = (res: Response) => (res.headers.get('access-control-expose-headers') ?? '').split(',').map((h) => h.trim().toLowerCase());
    const preflight = (path: string, method: string, headers: string[]) =>
      fetch(`${base}${path}`, {
        method: 'OPTIONS',
        headers: { origin, 'access-control-request-method': method, 'access-control-request-headers': headers.join(',') },
      });

    /** The request header names an SDK sends from a browser (its fetch replaced by one that records them). */
    const sdkHeaders = async (run: (f: typeof fetch) => Promise<unknown>): Promise<string[]> => {
      let names: string[] = [];
      const record = (async (_url: unknown, init?: RequestInit) => {
        names = [...new Headers(init?.headers).keys()];
        return new Response('{}', { status: 400, headers: { 'content-type': 'application/json', 'x-should-retry': 'false' } });
      }) as typeof fetch;
      await run(record).catch(() => undefined);
      return names;
    };

    it('answers a preflight of the market API 204 with its methods and the signature headers, any origin, no credentials', async () => {
      const headers = ['content-type', 'x-api-key', 'x-api-timestamp', 'x-api-signature', 'x-wallet-signature', 'x-wallet-message', 'idempotency-key', 'x-request-id', 'if-none-match', 'last-event-id'];
      for (const [path, method] of [['/api/pool/trade', 'POST'], ['/api/markets', 'GET'], ['/api/users/0x0000000000000000000000000000000000000001', 'PUT'], ['/api/keys/mk_x', 'DELETE']] as const) {
        const res = await preflight(path, method, headers);
        assert.equal(res.status, 204, path);
        assert.equal(res.headers.get('access-control-allow-origin'), '*');
        assert.equal(res.headers.get('access-control-allow-credentials'), null);
        assert.ok((res.headers.get('access-control-allow-methods') ?? '').split(/,\s*/).includes(method), `${path}: ${res.headers.get('access-control-allow-methods')}`);
        for (const h of headers) assert.ok(allowed(res).includes(h), `${path}: ${h} allowed`);
        assert.equal(res.headers.get('access-control-max-age'), '600');
        assert.equal(await res.text(), '');
      }
      // An OPTIONS that is no preflight is still the unknown route, in each surface's shape.
      const plain = await fetch(`${base}/api/markets`, { method: 'OPTIONS' });
      assert.deepEqual([plain.status, await plain.json()], [404, { success: false, error: 'Not found' }]);
      const plainV1 = await fetch(`${base}/v1/models`, { method: 'OPTIONS', headers: { origin } });
      assert.equal(plainV1.status, 404);
      assert.match(((await plainV1.json()) as { error: string }).error, /not found/);
    });

    it('answers a preflight of the inference API with every header the official SDKs send from a browser', async () => {
      const openai = await sdkHeaders((f) =>
        new OpenAI({ apiKey: 'svk_x', baseURL: `${base}/v1`, dangerouslyAllowBrowser: true, fetch: f, maxRetries: 0, organization: 'org', project: 'p' }).chat.completions.create({
          model: 'svc-fast',
          messages: [{ role: 'user', content: 'hi' }],
        }),
      );
      const anthropic = await sdkHeaders((f) =>
        new Anthropic({ apiKey: 'svk_x', baseURL: `${base}/inference`, dangerouslyAllowBrowser: true, fetch: f, maxRetries: 0 }).messages.create({
          model: 'svc-fast',
          max_tokens: 10,
          messages: [{ role: 'user', content: 'hi' }],
        }, { headers: { 'anthropic-beta': 'x' } }),
      );
      assert.ok(openai.includes('authorization') && openai.includes('x-stainless-lang'), openai.join());
      assert.ok(anthropic.includes('anthropic-version') && anthropic.includes('anthropic-dangerous-direct-browser-access'), anthropic.join());
      for (const [path, sent] of [['/v1/chat/completions', openai], ['/inference/v1/messages', anthropic], ['/v1/messages', anthropic]] as const) {
        // Names the browser puts in the preflight: not the ones it may always send.
        // (the SDK version here authenticates with authorization; earlier ones and curl users send x-api-key).
        const names = [...sent.filter((h) => !['accept', 'content-type'].includes(h)), 'x-api-key', 'idempotency-key', 'x-request-id'];
        const res = await preflight(path, 'POST', [...names, 'content-type']);
        assert.equal(res.status, 204, path);
        assert.equal(res.headers.get('access-control-allow-origin'), '*');
        for (const h of [...names, 'content-type']) assert.ok(allowed(res).includes(h), `${path}: ${h} allowed (${res.headers.get('access-control-allow-headers')})`);
      }
    });

    it('marks real cross-origin answers, errors included, with any origin and the headers a client reads', async () => {
      const account = await createTestAccount(t, { credits: 1000 });
      const list = await fetch(`${base}/api/markets`, { headers: { origin } });
      assert.equal(list.status, 200);
      assert.equal(list.headers.get('access-control-allow-origin'), '*');
      assert.equal(list.headers.get('access-control-allow-credentials'), null);
      for (const h of ['x-request-id', 'x-ratelimit-limit-requests', 'x-ratelimit-remaining-requests', 'x-ratelimit-reset-requests', 'retry-after', 'etag', 'idempotent-replayed']) {
        assert.ok(exposed(list).includes(h), `${h} exposed`);
      }
      const missing = await fetch(`${base}/api/markets/999999`, { headers: { origin } });
      assert.equal(missing.status, 404);
      assert.equal(missing.headers.get('access-control-allow-origin'), '*');
      // The stream writes its own headers: an EventSource of another origin reads it too.
      const ac = new AbortController();
      const stream = await fetch(`${base}/api/stream`, { headers: { origin }, signal: ac.signal });
      assert.equal(stream.headers.get('access-control-allow-origin'), '*');
      ac.abort();
      const unsigned = await fetch(`${base}/api/pool/trade`, { method: 'POST', headers: { origin, 'content-type': 'application/json' }, body: '{}' });
      assert.equal(unsigned.status, 401);
      assert.equal(unsigned.headers.get('access-control-allow-origin'), '*');

      const models = await fetch(`${base}/v1/models`, { headers: { origin, authorization: `Bearer ${account.key}` } });
      assert.equal(models.status, 200);
      assert.equal(models.headers.get('access-control-allow-origin'), '*');
      for (const h of ['x-request-id', 'request-id', 'retry-after', 'x-should-retry', 'x-svc-model', 'x-svc-lane', 'x-ratelimit-remaining-requests']) {
        assert.ok(exposed(models).includes(h), `${h} exposed`);
      }
      const noKey = await fetch(`${base}/inference/v1/messages`, { method: 'POST', headers: { origin, 'content-type': 'application/json' }, body: '{}' });
      assert.equal(noKey.status, 401);
      assert.equal(noKey.headers.get('access-control-allow-origin'), '*');
      // The SDK in a browser, end to end.
      const client = new OpenAI({ apiKey: account.key, baseURL: `${base}/v1`, dangerouslyAllowBrowser: true, maxRetries: 0, defaultHeaders: { origin } });
      const answer = await client.chat.completions.create({ model: 'svc-fast', messages: [{ role: 'user', content: 'hi' }] }).withResponse();
      assert.equal(answer.response.headers.get('access-control-allow-origin'), '*');
    });

    it('gives the dashboard, /admin and the operations routes no CORS at all', async () => {
      for (const path of ['/dashboard/api/keys', '/admin/audit', '/healthz', '/openapi.json', '/']) {
        const pre = await preflight(path, 'POST', ['content-type', 'x-csrf-token']);
        assert.equal(pre.headers.get('access-control-allow-origin'), null, `${path} preflight`);
        assert.equal(pre.headers.get('access-control-allow-methods'), null, `${path} preflight`);
        assert.notEqual(pre.status, 204, path);
        const get = await fetch(`${base}${path}`, { headers: { origin } });
        for (const name of get.headers.keys()) assert.ok(!name.startsWith('access-control-'), `${path}: ${name}`);
      }
      const adminGet = await fetch(`${base}/admin/audit`, { headers: { origin, ...t.admin } });
      assert.equal(adminGet.status, 200);
      assert.equal(adminGet.headers.get('access-control-allow-origin'), null);
    });
  });

  describe('stream: settlement events', () => {
    it('tells every instance\'s stream readers when a market resolves, is cancelled or opens, and replays it after Last-Event-ID', async () => {
      const category = `st${randomBytes(3).toString('hex')}`;
      const resolved = await market(category);
      const cancelled = await market(category, { market_type: 'threeway' });
      const pending = await market(category, { status: 'pending' });
      const p = await trader('100');
      const traded = await ok(send(p.viaKey, { method: 'POST', url: '/api/pool/trade', body: { wallet_addr: p.wallet, market_id: resolved.id, side: 'yes', amount: 5 } }));
      const watchOther = await openStream(`${otherBase}/api/stream?markets=${resolved.id},${cancelled.id},${pending.id}`);
      const watchAll = await openStream(`${base}/api/stream`);
      const unrelated = await openStream(`${otherBase}/api/stream?markets=${(await market(category)).id}`);

      await ok(admin('POST', `/admin/markets/${resolved.id}/resolve`, { outcome: 'yes' }));
      await ok(admin('POST', `/admin/markets/${cancelled.id}/cancel`));
      await ok(admin('POST', `/admin/markets/${pending.id}/activate`));
      const detail = async (id: number) => (await ok(call('GET', `/api/markets/${id}`))).data as Record<string, unknown>;
      const expected = async (id: number) => {
        const d = await detail(id);
        return { market_id: id, status: d.status, resolved_outcome: d.resolved_outcome, resolved_at: d.resolved_at, cancelled_at: d.cancelled_at };
      };
      for (const s of [watchOther, watchAll]) {
        const seen = async (id: number) => JSON.parse((await s.until((e) => e.event === 'status' && JSON.parse(e.data!).market_id === id)).data!);
        assert.deepEqual(await seen(resolved.id), await expected(resolved.id));
        assert.deepEqual(await seen(cancelled.id), await expected(cancelled.id));
        assert.deepEqual(await seen(pending.id), await expected(pending.id));
      }
      assert.equal((await expected(resolved.id)).status, 'resolved');
      assert.equal((await expected(resolved.id)).resolved_outcome, 'yes');
      assert.match(String((await expected(resolved.id)).resolved_at), /^\d{4}-\d\d-\d\dT/);
      assert.equal((await expected(cancelled.id)).status, 'cancelled');
      assert.equal((await expected(pending.id)).status, 'active');
      // A status event carries no id: Last-Event-ID stays the last trade's.
      assert.ok(watchOther.events.filter((e) => e.event === 'status').every((e) => e.id === undefined));
      assert.ok(!unrelated.events.some((e) => e.event === 'status'), 'only the markets asked for');
      // A reader back after the trade gets what followed it, the settlement included.
      const resumed = await openStream(`${otherBase}/api/stream?markets=${resolved.id}`, { 'last-event-id': String(traded.data.trade_id) });
      const again = await resumed.until((e) => e.event === 'status');
      assert.deepEqual(JSON.parse(again.data!), await expected(resolved.id));
      for (const s of [watchOther, watchAll, unrelated, resumed]) s.close();
    });
  });
});
