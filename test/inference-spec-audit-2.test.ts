import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { startGateway, type Gateway } from './helpers/gateway.ts';
import { createTestAccount, type TestAccount } from './helpers/inference.ts';

/**
 * A third pass over inference-api.md as a new user meets it, with the official SDKs and plain
 * fetch: what the first two audits (inference-spec-audit.test.ts) did not try.
 */
describe('inference-api.md, a new user\'s second look', () => {
  let g: Gateway;
  let acct: TestAccount;
  let anthropic: Anthropic;
  let openai: OpenAI;

  before(async () => {
    g = await startGateway({ env: { RATE_LIMIT_INFERENCE_PER_MINUTE: '10000' } });
    acct = await createTestAccount(g.t, { credits: 100_000 });
    anthropic = new Anthropic({ apiKey: acct.key, baseURL: `${g.t.url}/inference`, maxRetries: 0 });
    openai = g.client(acct.key);
  });
  after(() => g.close());

  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${g.t.url}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${acct.key}`, 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });

  it('the messages-style base {base_url}/inference lists models for an x-api-key too (curl and the Anthropic SDK)', async () => {
    const viaHeader = await fetch(`${g.t.url}/inference/v1/models`, { headers: { 'x-api-key': acct.key, 'anthropic-version': '2023-06-01' } });
    assert.equal(viaHeader.status, 200, await viaHeader.clone().text());
    assert.ok(((await viaHeader.json()) as { data: { id: string }[] }).data.some((m) => m.id === 'svc-fast'));
    const page = await anthropic.models.list();
    const ids = page.data.map((m) => m.id);
    assert.ok(ids.includes('svc-fast'), JSON.stringify(ids));
    assert.ok(!ids.includes('svc-embed'));
    const one = await anthropic.models.retrieve('svc-pro');
    assert.equal(one.id, 'svc-pro');
    // A wrong x-api-key is still the spec's 401.
    const r = await fetch(`${g.t.url}/inference/v1/models`, { headers: { 'x-api-key': 'svk_nope' } });
    assert.equal(r.status, 401);
    assert.deepEqual(await r.json(), { error: 'unauthorized' });
  });

  it('/openapi.json says so: x-api-key on the catalog under /inference/v1, not under /v1', async () => {
    const doc = (await (await fetch(`${g.t.url}/openapi.json`)).json()) as { paths: Record<string, Record<string, { security?: unknown }>> };
    const both = [{ bearer: [] }, { xApiKey: [] }];
    assert.deepEqual(doc.paths['/inference/v1/models']!.get!.security, both);
    assert.deepEqual(doc.paths['/inference/v1/models/{model}']!.get!.security, both);
    assert.deepEqual(doc.paths['/inference/v1/available-models']!.get!.security, both);
    assert.deepEqual(doc.paths['/v1/models']!.get!.security, [{ bearer: [] }]);
    const viaHeader = await fetch(`${g.t.url}/v1/models`, { headers: { 'x-api-key': acct.key } });
    assert.equal(viaHeader.status, 401);
  });

  it('POST /v1/responses with an empty input is a 400 naming the field, like every other endpoint\'s empty prompt', async () => {
    for (const input of ['', []]) {
      const r = await post('/v1/responses', { model: 'svc-fast', input });
      assert.equal(r.status, 400, `${JSON.stringify(input)}: ${await r.clone().text()}`);
      assert.deepEqual(await r.json(), { error: 'input: must not be empty' });
    }
    await assert.rejects(openai.responses.create({ model: 'svc-fast', input: '' }), (e: unknown) => e instanceof OpenAI.BadRequestError);
  });
});
