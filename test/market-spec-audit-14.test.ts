import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { marketAuditSuite } from './helpers/market-socket.ts';
import { dashboardSession } from './helpers/dashboard-session.ts';
import { chromiumSkip, launchChromium, signUpInPage } from './helpers/chromium.ts';

/**
 * The fourteenth audit of the market API: what a user coming from Polymarket or Kalshi reaches
 * for (docs/api-decisions.md, "Market API: fourteenth audit"), over a real socket.
 */
describe('market API for a Polymarket/Kalshi user (fourteenth audit, over HTTP)', () => {
  const { app, base, call, admin, ok, send, trader, market } = marketAuditSuite();

  describe('event slugs in any case', () => {
    it('GET /api/events/:slug finds the event whatever the case of the slug in the URL', async () => {
      const tag = Math.random().toString(36).slice(2, 8);
      const ev = (await ok(admin('POST', '/admin/events', { title: `Election 2028 ${tag}`, category: 'audit14' }), 201)) as { id: number; slug: string };
      assert.equal(ev.slug, `election-2028-${tag}`);
      for (const asked of [ev.slug, ev.slug.toUpperCase(), `Election-2028-${tag}`]) {
        const a = await call('GET', `/api/events/${asked}`);
        assert.equal(a.status, 200, `${asked}: ${JSON.stringify(a.body)}`);
        assert.equal(a.body.data.id, ev.id);
        assert.equal(a.body.data.slug, ev.slug, 'the stored slug is answered');
      }
      assert.equal((await call('GET', `/api/events/Election-2028-${tag}-X`)).status, 404);
    });
  });
  describe('Polymarket\'s list filters active and closed', () => {
    it('maps active= and closed= onto status, combines them with status, refuses a bad boolean naming it, and caches each filter apart', async () => {
      const category = `pm14${Math.random().toString(36).slice(2, 8)}`;
      const active = await market(category);
      const pending = await market(category, { status: 'pending' });
      const resolved = await market(category);
      await ok(admin('POST', `/admin/markets/${resolved.id}/resolve`, { outcome: 'yes' }));
      const cancelled = await market(category);
      await ok(admin('POST', `/admin/markets/${cancelled.id}/cancel`));
      const list = async (query: string) => {
        const body = await ok(call('GET', `/api/markets?category=${category}&${query}`));
        const ids = (body.data as { id: number }[]).map((m) => m.id).sort((a, b) => a - b);
        assert.equal(body.total, ids.length, `${query}: total counts the same markets`);
        return ids;
      };
      const sorted = (...ms: { id: number }[]) => ms.map((m) => m.id).sort((a, b) => a - b);
      assert.deepEqual(await list(''), sorted(active, pending, resolved, cancelled));
      assert.deepEqual(await list('active=true'), sorted(active));
      assert.deepEqual(await list('active=false'), sorted(pending, resolved, cancelled));
      assert.deepEqual(await list('closed=true'), sorted(resolved, cancelled));
      assert.deepEqual(await list('closed=false'), sorted(active, pending));
      // Polymarket's usual "open markets" query.
      assert.deepEqual(await list('active=true&closed=false'), sorted(active));
      assert.deepEqual(await list('active=false&closed=false'), sorted(pending));
      assert.deepEqual(await list('active=false&closed=true'), sorted(resolved, cancelled));
      // With status: the markets that meet both; a contradiction is an empty list, not an error.
      assert.deepEqual(await list('status=resolved&closed=true'), sorted(resolved));
      assert.deepEqual(await list('status=pending&closed=false'), sorted(pending));
      assert.deepEqual(await list('status=active&active=true'), sorted(active));
      assert.deepEqual(await list('status=resolved&closed=false'), []);
      assert.deepEqual(await list('status=pending&active=true'), []);
      assert.deepEqual(await list('active=true&closed=true'), []);
      // The whole list (no category) obeys them too, its total from the counts table.
      const all = await ok(call('GET', '/api/markets?closed=true&limit=100'));
      assert.ok(all.data.every((m: { status: string }) => m.status === 'resolved' || m.status === 'cancelled'));
      assert.ok(all.total >= 2);
      const none = await ok(call('GET', '/api/markets?active=true&closed=true'));
      assert.deepEqual([none.data, none.total], [[], 0]);
      // Bad booleans are 400 naming the parameter.
      for (const [name, value] of [['active', 'yes'], ['active', 'TRUE'], ['active', ''], ['closed', '1'], ['closed', 'False']]) {
        assert.deepEqual(await call('GET', `/api/markets?${name}=${value}`), {
          status: 400,
          body: { success: false, error: `Invalid ${name}: must be one of true, false` },
        }, `${name}=${value}`);
      }
      const twice = await call('GET', '/api/markets?closed=true&closed=false');
      assert.equal(twice.status, 400);
      assert.match(twice.body.error, /closed/);
      // The in-memory answers are kept per query: a filter asked again after another still answers its own.
      assert.deepEqual(await list('closed=true'), sorted(resolved, cancelled));
      assert.deepEqual(await list('closed=false'), sorted(active, pending));
      // A market leaving the open set leaves the open list at once.
      await ok(admin('POST', `/admin/markets/${active.id}/cancel`));
      assert.deepEqual(await list('closed=false'), sorted(pending));
      assert.deepEqual(await list('closed=true'), sorted(active, resolved, cancelled));
    });
  });
  describe('price history by startTs and endTs', () => {
    it('samples the window asked in unix seconds, clamped to the market\'s life and now, and refuses bad bounds naming them', async () => {
      const m = await market('hist14');
      const detail = await ok(call('GET', `/api/markets/${m.id}`));
      const opened = Math.floor(Date.parse(detail.data.created_at) / 1000);
      const p = await trader('20');
      await ok(send(p.viaKey, { method: 'POST', url: '/api/pool/trade', body: { wallet_addr: p.wallet, market_id: m.id, side: 'yes', amount: 10 } }));
      const after = (await ok(call('GET', `/api/markets/${m.id}/price`))).data.yes_price;
      const history = (query: string) => call('GET', `/api/markets/${m.id}/history?${query}`);
      const now = () => Math.floor(Date.now() / 1000);

      // A window reaching back before the opening starts at the opening; no endTs ends it now.
      const asked = now();
      const a = (await ok(history(`startTs=${opened - 86_400}`))).data;
      assert.equal(a.interval, 'custom');
      assert.equal(a.fidelity, 1, 'a window under an hour gets 1-minute points, as interval=1h');
      assert.equal(a.start_ts, opened);
      assert.ok(a.end_ts >= asked && a.end_ts <= now(), 'ends now');
      assert.equal(a.history[0].t, opened);
      // The opening's 0.5, unless the trade fell in the same second (samples of one second collapse into the later).
      assert.ok([0.5, after].includes(a.history[0].p));
      assert.equal(a.history.at(-1).t, a.end_ts);
      assert.equal(a.history.at(-1).p, after);
      assert.deepEqual(Object.keys(a.history[0]).sort(), ['p', 'prices', 't']);
      // An endTs ahead of now is read as now; endTs alone starts at the opening.
      const b = (await ok(history(`endTs=${now() + 3_600}&fidelity=5&outcome=no`))).data;
      assert.equal(b.start_ts, opened);
      assert.ok(b.end_ts <= now());
      assert.equal(b.fidelity, 5);
      assert.equal(b.outcome, 'no');
      assert.equal(b.history.at(-1).p, b.history.at(-1).prices.no);
      // A window wholly before the market existed, or ahead of now, has no points.
      const before = (await ok(history(`startTs=${opened - 7_200}&endTs=${opened - 3_600}`))).data;
      assert.deepEqual(before.history, []);
      const ahead = (await ok(history(`startTs=${now() + 3_600}`))).data;
      assert.deepEqual(ahead.history, []);
      // startTs = endTs is one point.
      const one = (await ok(history(`startTs=${opened}&endTs=${opened}`))).data;
      assert.deepEqual(one.history.map((pt: { t: number }) => pt.t), [opened]);
      // The default interval answer is unchanged (no window fields).
      const day = (await ok(history(''))).data;
      assert.equal(day.interval, '1d');
      assert.ok(!('start_ts' in day));

      const refused = (query: string, error: string) =>
        history(query).then((r) => assert.deepEqual(r, { status: 400, body: { success: false, error } }, query));
      await refused(`startTs=${opened}&endTs=${opened - 1}`, 'Invalid startTs: must not be after endTs');
      for (const name of ['startTs', 'endTs']) {
        for (const bad of ['-1', '1.5', 'abc', '', '1e3x', '99999999999999']) {
          await refused(`${name}=${bad}`, `Invalid ${name}: must be between 0 and 253402300799`);
        }
      }
      await refused(`interval=1w&startTs=${opened}`, 'Invalid interval: cannot be combined with startTs or endTs');
      await refused(`interval=1h&endTs=${opened}`, 'Invalid interval: cannot be combined with startTs or endTs');
      // The point cap holds for windows as for intervals (the market is new, so only a window
      // far back from now would exceed it, and such a window is clamped to the opening).
      assert.equal((await history(`startTs=0&fidelity=1`)).status, 200);
    });
  });
  describe('the dashboard: a person reading the credits ledger', () => {
    it('pages GET /dashboard/api/credits with limit and a before cursor, back to the first row, and refuses bad values naming them', async () => {
      const browser = await dashboardSession(base());
      const email = `ledger14-${Date.now()}@example.com`;
      assert.equal((await browser.call('POST', '/sign-up', { email, password: 'a long passphrase' })).status, 201);
      await browser.refresh();
      const account = await app().deps.db.selectFrom('accounts').select('id').where('email', '=', email).executeTakeFirstOrThrow();
      for (let i = 1; i <= 7; i++) await ok(admin('POST', `/admin/accounts/${account.id}/credits`, { credits: i, note: `grant ${i}` }));
      const whole = await browser.call('GET', '/credits');
      assert.equal(whole.status, 200);
      const all = whole.json.ledger as { id: number; note: string | null }[];
      assert.ok(all.length >= 7, 'the default page still shows the latest rows');
      assert.deepEqual(all.slice(0, 7).map((l) => l.note), ['grant 7', 'grant 6', 'grant 5', 'grant 4', 'grant 3', 'grant 2', 'grant 1']);
      assert.equal(whole.json.next_before, null, 'nothing older than the whole ledger');
      // Page by 3: the pages joined are the whole ledger, newest first, each row once.
      const seen: number[] = [];
      let path = '/credits?limit=3';
      for (let pages = 0; pages < 10; pages++) {
        const page = await browser.call('GET', path);
        assert.equal(page.status, 200, JSON.stringify(page.json));
        const rows = page.json.ledger as { id: number }[];
        assert.ok(rows.length <= 3);
        seen.push(...rows.map((r) => r.id));
        if (page.json.next_before === null) break;
        assert.equal(page.json.next_before, rows.at(-1)!.id);
        path = `/credits?limit=3&before=${page.json.next_before}`;
      }
      assert.deepEqual(seen, all.map((l) => l.id));
      // A cursor past the oldest row is an empty page.
      const past = await browser.call('GET', `/credits?before=${all.at(-1)!.id}`);
      assert.deepEqual([past.json.ledger, past.json.next_before], [[], null]);
      for (const [query, error] of [
        ['limit=0', 'limit: must be a whole number from 1 to 100'],
        ['limit=101', 'limit: must be a whole number from 1 to 100'],
        ['limit=1.5', 'limit: must be a whole number from 1 to 100'],
        ['limit=', 'limit: must be a whole number from 1 to 100'],
        ['before=0', 'before: must be a ledger row id (a whole number from 1)'],
        ['before=-3', 'before: must be a ledger row id (a whole number from 1)'],
        ['before=abc', 'before: must be a ledger row id (a whole number from 1)'],
      ]) {
        const r = await browser.call('GET', `/credits?${query}`);
        assert.deepEqual({ status: r.status, json: r.json }, { status: 400, json: { error } }, query);
      }
    });
  });
  describe('the dashboard in Chromium: the credits page pages its ledger', { skip: chromiumSkip }, () => {
    it('shows 25 rows, an Older link to the rest and a Newest link back', async () => {
      const browser = await launchChromium();
      try {
        const ctx = await browser.newContext({ viewport: { width: 1200, height: 900 } });
        const page = await ctx.newPage();
        const email = `ledger14-page-${Date.now()}@example.com`;
        await signUpInPage(page, base(), email, 'a long passphrase');
        const account = await app().deps.db.selectFrom('accounts').select('id').where('email', '=', email).executeTakeFirstOrThrow();
        for (let i = 1; i <= 30; i++) await ok(admin('POST', `/admin/accounts/${account.id}/credits`, { credits: i, note: `grant ${i}` }));
        const total = (await app().deps.db.selectFrom('credit_ledger').select('id').where('account_id', '=', account.id).execute()).length;
        const rows = page.locator('main table tbody tr');
        await page.goto(`${base()}/account/credits`);
        await page.getByRole('link', { name: 'Older' }).waitFor();
        assert.equal(await rows.count(), 25);
        assert.equal(await rows.first().locator('td').nth(4).textContent(), 'grant 30');
        assert.equal(await page.getByRole('link', { name: 'Newest' }).count(), 0, 'no Newest link on the newest page');
        await page.getByRole('link', { name: 'Older' }).click();
        await page.waitForURL(/\/account\/credits\?before=\d+$/);
        await page.getByRole('link', { name: 'Newest' }).waitFor();
        assert.equal(await rows.count(), total - 25);
        assert.equal(await rows.first().locator('td').nth(4).textContent(), 'grant 5');
        assert.equal(await page.getByRole('link', { name: 'Older' }).count(), 0, 'the oldest page has no Older link');
        await page.getByRole('link', { name: 'Newest' }).click();
        await page.waitForURL(`${base()}/account/credits`);
        await page.getByRole('link', { name: 'Older' }).waitFor();
        assert.equal(await rows.first().locator('td').nth(4).textContent(), 'grant 30');
        await ctx.close();
      } finally {
        await browser.close();
      }
    });
  });
});
