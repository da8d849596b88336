import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { postJson, startWithSdks, type Gateway } from './helpers/gateway.ts';
import type { TestAccount } from './helpers/inference.ts';

/**
 * A third pass over inference-api.md as a new user meets it, with the official SDKs and plain
 * fetch: what the first two audits (inference-spec-audit.test.ts) did not try.
 */
describe('inference-api.md, a new user\'s second look', () => {
  let g: Gateway;
  let acct: TestAccount;
  let anthropic: Anthropic;
  let openai: OpenAI;

  before(async () => void ({ g, acct, anthropic, openai } = await startWithSdks()));
  after(() => g.close());

  const post = (path: string, body: unknown, headers: Record<string, string> = {}) => postJson(g, acct.key, path, body, headers);

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

  it('/openapi.json describes the request bodies the chat protocols accept', async () => {
    interface S {
      required?: string[];
      properties: Record<string, S>;
      items?: S;
      oneOf?: S[];
      enum?: string[];
      minItems?: number;
      minLength?: number;
    }
    const doc = (await (await fetch(`${g.t.url}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { requestBody: { content: { 'application/json': { schema: S } } } }>>;
    };
    const body = (path: string) => doc.paths[path]!.post!.requestBody.content['application/json'].schema;
    // A request without `model` is served by the default model (docs/routing.md): the description may not require it.
    for (const path of ['/v1/chat/completions', '/v1/completions', '/v1/messages', '/v1/messages/count_tokens', '/v1/responses']) {
      assert.ok(!(body(path).required ?? []).includes('model'), `${path} requires model`);
      const r = await post(path, path.endsWith('completions') && !path.includes('chat') ? { prompt: 'hi', max_tokens: 3 } : path === '/v1/responses' ? { input: 'hi' } : { messages: [{ role: 'user', content: 'hi' }], max_tokens: 3 });
      assert.equal(r.status, 200, `${path}: ${await r.text()}`);
    }
    for (const path of ['/v1/embeddings', '/v1/rerank']) assert.ok(body(path).required!.includes('model'), path);
    // Images default to the catalog's one image model, as OpenAI's images API defaults its model
    // (docs/api-decisions.md, "Inference: twelfth audit").
    assert.ok(!(body('/v1/images/generations').required ?? []).includes('model'), '/v1/images/generations requires model');
    assert.ok(body('/v1/images/generations').required!.includes('prompt'));
    const image = await post('/v1/images/generations', { prompt: 'a cat' });
    assert.equal(image.status, 200, await image.text());
    // The spec's message object (role system) and tool_choice string "auto" on the messages protocol.
    const messages = body('/v1/messages').properties;
    assert.ok(messages.messages!.items!.properties.role!.enum!.includes('system'));
    assert.equal(messages.messages!.minItems, 1);
    assert.ok(messages.tool_choice!.oneOf!.some((x) => x.enum?.includes('auto')), JSON.stringify(messages.tool_choice));
    assert.ok(messages.response_format, 'response_format');
    // The spec's tool definition ({type: function, function}) is no Anthropic tool with a top-level name.
    assert.ok(!(messages.tools!.items!.required ?? []).includes('name'), JSON.stringify(messages.tools));
    const input = body('/v1/responses').properties.input!.oneOf!;
    assert.deepEqual([input[0]!.minLength, input[1]!.minItems], [1, 1]);
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
