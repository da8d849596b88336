import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type OpenAI from 'openai';
import { startWithSdks, type Gateway } from './helpers/gateway.ts';
import type { TestAccount } from './helpers/inference.ts';
import { auditRequests } from './helpers/spec-audit.ts';

/**
 * The request parameters a response echoes as OpenAI's do, and streamed responses that fail after
 * they began: kept and retrievable (docs/api-decisions.md, "Responses: failed responses kept,
 * parameters echoed").
 */
type Final = Record<string, unknown> & { id: string; status: string; output: { type: string; status?: string; id?: string }[] };

describe('responses: parameters echoed, failed responses kept', () => {
  let g: Gateway;
  let acct: TestAccount;
  let openai: OpenAI;

  before(async () => void ({ g, acct, openai } = await startWithSdks()));
  after(() => g.close());

  const { refused } = auditRequests(() => ({ g, key: acct.key }));

  /** Every event of an SDK stream, and the response of its last one. */
  async function streamed(body: Record<string, unknown>): Promise<{ events: { type: string; response?: Final }[]; final: Final }> {
    const stream = await openai.responses.create({ ...body, stream: true } as never);
    const events: { type: string; response?: Final }[] = [];
    for await (const e of stream as unknown as AsyncIterable<{ type: string; response?: Final }>) events.push(e);
    return { events, final: events.at(-1)!.response! };
  }

  const pick = (r: object, keys: readonly string[]) => Object.fromEntries(keys.map((k) => [k, (r as Record<string, unknown>)[k]]));
  const ECHOED = ['max_tool_calls', 'prompt_cache_key', 'safety_identifier', 'service_tier', 'top_logprobs', 'background', 'user'] as const;

  describe('request parameters echoed', () => {
    it('defaults: null, null, null, "default", 0, false', async () => {
      g.openai.chat.enqueue({ text: 'hi' });
      const r = await openai.responses.create({ model: 'svc-fast', input: 'hi' });
      const want = { max_tool_calls: null, prompt_cache_key: null, safety_identifier: null, service_tier: 'default', top_logprobs: 0, background: false, user: null };
      assert.deepEqual(pick(r, ECHOED), want);
      assert.deepEqual(pick(await openai.responses.retrieve(r.id), ECHOED), want);
    });

    it("the request's values, not streamed, in every streamed event carrying the response, and on retrieve", async () => {
      const asked = { max_tool_calls: 3, prompt_cache_key: 'cache-7', safety_identifier: 'user-hash-1', service_tier: 'flex', top_logprobs: 5 };
      // The tier used is answered, and every request is served at the default tier.
      const want = { ...asked, service_tier: 'default', background: false, user: 'user-hash-1' };
      g.anthropic.chat.enqueue({ text: 'hello' });
      const r = await openai.responses.create({ model: 'svc-vision', input: 'hi', ...asked } as never);
      assert.deepEqual(pick(r, ECHOED), want);
      assert.deepEqual(pick(await openai.responses.retrieve((r as OpenAI.Responses.Response).id), ECHOED), want);

      g.openai.chat.enqueue({ text: 'hello' });
      const s = await streamed({ model: 'svc-fast', input: 'hi', ...asked, user: 'legacy-user' });
      const carrying = s.events.filter((e) => e.response);
      assert.deepEqual(carrying.map((e) => e.type), ['response.created', 'response.in_progress', 'response.completed']);
      for (const e of carrying) assert.deepEqual(pick(e.response!, ECHOED), { ...want, user: 'legacy-user' }, e.type);
      assert.deepEqual(pick(await openai.responses.retrieve(s.final.id), ECHOED), { ...want, user: 'legacy-user' });

      g.openai.chat.enqueue({ text: 'The first primes are 2, 3, 5', finish: 'length' });
      const cut = await streamed({ model: 'svc-fast', input: 'primes', max_output_tokens: 16, ...asked });
      assert.equal(cut.events.at(-1)!.type, 'response.incomplete');
      assert.deepEqual(pick(cut.final, ECHOED), want);
    });

    it('400s name the field', async () => {
      await refused('/v1/responses', { model: 'svc-fast', input: 'hi', max_tool_calls: 0 }, 'max_tool_calls: must be >= 1');
      await refused('/v1/responses', { model: 'svc-fast', input: 'hi', max_tool_calls: 1.5 }, 'max_tool_calls: must be an integer');
      await refused('/v1/responses', { model: 'svc-fast', input: 'hi', top_logprobs: 21 }, 'top_logprobs: must be <= 20');
      await refused('/v1/responses', { model: 'svc-fast', input: 'hi', prompt_cache_key: 7 }, 'prompt_cache_key: must be a string');
      await refused('/v1/responses', { model: 'svc-fast', input: 'hi', safety_identifier: 7 }, 'safety_identifier: must be a string');
      await refused('/v1/responses', { model: 'svc-fast', input: 'hi', service_tier: 'fastest' }, 'service_tier: must be one of auto, default, flex, scale, priority');
    });
  });

  describe('a streamed response that fails after it began', () => {
    it('is stored: retrieve answers exactly the response of `response.failed`, error and cut item included', async () => {
      g.anthropic.chat.enqueue({ text: 'Partial answer that breaks here', streamErrorAfter: { events: 4, type: 'overloaded_error', message: 'Overloaded' } });
      const s = await streamed({ model: 'svc-vision', input: 'hello', safety_identifier: 'sid-1' });
      assert.equal(s.events.at(-1)!.type, 'response.failed');
      assert.equal(s.final.status, 'failed');
      assert.deepEqual(Object.keys(s.final.error as object).sort(), ['code', 'message']);
      assert.equal(s.final.store, true);
      assert.deepEqual(s.final.output.map((i) => [i.type, i.status]), [['message', 'incomplete']]);
      assert.equal(s.events[0]!.response!.id, s.final.id);
      // The SDK adds output_text on its own.
      const { output_text: _, ...stored } = await openai.responses.retrieve(s.final.id);
      assert.deepEqual(stored, s.final);

      // Continuing it: its input goes on, the cut message does not.
      g.anthropic.chat.enqueue({ text: 'Hello again.' });
      const next = await openai.responses.create({ model: 'svc-vision', input: 'try again', previous_response_id: s.final.id });
      assert.equal(next.status, 'completed');
      const sent = JSON.stringify(g.anthropic.requests.at(-1)!.body);
      assert.ok(sent.includes('hello') && sent.includes('try again'), sent);
      assert.ok(!sent.includes('"assistant"'), sent);
    });

    it('a function call cut short is not carried into the continuation (no tool output is owed for it)', async () => {
      const tools = [{ type: 'function', name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } }];
      g.openai.chat.enqueue({ toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris, the capital of France' } }], cutAfter: 4 });
      const s = await streamed({ model: 'svc-fast', input: 'weather in Paris?', tools });
      assert.equal(s.events.at(-1)!.type, 'response.failed');
      assert.deepEqual((await openai.responses.retrieve(s.final.id)).output.map((i) => [i.type, 'status' in i ? i.status : undefined]), [['function_call', 'incomplete']]);
      g.openai.chat.enqueue({ text: 'Sunny.' });
      const next = await openai.responses.create({ model: 'svc-fast', input: 'and now?', tools: tools as never, previous_response_id: s.final.id });
      assert.equal(next.output_text, 'Sunny.');
      const sent = JSON.stringify(g.openai.requests.at(-1)!.body);
      assert.ok(sent.includes('weather in Paris?') && !sent.includes('"tool_calls"'), sent);
    });

    it('with store: false it is not stored (404)', async () => {
      g.anthropic.chat.enqueue({ text: 'Partial answer that breaks here', streamErrorAfter: { events: 4, type: 'overloaded_error', message: 'Overloaded' } });
      const s = await streamed({ model: 'svc-vision', input: 'hello', store: false });
      assert.equal(s.final.status, 'failed');
      const e = await openai.responses.retrieve(s.final.id).then(() => null, (x: { status?: number }) => x);
      assert.equal(e?.status, 404);
    });
  });
});
