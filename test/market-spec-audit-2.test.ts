import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { marketAuditSuite } from './helpers/market-socket.ts';
import { tradeBody } from './helpers/market-client.ts';

/**
 * The second fresh-eyes audit of the market API against market-api.md and market-math.md, over a
 * real socket with fetch and the server's own clock. Each case is a gap the earlier audits
 * (market-spec-audit.test.ts, market-polish.test.ts) did not cover.
 */

describe('market API against market-api.md (second audit, over HTTP)', () => {
  const { base, call, admin, ok, send, trader, endIn, market: marketIn } = marketAuditSuite();
  const market = (fields: Record<string, unknown> = {}) => marketIn('audit2', fields);
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
      const res = await fetch(`${base()}/api/stream?${q}`);
      assert.equal(res.status, 404, q);
      assert.deepEqual(await res.json(), { success: false, error: 'Market not found' }, q);
    }
    // A stream of markets that exist opens as before.
    const ctrl = new AbortController();
    const open = await fetch(`${base()}/api/stream?markets=${real.id}`, { signal: ctrl.signal });
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
