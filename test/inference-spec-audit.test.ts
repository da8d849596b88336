import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { postJson, startGateway, startWithSdks, type Gateway } from './helpers/gateway.ts';
import { createTestAccount, type TestAccount } from './helpers/inference.ts';

/**
 * What inference-api.md says in so many words and a new user would try first, end to end over
 * HTTP with the official SDKs: the service's message object and tool definition on the messages
 * protocol, the per-model context sizes of the catalog, and the catalog answers.
 */

/** The spec's "Tool definition": OpenAI's function shape. */
const SPEC_TOOL = {
  type: 'function',
  function: {
    name: 'get_weather',
    description: 'Weather for a city',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
} as const;

describe('inference-api.md as written', () => {
  let g: Gateway;
  let acct: TestAccount;
  let anthropic: Anthropic;
  let openai: OpenAI;

  before(async () => void ({ g, acct, anthropic, openai } = await startWithSdks()));
  after(() => g.close());

  const post = (path: string, body: unknown, headers: Record<string, string> = {}) => postJson(g, acct.key, path, body, headers);

  describe('POST /v1/messages with the message object of the spec', () => {
    it('a `system` role message is the system prompt, on both upstream kinds', async () => {
      g.anthropic.chat.enqueue({ text: 'Bonjour.' });
      const r = await post('/inference/v1/messages', {
        model: 'svc-vision',
        max_tokens: 100,
        messages: [
          { role: 'system', content: 'Answer in French.' },
          { role: 'user', content: 'Say hello' },
        ],
      });
      assert.equal(r.status, 200, await r.clone().text());
      const m = (await r.json()) as { content: { type: string; text: string }[] };
      assert.equal(m.content[0]!.text, 'Bonjour.');
      const sent = g.anthropic.requests.at(-1)!.body as { system: unknown; messages: { role: string }[] };
      assert.deepEqual(sent.system, 'Answer in French.');
      assert.deepEqual(
        sent.messages.map((x) => x.role),
        ['user'],
      );

      g.openai.chat.enqueue({ text: 'Bonjour.' });
      const r2 = await post('/v1/messages', {
        model: 'svc-fast',
        max_tokens: 100,
        system: 'Be brief.',
        messages: [
          { role: 'system', content: [{ type: 'text', text: 'Answer in French.' }] },
          { role: 'user', content: 'Say hello' },
        ],
      });
      assert.equal(r2.status, 200, await r2.clone().text());
      const sent2 = g.openai.requests.at(-1)!.body as { messages: { role: string; content: unknown }[] };
      assert.deepEqual(
        sent2.messages.map((x) => [x.role, x.content]),
        [
          ['system', 'Be brief.'],
          ['system', 'Answer in French.'],
          ['user', 'Say hello'],
        ],
      );
    });

    it('a `system` message with an image part, or only system messages, is a 400 naming the field', async () => {
      const r = await post('/inference/v1/messages', {
        model: 'svc-vision',
        messages: [
          { role: 'system', content: [{ type: 'image_url', image_url: { url: 'https://example.com/a.png' } }] },
          { role: 'user', content: 'hi' },
        ],
      });
      assert.equal(r.status, 400);
      assert.match(((await r.json()) as { error: string }).error, /^messages\[0\]\.content\[0\]/);
      const only = await post('/inference/v1/messages', { model: 'svc-fast', messages: [{ role: 'system', content: 'Be brief.' }] });
      assert.equal(only.status, 400);
      assert.equal(((await only.json()) as { error: string }).error, 'messages: must have a user or assistant message');
    });

    it('tools in the spec\'s tool definition shape with tool_choice "auto" (curl and the Anthropic SDK)', async () => {
      for (const model of ['svc-vision', 'svc-fast']) {
        const fake = model === 'svc-vision' ? g.anthropic : g.openai;
        fake.chat.enqueue({ toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' } }] });
        const r = await post('/inference/v1/messages', {
          model,
          max_tokens: 200,
          tools: [SPEC_TOOL],
          tool_choice: 'auto',
          messages: [{ role: 'user', content: 'Weather in Paris?' }],
        });
        assert.equal(r.status, 200, await r.clone().text());
        const m = (await r.json()) as { stop_reason: string; content: { type: string; name?: string; input?: unknown }[] };
        assert.equal(m.stop_reason, 'tool_use');
        const use = m.content.find((b) => b.type === 'tool_use')!;
        assert.equal(use.name, 'get_weather');
        assert.deepEqual(use.input, { city: 'Paris' });
        const sent = fake.requests.at(-1)!.body as { tools: Record<string, unknown>[]; tool_choice: unknown };
        if (model === 'svc-vision') {
          assert.deepEqual(sent.tools, [{ name: 'get_weather', description: 'Weather for a city', input_schema: SPEC_TOOL.function.parameters }]);
          assert.deepEqual(sent.tool_choice, { type: 'auto' });
        } else {
          assert.deepEqual(sent.tools, [SPEC_TOOL]);
          assert.equal(sent.tool_choice, 'auto');
        }
      }
      // The SDK sends whatever tools it is given.
      g.anthropic.chat.enqueue({ toolCalls: [{ name: 'get_weather', arguments: { city: 'Oslo' } }] });
      const m = await anthropic.messages.create({
        model: 'svc-vision',
        max_tokens: 200,
        tools: [SPEC_TOOL as unknown as Anthropic.Tool],
        messages: [{ role: 'user', content: 'Weather in Oslo?' }],
      });
      assert.equal(m.stop_reason, 'tool_use');
    });

    it('a malformed tool definition is a 400 naming the field', async () => {
      const r = await post('/inference/v1/messages', {
        model: 'svc-fast',
        tools: [{ type: 'function', function: { description: 'no name' } }],
        messages: [{ role: 'user', content: 'hi' }],
      });
      assert.equal(r.status, 400);
      assert.equal(((await r.json()) as { error: string }).error, 'tools[0].function.name: is required');
      const r2 = await post('/inference/v1/messages', { model: 'svc-fast', tool_choice: 'sometimes', messages: [{ role: 'user', content: 'hi' }] });
      assert.equal(r2.status, 400);
      assert.match(((await r2.json()) as { error: string }).error, /^tool_choice: /);
    });

    it('response_format json_schema and json_object give structured output', async () => {
      const schema = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };
      for (const model of ['svc-vision', 'svc-fast']) {
        const fake = model === 'svc-vision' ? g.anthropic : g.openai;
        fake.chat.enqueue({ json: { city: 'Paris' } });
        const r = await post('/inference/v1/messages', {
          model,
          max_tokens: 200,
          response_format: { type: 'json_schema', json_schema: { name: 'weather', schema } },
          messages: [{ role: 'user', content: 'Weather as JSON' }],
        });
        assert.equal(r.status, 200, await r.clone().text());
        const m = (await r.json()) as { content: { type: string; text: string }[] };
        assert.deepEqual(JSON.parse(m.content[0]!.text), { city: 'Paris' });
        if (model === 'svc-fast') {
          const sent = g.openai.requests.at(-1)!.body as { response_format: unknown };
          assert.deepEqual(sent.response_format, { type: 'json_schema', json_schema: { name: 'weather', schema } });
        }
      }
      g.openai.chat.enqueue({ json: { ok: true } });
      const r = await post('/inference/v1/messages', {
        model: 'svc-fast',
        response_format: { type: 'json_object' },
        messages: [{ role: 'user', content: 'JSON please' }],
      });
      assert.equal(r.status, 200, await r.clone().text());
      assert.deepEqual((g.openai.requests.at(-1)!.body as { response_format: unknown }).response_format, { type: 'json_object' });
      assert.deepEqual(JSON.parse(((await r.json()) as { content: { text: string }[] }).content[0]!.text), { ok: true });

      const bad = await post('/inference/v1/messages', { model: 'svc-fast', response_format: { type: 'json_schema' }, messages: [{ role: 'user', content: 'x' }] });
      assert.equal(bad.status, 400);
      assert.match(((await bad.json()) as { error: string }).error, /^response_format\.json_schema: /);
      const both = await post('/inference/v1/messages', {
        model: 'svc-fast',
        response_format: { type: 'json_schema', json_schema: { name: 'weather', schema } },
        output_config: { format: { type: 'json_schema', schema } },
        messages: [{ role: 'user', content: 'x' }],
      });
      assert.equal(both.status, 400);
      assert.equal(((await both.json()) as { error: string }).error, 'output_config.format: give either output_config.format or response_format');
    });
  });

  describe('context sizes of the model catalog', () => {
    // 140,000 tokens of o200k ("word " is one token) in 700 KB: past svc-shiplow's 131K, within svc-fast's 1M.
    const long = 'word '.repeat(140_000);

    it('an input over the model\'s context is a 400 naming the field, before any upstream call or charge', async () => {
      const calls = g.openai.requests.length + g.anthropic.requests.length;
      const cases: [string, unknown, string][] = [
        ['/v1/chat/completions', { model: 'svc-shiplow', messages: [{ role: 'user', content: long }] }, 'messages'],
        ['/v1/completions', { model: 'svc-shiplow', prompt: long }, 'prompt'],
        ['/inference/v1/messages', { model: 'svc-shiplow', messages: [{ role: 'user', content: long }] }, 'messages'],
        ['/v1/responses', { model: 'svc-shiplow', input: long }, 'input'],
        ['/v1/embeddings', { model: 'svc-embed', input: 'word '.repeat(9000) }, 'input'],
      ];
      for (const [path, body, field] of cases) {
        const r = await post(path, body);
        assert.equal(r.status, 400, path);
        const { error } = (await r.json()) as { error: string };
        const model = (body as { model: string }).model;
        const context = model === 'svc-embed' ? 8192 : 131072;
        assert.match(error, new RegExp(`^${field}: .*exceeds the context of model ${model} \\(${context} tokens\\)`), `${path}: ${error}`);
      }
      assert.equal(g.openai.requests.length + g.anthropic.requests.length, calls);
    });

    it('the same input fits a model with a larger context; a long input under the context passes', async () => {
      g.openai.chat.enqueue({ text: 'long read' });
      const c = await openai.chat.completions.create({ model: 'svc-fast', messages: [{ role: 'user', content: long }] });
      assert.equal(c.choices[0]!.message.content, 'long read');
      // 200 KB of bytes but 40,000 tokens: more bytes than svc-shiplow's context, fewer tokens.
      g.openai.chat.enqueue({ text: 'fits' });
      const s = await openai.chat.completions.create({ model: 'svc-shiplow', messages: [{ role: 'user', content: 'word '.repeat(40_000) }] });
      assert.equal(s.choices[0]!.message.content, 'fits');
    });
  });

  describe('catalog routes', () => {
    it('GET /v1/available-models also names the limits as the catalog does (context, max_output)', async () => {
      const r = await fetch(`${g.t.url}/v1/available-models`, { headers: { authorization: `Bearer ${acct.key}` } });
      const { data } = (await r.json()) as { data: Record<string, unknown>[] };
      const byId = new Map(data.map((m) => [m.id, m]));
      assert.equal(byId.get('svc-shiplow')!.context, 131072);
      assert.equal(byId.get('svc-shiplow')!.max_output, 32768);
      assert.equal(byId.get('svc-pro')!.max_output, 1040000);
      assert.equal(byId.get('svc-embed')!.context, 8192);
      assert.equal(byId.get('svc-embed')!.max_output, null);
      for (const m of data) {
        assert.equal(m.context, m.context_length);
        assert.equal(m.max_output, m.max_output_tokens);
      }
    });

    it('retry-after only on a 429: not on a catalog answer while the budget is spent', async () => {
      const limited = await startGateway({ env: { RATE_LIMIT_INFERENCE_PER_MINUTE: '1' } });
      try {
        const a = await createTestAccount(limited.t, { credits: 100 });
        const headers = { authorization: `Bearer ${a.key}`, 'content-type': 'application/json' };
        const body = JSON.stringify({ model: 'svc-embed', input: 'x' });
        assert.equal((await fetch(`${limited.t.url}/v1/embeddings`, { method: 'POST', headers, body })).status, 200);
        const refused = await fetch(`${limited.t.url}/v1/embeddings`, { method: 'POST', headers, body });
        assert.equal(refused.status, 429);
        assert.ok(refused.headers.get('retry-after'));
        const models = await fetch(`${limited.t.url}/v1/models`, { headers });
        assert.equal(models.status, 200);
        assert.equal(models.headers.get('x-ratelimit-remaining-requests'), '0');
        assert.equal(models.headers.get('retry-after'), null);
      } finally {
        await limited.close();
      }
    });
  });
});
