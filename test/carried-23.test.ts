import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { postJson, startGateway, type Gateway } from './helpers/gateway.ts';
import { createTestAccount, type TestAccount } from './helpers/inference.ts';

/**
 * Carried items of session 23 (docs/api-decisions.md, "Carried items: session 23"), end to end
 * through real HTTP and the official SDKs against fake upstreams on loopback.
 */

const FORBIDDEN = (path: string) => `forbidden field name: ${path} (__proto__ and constructor.prototype are refused: they could change an object's prototype)`;

describe('a body with a __proto__ key: a 400 naming the field, in the route\'s error shape', () => {
  let g: Gateway;
  let acct: TestAccount;
  before(async () => {
    g = await startGateway();
    acct = await createTestAccount(g.t, { credits: 1000 });
  });
  after(async () => g.close());

  const raw = (path: string, body: string, key?: string) =>
    fetch(`${g.t.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) }, body });

  it('inference: a top-level and a nested __proto__, and a constructor holding prototype', async () => {
    const cases = [
      { body: '{"model":"svc-fast","messages":[{"role":"user","content":"hi"}],"__proto__":{"admin":true}}', path: '__proto__' },
      { body: '{"model":"svc-fast","messages":[{"role":"user","content":"hi","__proto__":{"x":1}}]}', path: 'messages[0].__proto__' },
      { body: '{"model":"svc-fast","messages":[{"role":"user","content":"hi"}],"metadata":{"constructor":{"prototype":{"x":1}}}}', path: 'metadata.constructor.prototype' },
    ];
    for (const c of cases) {
      const res = await raw('/v1/chat/completions', c.body, acct.key);
      assert.equal(res.status, 400, c.body);
      assert.deepEqual(await res.json(), { error: FORBIDDEN(c.path) });
    }
    assert.equal(g.openai.requests.length, 0, 'nothing went upstream');
  });

  it('market: the same refusal in the market shape', async () => {
    const res = await raw('/api/pool/estimate', '{"market_id":1,"side":"yes","amount":1,"__proto__":{"x":1}}');
    assert.equal(res.status, 400);
    assert.deepEqual(await res.json(), { success: false, error: FORBIDDEN('__proto__') });
  });

  it('malformed JSON stays `malformed JSON body`, and an ordinary "constructor" field is no problem', async () => {
    const bad = await raw('/v1/chat/completions', '{"model":', acct.key);
    assert.deepEqual([bad.status, await bad.json()], [400, { error: 'malformed JSON body' }]);
    g.openai.chat.enqueue({ text: 'ok' });
    const ok = await postJson(g, acct.key, '/v1/chat/completions', { model: 'svc-fast', messages: [{ role: 'user', content: 'hi' }], metadata: { constructor: 'x' } });
    assert.equal(ok.status, 200, await ok.clone().text());
  });
});
