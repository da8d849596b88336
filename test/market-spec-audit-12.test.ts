import assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';
import { describe, it } from 'node:test';
import { marketAuditSuite } from './helpers/market-socket.ts';

/**
 * The twelfth audit of the market API against market-api.md and market-math.md
 * (docs/api-decisions.md, "Market API: twelfth audit"), over a real socket.
 */
describe('market API against market-api.md (twelfth audit, over HTTP)', () => {
  const { base, call, market, trader, send } = marketAuditSuite();
  const search = (q: string) => call('GET', `/api/search?q=${encodeURIComponent(q)}`);

  describe('search: "at least 2 characters"', () => {
    it('counts characters, not UTF-16 code units, once the surrounding spaces are off', async () => {
      const m = await market('moon', { title: 'Moon 🚀🚀 launch' });
      const tooShort = { status: 400, body: { success: false, error: 'Invalid q: must be between 2 and 200 characters' } };
      // One character (an emoji is one character, two UTF-16 code units), with or without spaces.
      for (const q of ['🚀', '🚀 ', ' 🚀', '  🚀  ', 'é ', ' x']) assert.deepEqual(await search(q), tooShort, JSON.stringify(q));
      // Two characters, astral or not, are a query.
      for (const q of ['🚀🚀', ' 🚀🚀 ', 'on']) {
        const a = await search(q);
        assert.equal(a.status, 200, `${JSON.stringify(q)}: ${JSON.stringify(a.body)}`);
        assert.ok(a.body.data.markets.some((x: { id: number }) => x.id === m.id), JSON.stringify(q));
      }
    });
  });

  describe('q: every word a client sends is matched', () => {
    it('matches every word, however many, instead of ignoring those past the eighth', async () => {
      const m = await market('words', { title: 'Bitcoin above 100k by June', description: 'Will BTC close higher' });
      const list = (q: string) => call('GET', `/api/markets?category=words&q=${encodeURIComponent(q)}`);
      // Nine distinct words, the last in no market: it used to be dropped, listing a market without it.
      const nine = 'bitcoin above 100k by june btc close higher zzzz';
      assert.deepEqual((await search(nine)).body.data.markets, []);
      assert.equal((await list(nine)).body.total, 0);
      // A market's whole title and description, word for word, finds it: the way a user pastes one.
      const whole = 'Bitcoin above 100k by June Will BTC close higher words';
      assert.deepEqual((await search(whole)).body.data.markets.map((x: { id: number }) => x.id), [m.id]);
      assert.deepEqual((await list(whole)).body.data.map((x: { id: number }) => x.id), [m.id]);
      // Repeated words and parts of longer ones match where the longer ones do.
      const implied = 'bitcoin bit coin itc above abo bove 100k 100 by june bitcoin';
      assert.deepEqual((await search(implied)).body.data.markets.map((x: { id: number }) => x.id), [m.id]);
      assert.deepEqual((await list(implied)).body.data.map((x: { id: number }) => x.id), [m.id]);
    });
  });

  describe('a compressed body', () => {
    it('is 415 naming the encoding rule, not `malformed JSON body`; identity and body-less requests pass', async () => {
      const m = await market('gzip');
      const p = await trader('10');
      const body = JSON.stringify({ wallet_addr: p.wallet, market_id: m.id, side: 'yes', amount: 1 });
      const refused = { status: 415, body: { success: false, error: 'unsupported content-encoding; send the body uncompressed' } };
      for (const [path, encoding] of [['/api/pool/estimate', 'gzip'], ['/api/pool/trade', 'gzip'], ['/api/pool/trade', 'deflate'], ['/api/pool/estimate', 'br']] as const) {
        const res = await fetch(`${base()}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', 'content-encoding': encoding }, body: gzipSync(body) });
        assert.deepEqual({ status: res.status, body: await res.json() }, refused, `${path} ${encoding}`);
      }
      // The bytes as sent, declared `identity`, are a body like any other.
      const estimate = await fetch(`${base()}/api/pool/estimate`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-encoding': 'identity' },
        body: JSON.stringify({ market_id: m.id, side: 'yes', amount: 1 }),
      });
      assert.equal(estimate.status, 200);
      // A GET carrying the header has no body to refuse.
      const list = await fetch(`${base()}/api/markets?category=gzip`, { headers: { 'content-encoding': 'gzip' } });
      assert.equal(list.status, 200);
      // Nothing was traded by the refused requests; a plain signed trade still goes through.
      assert.equal((await call('GET', `/api/pool/balance/${p.wallet}`)).body.data.balance, 10);
      assert.equal((await send(p.viaKey, { method: 'POST', url: '/api/pool/trade', body: JSON.parse(body) })).status, 200);
    });
  });
});
