import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, afterEach, before, describe, it } from 'node:test';
import type { TestApp } from './helpers/app.ts';
import { assertBooksBalanced } from './helpers/market.ts';
import { marketOverSocket, startMarketOverSocket } from './helpers/market-socket.ts';

/**
 * The seventh audit of the market API against market-api.md (docs/api-decisions.md, "Market API:
 * seventh audit"), over a real socket, as a trader, a bot and an operator meet it.
 */
describe('market API against market-api.md (seventh audit, over HTTP)', () => {
  let t: TestApp;
  let base: string;

  before(async () => void ({ t, base } = await startMarketOverSocket()));
  after(() => t.close());
  afterEach(() => assertBooksBalanced(t.deps.db));

  const { call, admin, ok } = marketOverSocket(() => base);

  it('gives every event a slug that GET /api/events/:slugOrId serves: none of digits only, none named like the featured route', async () => {
    const first = await ok(admin('POST', '/admin/events', { title: 'First of all', category: 'politics' }), 201);
    const created = [];
    for (const title of ['Featured', String(first.id), '2028', '  42  ', 'FEATURED!']) {
      created.push(await ok(admin('POST', '/admin/events', { title, category: 'politics' }), 201));
    }
    for (const event of created) {
      const r = await call('GET', `/api/events/${event.slug}`);
      assert.equal(r.status, 200, event.slug);
      assert.equal(r.body.data.id, event.id, `${event.title} -> ${event.slug}`);
      assert.doesNotMatch(event.slug, /^[0-9]+$/);
      assert.notEqual(event.slug, 'featured');
    }
    // Two events of the same digits get the usual numbered slugs, still not digits only.
    const again = await ok(admin('POST', '/admin/events', { title: '2028', category: 'politics' }), 201);
    assert.equal((await call('GET', `/api/events/${again.slug}`)).body.data.id, again.id);
    // The routes keep their meaning: the featured event (none yet), an id.
    assert.deepEqual((await call('GET', '/api/events/featured')).body, { success: true, data: null });
    assert.equal((await call('GET', `/api/events/${first.id}`)).body.data.title, 'First of all');
    // Titles that are not at risk keep their plain slug.
    assert.equal(created.length, 5);
    assert.equal((await ok(admin('POST', '/admin/events', { title: 'Featured races 2028', category: 'politics' }), 201)).slug, 'featured-races-2028');
  });
});

describe('market API, seventh audit: what the code cites', () => {
  function files(dir: string): string[] {
    return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []));
  }

  it('cites only docs/ files that exist (the estimate and the stream were cited from pages that never did)', () => {
    const missing: string[] = [];
    for (const file of files('src')) {
      for (const [cited] of readFileSync(file, 'utf8').matchAll(/docs\/[A-Za-z0-9_.-]+\.md/g)) {
        if (!existsSync(cited)) missing.push(`${file}: ${cited}`);
      }
    }
    assert.deepEqual(missing, []);
  });

  it('writes down the decisions the spec leaves open that the market answers carry: the estimate, the draw side of a trade', () => {
    const decisions = readFileSync('docs/api-decisions.md', 'utf8');
    for (const word of ['POST /api/pool/estimate', 'payout_if_win', 'profit_if_win', 'draw_pool', 'new_draw_price']) {
      assert.ok(decisions.includes(word), word);
    }
  });
});
