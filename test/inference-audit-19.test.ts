import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import OpenAI from 'openai';
import { accountCredits, postJson, startWithSdks, usageRows, type Gateway } from './helpers/gateway.ts';
import type { TestAccount } from './helpers/inference.ts';
import { auditRequests } from './helpers/spec-audit.ts';

/**
 * Findings of a nineteenth audit of the inference API, tried with the official `openai` client and
 * plain HTTP (docs/api-decisions.md, "Inference: nineteenth audit").
 */
describe('inference API, nineteenth audit', () => {
  let g: Gateway;
  let acct: TestAccount;
  let openai: OpenAI;

  before(async () => void ({ g, acct, openai } = await startWithSdks()));
  after(() => g.close());

  const { refused, upstreamCalls } = auditRequests(() => ({ g, key: acct.key }));

  /** `run` changes neither the balance nor the usage records, and sends nothing to any upstream. */
  async function nothingSpent(run: () => Promise<void>): Promise<void> {
    const balance = await accountCredits(g.t, acct.id);
    const rows = (await usageRows(g.t, acct.id)).length;
    const calls = upstreamCalls() + g.rerank.requests.length;
    await run();
    assert.equal(upstreamCalls() + g.rerank.requests.length, calls, 'nothing goes upstream');
    assert.deepEqual(await accountCredits(g.t, acct.id), balance);
    assert.equal((await usageRows(g.t, acct.id)).length, rows);
  }

  /** The SDK's call is refused with a 400 whose message has `error`. */
  const sdkRefused = (call: Promise<unknown>, error: string) =>
    assert.rejects(call, (err: unknown) => err instanceof OpenAI.BadRequestError && err.status === 400 && err.message.includes(error));

  describe('rerank: a blank query or document is a 400 naming it', () => {
    const rerankRefused = async (body: Record<string, unknown>, error: string) => {
      const r = await postJson(g, acct.key, '/v1/rerank', { model: 'svc-rerank', ...body });
      assert.equal(r.status, 400, `${JSON.stringify(body)}: ${await r.clone().text()}`);
      assert.deepEqual(await r.json(), { error }, JSON.stringify(body));
    };

    it('an empty or whitespace query, an empty or whitespace document (string or {text}), before any hold or upstream call', async () => {
      await nothingSpent(async () => {
        await rerankRefused({ query: '', documents: ['a'] }, 'query: must not be empty');
        await rerankRefused({ query: '  \n\t', documents: ['a'] }, 'query: must not be only whitespace');
        await rerankRefused({ query: 'cat', documents: ['a', 'b', ''] }, 'documents[2]: must not be empty');
        await rerankRefused({ query: 'cat', documents: ['a', ' \n '] }, 'documents[1]: must not be only whitespace');
        await rerankRefused({ query: 'cat', documents: [{ text: 'a' }, { text: '' }] }, 'documents[1].text: must not be empty');
        await rerankRefused({ query: 'cat', documents: [{ text: '   ' }] }, 'documents[0].text: must not be only whitespace');
        await rerankRefused({ query: 'cat', documents: [] }, 'documents: must not be empty');
        await rerankRefused({ query: 'cat', documents: ['a'], top_n: 0 }, 'top_n: must be >= 1');
        await rerankRefused({ query: 'cat', documents: ['a'], top_n: -3 }, 'top_n: must be >= 1');
        await rerankRefused({ query: 'cat', documents: ['a'], top_n: 1.5 }, 'top_n: must be an integer');
      });
    });

    it('top_n above the documents gives them all, and the upstream is asked for the document count', async () => {
      const r = await postJson(g, acct.key, '/v1/rerank', { model: 'svc-rerank', query: 'cat', documents: ['a cat', { text: 'a dog' }], top_n: 50 });
      assert.equal(r.status, 200, await r.clone().text());
      const body = (await r.json()) as { results: { index: number }[] };
      assert.deepEqual(body.results.map((x) => x.index), [0, 1]);
      assert.equal((g.rerank.requests.at(-1)!.body as { top_n?: number }).top_n, 2);
    });
  });

  describe('chat completions and completions: OpenAI\'s ranges of the sampling fields', () => {
    const chat = (extra: Record<string, unknown>) => ({ model: 'svc-fast', messages: [{ role: 'user', content: 'hi' }], ...extra });
    const completion = (extra: Record<string, unknown>) => ({ model: 'svc-fast', prompt: 'Once upon a time', ...extra });
    /** Fields both endpoints take, each value out of OpenAI's range with the 400 it gets. */
    const shared: [Record<string, unknown>, string][] = [
      [{ presence_penalty: 2.5 }, 'presence_penalty: must be <= 2'],
      [{ presence_penalty: -2.01 }, 'presence_penalty: must be >= -2'],
      [{ presence_penalty: '1' }, 'presence_penalty: must be a number'],
      [{ frequency_penalty: 3 }, 'frequency_penalty: must be <= 2'],
      [{ frequency_penalty: -5 }, 'frequency_penalty: must be >= -2'],
      [{ seed: 1.5 }, 'seed: must be an integer'],
      [{ seed: '42' }, 'seed: must be an integer'],
      [{ logit_bias: { '50256': 101 } }, 'logit_bias.50256: must be <= 100'],
      [{ logit_bias: { '50256': -100.5 } }, 'logit_bias.50256: must be >= -100'],
      [{ logit_bias: { '50256': 'ban' } }, 'logit_bias.50256: must be a number'],
      [{ logit_bias: { hello: 5 } }, 'logit_bias: key "hello" is not a token id; keys must be non-negative integers'],
      [{ logit_bias: { '-1': 5 } }, 'logit_bias: key "-1" is not a token id; keys must be non-negative integers'],
      [{ logit_bias: [1, 2] }, 'logit_bias: must be an object of token ids to numbers'],
      [{ temperature: 2.1 }, 'temperature: must be <= 2'],
      [{ top_p: 1.1 }, 'top_p: must be <= 1'],
      [{ n: 0 }, 'n: must be >= 1'],
    ];
    const chatOnly: [Record<string, unknown>, string][] = [
      [{ logprobs: true, top_logprobs: 21 }, 'top_logprobs: must be <= 20'],
      [{ logprobs: true, top_logprobs: -1 }, 'top_logprobs: must be >= 0'],
      [{ logprobs: true, top_logprobs: 2.5 }, 'top_logprobs: must be an integer'],
      [{ top_logprobs: 3 }, 'top_logprobs: is only allowed when logprobs is true'],
      [{ logprobs: false, top_logprobs: 0 }, 'top_logprobs: is only allowed when logprobs is true'],
      [{ logprobs: 'yes' }, 'logprobs: must be a boolean'],
    ];

    it('out of range is a 400 naming the field on chat completions, streamed or not, before any hold or upstream call', async () => {
      await nothingSpent(async () => {
        for (const [extra, error] of [...shared, ...chatOnly]) {
          await refused('/v1/chat/completions', chat(extra), error);
          await refused('/v1/chat/completions', chat({ ...extra, stream: true }), error);
          await refused('/inference/v1/chat/completions', chat(extra), error);
        }
        await sdkRefused(openai.chat.completions.create({ model: 'svc-fast', messages: [{ role: 'user', content: 'hi' }], presence_penalty: 3 }), 'presence_penalty: must be <= 2');
        await sdkRefused(openai.chat.completions.create({ model: 'svc-fast', messages: [{ role: 'user', content: 'hi' }], logit_bias: { '50256': -101 } }), 'logit_bias.50256: must be >= -100');
        await sdkRefused(openai.chat.completions.create({ model: 'svc-fast', messages: [{ role: 'user', content: 'hi' }], top_logprobs: 5 }), 'top_logprobs: is only allowed when logprobs is true');
        await sdkRefused(openai.chat.completions.create({ model: 'svc-fast', messages: [{ role: 'user', content: 'hi' }], seed: 0.5, stream: true }), 'seed: must be an integer');
      });
    });

    it('out of range is a 400 naming the field on completions, before any hold or upstream call', async () => {
      await nothingSpent(async () => {
        for (const [extra, error] of shared) {
          await refused('/v1/completions', completion(extra), error);
          await refused('/v1/completions', completion({ ...extra, stream: true }), error);
        }
        await sdkRefused(openai.completions.create({ model: 'svc-fast', prompt: 'Once', frequency_penalty: -2.5 }), 'frequency_penalty: must be >= -2');
        await sdkRefused(openai.completions.create({ model: 'svc-fast', prompt: 'Once', logit_bias: { x: 1 } }), 'logit_bias: key \\"x\\" is not a token id');
      });
    });

    it('the edges of every range are answered, through the SDK', async () => {
      const edges = {
        presence_penalty: -2,
        frequency_penalty: 2,
        seed: -9_007_199_254_740_991,
        logit_bias: { '0': -100, '50256': 100, '1234': 0.5 },
        temperature: 2,
        top_p: 0,
      };
      g.openai.chat.enqueue({ text: 'ok' }, { text: 'ok' }, { text: 'ok' });
      const c = await openai.chat.completions.create({ model: 'svc-fast', messages: [{ role: 'user', content: 'hi' }], ...edges, logprobs: true, top_logprobs: 20 });
      assert.equal(c.choices[0]!.message.content, 'ok');
      const z = await openai.chat.completions.create({ model: 'svc-fast', messages: [{ role: 'user', content: 'hi' }], logprobs: true, top_logprobs: 0, seed: 2 ** 62 });
      assert.equal(z.choices[0]!.message.content, 'ok');
      const t = await openai.completions.create({ model: 'svc-fast', prompt: 'Once', ...edges });
      assert.equal(t.choices[0]!.text, 'ok');
    });

    it('null is no value, as for every other optional field', async () => {
      g.openai.chat.enqueue({ text: 'ok' }, { text: 'ok' });
      const nulls = { presence_penalty: null, frequency_penalty: null, seed: null, logit_bias: null, top_logprobs: null, logprobs: null };
      const c = await postJson(g, acct.key, '/v1/chat/completions', chat(nulls));
      assert.equal(c.status, 200, await c.clone().text());
      const t = await postJson(g, acct.key, '/v1/completions', completion({ ...nulls, top_logprobs: undefined, logprobs: undefined }));
      assert.equal(t.status, 200, await t.clone().text());
    });
  });

  describe('chat completions: the other fields it ignores are checked as OpenAI checks them', () => {
    const chat = (extra: Record<string, unknown>) => ({ model: 'svc-fast', messages: [{ role: 'user', content: 'hi' }], ...extra });
    const seventeen = Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`k${i}`, 'v']));

    it('metadata, service_tier, store, verbosity out of OpenAI\'s values are a 400 naming the field, before any hold or upstream call', async () => {
      await nothingSpent(async () => {
        const cases: [Record<string, unknown>, string][] = [
          [{ metadata: { run: 1 } }, 'metadata.run: must be a string'],
          [{ metadata: seventeen }, 'metadata: must have at most 16 keys'],
          [{ metadata: { note: 'x'.repeat(513) } }, 'metadata.note: must be at most 512 characters'],
          [{ metadata: 'run-1' }, 'metadata: must be an object'],
          [{ service_tier: 'fastest' }, 'service_tier: must be one of auto, default, flex, scale, priority'],
          [{ store: 'yes' }, 'store: must be a boolean'],
          [{ verbosity: 'loud' }, 'verbosity: must be one of low, medium, high'],
        ];
        for (const [extra, error] of cases) await refused('/v1/chat/completions', chat(extra), error);
        await sdkRefused(openai.chat.completions.create({ model: 'svc-fast', messages: [{ role: 'user', content: 'hi' }], metadata: seventeen }), 'metadata: must have at most 16 keys');
      });
    });

    it('audio output is a 400: the client would get text without the audio it asked for', async () => {
      await nothingSpent(async () => {
        const AUDIO = 'modalities: audio output is not supported; leave modalities out or send ["text"]';
        await refused('/v1/chat/completions', chat({ modalities: ['text', 'audio'] }), AUDIO);
        await refused('/v1/chat/completions', chat({ audio: { voice: 'alloy', format: 'wav' } }), 'audio: audio output is not supported');
        await refused('/v1/chat/completions', chat({ modalities: ['video'] }), 'modalities[0]: must be one of text, audio');
        await refused('/v1/chat/completions', chat({ modalities: 'text' }), 'modalities: must be an array');
        await sdkRefused(
          openai.chat.completions.create({ model: 'svc-fast', messages: [{ role: 'user', content: 'hi' }], modalities: ['text', 'audio'], audio: { voice: 'alloy', format: 'wav' } }),
          'modalities: audio output is not supported',
        );
      });
    });

    it('their values within OpenAI\'s are answered, through the SDK', async () => {
      g.openai.chat.enqueue({ text: 'ok' });
      const c = await openai.chat.completions.create({
        model: 'svc-fast',
        messages: [{ role: 'user', content: 'hi' }],
        metadata: { run: 'r-1', note: 'x'.repeat(512) },
        service_tier: 'flex',
        store: true,
        verbosity: 'low',
        modalities: ['text'],
      });
      assert.equal(c.choices[0]!.message.content, 'ok');
    });
  });

  describe("json_object asks for the word 'json' in the conversation, as OpenAI does", () => {
    const CHAT = "messages: must contain the word 'json' in some form, to use 'response_format' of type 'json_object'";
    const RESPONSES = "input: must contain the word 'json' in some form (or instructions must), to use 'text.format' of type 'json_object'";

    for (const model of ['svc-fast', 'svc-vision']) {
      it(`chat completions without it is a 400 on ${model} (OpenAI- and Anthropic-backed alike), before any hold or upstream call`, async () => {
        await nothingSpent(async () => {
          const body = { model, messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'The weather in Paris?' }], response_format: { type: 'json_object' } };
          await refused('/v1/chat/completions', body, CHAT);
          await refused('/v1/chat/completions', { ...body, stream: true }, CHAT);
          await sdkRefused(
            openai.chat.completions.create({ model, messages: [{ role: 'user', content: 'The weather in Paris?' }], response_format: { type: 'json_object' } }),
            CHAT,
          );
        });
      });
    }

    it('chat completions with it anywhere (any case, any role, a text part) is answered', async () => {
      const said = [
        [{ role: 'system', content: 'Answer in JSON.' }, { role: 'user', content: 'Weather?' }],
        [{ role: 'user', content: [{ type: 'text', text: 'weather as json' }] }],
        [{ role: 'developer', content: 'Output a Json object.' }, { role: 'user', content: 'Weather?' }],
        [{ role: 'user', content: 'a JSONL line?' }],
        [{ role: 'user', content: 'json?' }, { role: 'assistant', content: 'Sure.' }, { role: 'user', content: 'Weather?' }],
      ];
      for (const messages of said) {
        g.openai.chat.enqueue({ json: { ok: true } });
        const r = await postJson(g, acct.key, '/v1/chat/completions', { model: 'svc-fast', messages, response_format: { type: 'json_object' } });
        assert.equal(r.status, 200, `${JSON.stringify(messages)}: ${await r.clone().text()}`);
      }
      // json_schema and text ask nothing of the messages.
      g.openai.chat.enqueue({ json: { ok: true } }, { text: 'ok' });
      const schema = { type: 'json_schema', json_schema: { name: 'w', schema: { type: 'object', properties: {} } } };
      assert.equal((await postJson(g, acct.key, '/v1/chat/completions', { model: 'svc-fast', messages: [{ role: 'user', content: 'Weather?' }], response_format: schema })).status, 200);
      assert.equal((await postJson(g, acct.key, '/v1/chat/completions', { model: 'svc-fast', messages: [{ role: 'user', content: 'Weather?' }], response_format: { type: 'text' } })).status, 200);
    });

    it('responses without it in input or instructions is a 400 naming input, before any hold or upstream call', async () => {
      await nothingSpent(async () => {
        const format = { format: { type: 'json_object' } };
        await refused('/v1/responses', { model: 'svc-fast', input: 'The weather in Paris?', text: format, store: false }, RESPONSES);
        await refused('/v1/responses', { model: 'svc-vision', input: [{ role: 'user', content: [{ type: 'input_text', text: 'Weather?' }] }], instructions: 'Be brief.', text: format, store: false }, RESPONSES);
        await sdkRefused(openai.responses.create({ model: 'svc-fast', input: 'Weather?', text: { format: { type: 'json_object' } }, store: false, stream: true }), RESPONSES);
      });
    });

    it('responses with it in input or in instructions is answered', async () => {
      g.openai.chat.enqueue({ json: { ok: true } }, { json: { ok: true } }, { json: { ok: true } });
      const a = await openai.responses.create({ model: 'svc-fast', input: 'Weather as JSON?', text: { format: { type: 'json_object' } }, store: false });
      assert.deepEqual(JSON.parse(a.output_text), { ok: true });
      const b = await openai.responses.create({ model: 'svc-fast', instructions: 'Reply in json.', input: 'Weather?', text: { format: { type: 'json_object' } }, store: false });
      assert.deepEqual(JSON.parse(b.output_text), { ok: true });
      const c = await openai.responses.create({
        model: 'svc-fast',
        input: [{ role: 'developer', content: 'JSON only.' }, { role: 'user', content: 'Weather?' }],
        text: { format: { type: 'json_object' } },
        store: false,
      });
      assert.deepEqual(JSON.parse(c.output_text), { ok: true });
    });

    it('responses continuing a stored response is left to the conversation it continues', async () => {
      g.openai.chat.enqueue({ text: 'Noted.' }, { json: { ok: true } });
      const first = await openai.responses.create({ model: 'svc-fast', input: 'From now on, answer in JSON.' });
      const next = await openai.responses.create({ model: 'svc-fast', previous_response_id: first.id, input: 'Weather?', text: { format: { type: 'json_object' } } });
      assert.deepEqual(JSON.parse(next.output_text), { ok: true });
    });
  });
});
