/**
 * The examples of issue 14, one test each: numbers and text the database cannot hold, coerced
 * admin bodies, a PUT without a body, foreign charsets, slugs under concurrency, an upstream's
 * name in an image answer, readiness and outages, and the optional query parameters of the
 * OpenAPI document. (The fuzz suite, fuzz-openapi.test.ts, sweeps every route besides.)
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { UPSTREAM_MODELS, startGateway, type Gateway } from './helpers/gateway.ts';
import { createTestAccount } from './helpers/inference.ts';
import { manualClock } from './helpers/market.ts';
import { marketHttp } from './helpers/market-http.ts';
import { closedPort } from './helpers/closed-port.ts';

const LEAK = /127\.0\.0\.1|localhost|:\d{2,5}\b|ECONNREFUSED|\/work\/|\bat \S+ \(/;

// One app for every test that leaves its dependencies up.
let t: TestApp;
before(async () => {
  t = await startTestApp({ env: { RATE_LIMIT_MARKET_PER_MINUTE: '100000' } });
});
after(() => t.close());

describe('input the database cannot hold', () => {
  const get = (url: string, admin = false) => t.app.inject({ url, headers: admin ? t.admin : {} });

  for (const v of ['1e309', 'Infinity', '9223372036854775808']) {
    it(`answers an id or page of ${v} with 400 naming the field, on public and admin routes`, async () => {
      for (const [url, field, admin] of [
        [`/api/markets/${v}`, 'id', false],
        [`/api/markets/${v}/price`, 'id', false],
        [`/api/markets?page=${v}`, 'page', false],
        [`/api/trades?market=${v}`, 'market', false],
        [`/admin/accounts/${v}`, 'id', true],
        [`/admin/withdrawals?before=${v}`, 'before', true],
        [`/admin/withdrawals?limit=${v}`, 'limit', true],
        [`/admin/accounts/1/usage?limit=${v}`, 'limit', true],
      ] as const) {
        const r = await get(url, admin);
        assert.equal(r.statusCode, 400, `${url}: ${r.body}`);
        assert.match(r.json().error, new RegExp(`\\b${field}\\b`, 'i'), url);
      }
    });
  }

  it('answers a withdrawal id past the integer column with 400, not the database error', async () => {
    const r = await get('/admin/withdrawals?before=2147483648', true);
    assert.equal(r.statusCode, 400, r.body);
    assert.match(r.json().error, /before/);
  });

  it('answers a NUL byte in a note, a key name or a path segment with 400 naming the field', async () => {
    const account = await createTestAccount(t, {});
    const note = await t.app.inject({ method: 'POST', url: `/admin/accounts/${account.id}/credits`, headers: t.admin, payload: { credits: 1, note: 'a\u0000b' } });
    assert.equal(note.statusCode, 400, note.body);
    assert.match(note.json().error, /note/);
    const name = await t.app.inject({ method: 'POST', url: `/admin/accounts/${account.id}/keys`, headers: t.admin, payload: { name: '\u0000' } });
    assert.equal(name.statusCode, 400, name.body);
    assert.match(name.json().error, /name/);
    const lone = await t.app.inject({
      method: 'POST',
      url: `/admin/accounts/${account.id}/keys`,
      headers: { ...t.admin, 'content-type': 'application/json' },
      payload: '{"name":"\\ud800"}',
    });
    assert.equal(lone.statusCode, 400, lone.body);
    const path = await get('/api/events/a%00b');
    assert.equal(path.statusCode, 400, path.body);
  });

  it('takes admin bodies as typed: credits: true and title: ["x"] are 400, nothing granted or created', async () => {
    const account = await createTestAccount(t, {});
    const grant = await t.app.inject({ method: 'POST', url: `/admin/accounts/${account.id}/credits`, headers: t.admin, payload: { credits: true } });
    assert.equal(grant.statusCode, 400, grant.body);
    assert.match(grant.json().error, /credits/);
    const shown = await get(`/admin/accounts/${account.id}`, true);
    assert.equal(shown.json().credits_micro, '0');
    const market = await t.app.inject({
      method: 'POST',
      url: '/admin/markets',
      headers: t.admin,
      payload: { title: ['x'], category: 'test', market_type: 'yesno', end_date: new Date(Date.now() + 86_400_000).toISOString() },
    });
    assert.equal(market.statusCode, 400, market.body);
    assert.match(market.json().error, /title/);
  });

  it('refuses a declared charset other than UTF-8 with 415', async () => {
    for (const url of ['/admin/accounts', '/api/pool/estimate']) {
      const r = await t.app.inject({ method: 'POST', url, headers: { ...t.admin, 'content-type': 'application/json; charset=latin1' }, payload: '{}' });
      assert.equal(r.statusCode, 415, `${url}: ${r.body}`);
    }
    const ok = await t.app.inject({
      method: 'POST',
      url: '/admin/accounts',
      headers: { ...t.admin, 'content-type': 'application/json; charset=UTF-8' },
      payload: JSON.stringify({ email: 'charset@example.com' }),
    });
    assert.equal(ok.statusCode, 201, ok.body);
  });

  it('answers a signed PUT /api/users/:wallet with an empty or null body with 400', async () => {
    const clock = manualClock(Date.now());
    const m = marketHttp(t, clock);
    const trader = await m.trader();
    const url = `/api/users/${trader.wallet}`;
    const empty = await m.send(trader.viaWallet, { method: 'PUT', url });
    assert.equal(empty.status, 400, JSON.stringify(empty.body));
    const nullBody = await m.send(trader.viaWallet, { method: 'PUT', url, body: 'null' });
    assert.equal(nullBody.status, 400, JSON.stringify(nullBody.body));
    const set = await m.send(trader.viaWallet, { method: 'PUT', url, body: { username: 'fuzzy' } });
    assert.equal(set.status, 200, JSON.stringify(set.body));
  });
});

describe('slugs under concurrency', () => {
  for (const kind of ['markets', 'events'] as const) {
    it(`creates ${kind} with one title in parallel: each gets its own slug, or 409, never 500`, async () => {
      const end = new Date(Date.now() + 86_400_000).toISOString();
      const body = { title: `Same title ${kind}`, category: 'test', end_date: end, ...(kind === 'markets' ? { market_type: 'yesno' } : {}) };
      const answers = await Promise.all(
        Array.from({ length: 12 }, () => t.app.inject({ method: 'POST', url: `/admin/${kind}`, headers: t.admin, payload: body })),
      );
      const statuses = answers.map((a) => a.statusCode);
      assert.ok(statuses.every((s) => s === 201 || s === 409), statuses.join(','));
      const slugs = answers.filter((a) => a.statusCode === 201).map((a) => a.json().slug as string);
      assert.ok(slugs.length >= 1);
      assert.equal(new Set(slugs).size, slugs.length, 'slugs are distinct');
      for (const s of slugs) assert.match(s, new RegExp(`^same-title-${kind}(-[0-9a-z]+)?$`));
    });
  }
});

describe("an image answer's revised_prompt", () => {
  let g: Gateway;
  before(async () => {
    g = await startGateway();
  });
  after(() => g.close());

  it('reaches the client redacted, without the upstream model or host', async () => {
    g.openai.imagesAsUrl = true;
    g.openai.revisedPromptSuffix = `, as drawn by ${UPSTREAM_MODELS.image} (OpenAI) at ${g.openai.url}`;
    const account = await createTestAccount(g.t, { credits: 1000 });
    const r = await fetch(`${g.t.url}/v1/images/generations`, {
      method: 'POST',
      headers: { authorization: `Bearer ${account.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'svc-image', prompt: 'a red circle' }),
    });
    const text = await r.text();
    assert.equal(r.status, 200, text);
    const revised = JSON.parse(text).data[0].revised_prompt as string;
    assert.match(revised, /^a red circle, as drawn by svc-image/);
    assert.doesNotMatch(text, new RegExp(`${UPSTREAM_MODELS.image}|openai|127\\.0\\.0\\.1`, 'i'));
  });
});

describe('readiness and outages', () => {
  it('reports each dependency without addresses, 200 when they answer', async () => {
    const r = await t.app.inject('/readyz');
    assert.equal(r.statusCode, 200, r.body);
    const body = r.json();
    assert.equal(body.status, 'ready');
    assert.equal(body.checks.database, 'ok');
    if (process.env.REDIS_URL) assert.equal(body.checks.redis, 'ok');
    assert.equal(typeof body.checks.upstreams, 'object');
  });

  it('answers 503 while Redis is down, naming no host or port', async () => {
    const port = await closedPort();
    const noRedis = await startTestApp({ env: { REDIS_URL: `redis://127.0.0.1:${port}` } });
    try {
      const r = await noRedis.app.inject('/readyz');
      assert.equal(r.statusCode, 503, r.body);
      assert.equal(r.json().checks.redis, 'down');
      assert.equal(r.json().checks.database, 'ok');
      assert.ok(r.headers['retry-after']);
      assert.doesNotMatch(r.body, LEAK);
      assert.doesNotMatch(r.body, new RegExp(String(port)));
    } finally {
      await noRedis.close();
    }
  });

  it('answers 503 with retry-after on /readyz and on any route while the database is down, naming no host or port', async () => {
    const down = await startTestApp();
    await down.database.close();
    try {
      const ready = await down.app.inject('/readyz');
      assert.equal(ready.statusCode, 503, ready.body);
      assert.equal(ready.json().checks.database, 'down');
      assert.doesNotMatch(ready.body, LEAK);
      for (const [url, admin] of [['/api/markets', false], ['/api/markets/1', false], ['/admin/accounts/1', true]] as const) {
        const r = await down.app.inject({ url, headers: admin ? down.admin : {} });
        assert.equal(r.statusCode, 503, `${url}: ${r.body}`);
        assert.ok(r.headers['retry-after'], url);
        assert.doesNotMatch(r.body, LEAK);
      }
    } finally {
      await down.close().catch(() => {});
    }
  });
});

describe('/openapi.json', () => {
  it('does not mark optional query parameters (page, limit) as required', async () => {
    const doc = (await t.app.inject('/openapi.json')).json();
    for (const path of ['/api/markets', '/api/events', '/api/trades']) {
      const params = doc.paths[path].get.parameters as { name: string; in: string; required?: boolean }[];
      for (const name of ['page', 'limit']) {
        const p = params.find((x) => x.name === name && x.in === 'query');
        assert.ok(p, `${path} documents ${name}`);
        assert.notEqual(p.required, true, `${path} ${name}`);
      }
    }
    const search = (doc.paths['/api/search'].get.parameters as { name: string; required?: boolean }[]).find((x) => x.name === 'q');
    assert.equal(search?.required, true, 'a parameter without a default stays required');
  });
});

