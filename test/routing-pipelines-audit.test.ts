import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { PRICES, accountCredits, expectedCost, startShippedWithSdks, usageRows, waitForUsage, type Gateway } from './helpers/gateway.ts';
import type { TestAccount } from './helpers/inference.ts';
import { sdkAnswer, streamModel, streamedAnswer, type RoutedAnswer } from './helpers/routing.ts';

/**
 * The pipelines (svc-shiplow, svc-ultra) and svc-auto as a user sees them, on the shipped catalog
 * (config/default.yaml) with its upstreams pointed at the fakes, through the official SDKs
 * (docs/api-decisions.md, "Routing: pipelines audit").
 */

// A 1x1 PNG.
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

describe('routing pipelines audit', () => {
  let g: Gateway;
  let acct: TestAccount;
  let openai: OpenAI;
  let anthropic: Anthropic;

  before(async () => void ({ g, acct, openai, anthropic } = await startShippedWithSdks()));
  after(() => g.close());

  const upstreamCalls = () => g.openai.requests.length + g.anthropic.requests.length;

  function expectLane(answer: RoutedAnswer, model: string, lane: string, executor: string): void {
    assert.deepEqual([answer.model, answer.header('x-svc-lane'), answer.header('x-svc-model')], [model, lane, executor]);
  }

  /** A 400 with exactly this body, before any upstream call, and nothing billed. */
  async function expectRefused(send: () => Promise<unknown>, message: string | RegExp): Promise<void> {
    const calls = upstreamCalls();
    const rows = (await usageRows(g.t, acct.id)).length;
    const credits = (await accountCredits(g.t, acct.id)).credits;
    await assert.rejects(send, (e: { status?: number; error?: unknown }) => {
      assert.equal(e.status, 400);
      // The openai SDK keeps the body's `error` (here the message), Anthropic's the whole body.
      const text = typeof e.error === 'string' ? e.error : (e.error as { error: string }).error;
      if (typeof message === 'string') assert.equal(text, message);
      else assert.match(text, message);
      return true;
    });
    assert.equal(upstreamCalls(), calls, 'no upstream call');
    assert.equal((await usageRows(g.t, acct.id)).length, rows, 'no usage record');
    assert.equal((await accountCredits(g.t, acct.id)).credits, credits, 'nothing billed');
  }

  describe('the lane when its signal is only in the system prompt or instructions', () => {
    const SYSTEM = 'You write SQL queries for a PostgreSQL database.';
    const ASK = 'customers without orders in 2024';

    it('chat completions: a system prompt about SQL and a short ask go to the code lane, streamed and not', async () => {
      const messages = [
        { role: 'system' as const, content: SYSTEM },
        { role: 'user' as const, content: ASK },
      ];
      expectLane(sdkAnswer(await openai.chat.completions.create({ model: 'svc-shiplow', messages }).withResponse()), 'svc-shiplow', 'code', 'svc-fast');
      const streamed = await streamedAnswer(openai.chat.completions.create({ model: 'svc-shiplow', messages, stream: true }).withResponse(), streamModel.chat);
      expectLane(streamed, 'svc-shiplow', 'code', 'svc-fast');
    });

    it('responses: instructions decide, and a developer message in the input list does too', async () => {
      expectLane(sdkAnswer(await openai.responses.create({ model: 'svc-shiplow', instructions: SYSTEM, input: ASK }).withResponse()), 'svc-shiplow', 'code', 'svc-fast');
      const input = [
        { role: 'developer' as const, content: SYSTEM },
        { role: 'user' as const, content: [{ type: 'input_text' as const, text: ASK }] },
      ];
      const streamed = await streamedAnswer(openai.responses.create({ model: 'svc-shiplow', input, stream: true }).withResponse(), streamModel.responses);
      expectLane(streamed, 'svc-shiplow', 'code', 'svc-fast');
    });

    it('messages: a system block list decides', async () => {
      const r = await anthropic.messages
        .create({ model: 'svc-shiplow', max_tokens: 200, system: [{ type: 'text', text: SYSTEM }], messages: [{ role: 'user', content: [{ type: 'text', text: ASK }] }] })
        .withResponse();
      expectLane(sdkAnswer(r), 'svc-shiplow', 'code', 'svc-fast');
    });

    it('a message sure of its own lane keeps it, whatever the system prompt says', async () => {
      const r = await openai.chat.completions
        .create({ model: 'svc-shiplow', messages: [{ role: 'system', content: SYSTEM }, { role: 'user', content: 'Solve for x: 4x - 7 = 21' }] })
        .withResponse();
      expectLane(sdkAnswer(r), 'svc-shiplow', 'math', 'svc-pro');
    });
  });

  describe('the lane when its signal is in a content block list or an input item list', () => {
    it('responses: input_text parts in Spanish are multilingual; a function call and its output are agent', async () => {
      const spanish = [{ role: 'user' as const, content: [{ type: 'input_text' as const, text: '¿Me recomiendas un libro' }, { type: 'input_text' as const, text: 'para las vacaciones de verano?' }] }];
      expectLane(sdkAnswer(await openai.responses.create({ model: 'svc-shiplow', input: spanish }).withResponse()), 'svc-shiplow', 'multilingual', 'svc-fast');
      const tools = [
        { type: 'message' as const, role: 'user' as const, content: 'What is the weather in Oslo?' },
        { type: 'function_call' as const, call_id: 'call_1', name: 'weather', arguments: '{"city":"Oslo"}' },
        { type: 'function_call_output' as const, call_id: 'call_1', output: '{"temp_c": -3}' },
      ];
      expectLane(sdkAnswer(await openai.responses.create({ model: 'svc-shiplow', input: tools }).withResponse()), 'svc-shiplow', 'agent', 'svc-pro');
    });

    it('messages: text blocks of an equation are math; an image inside a tool result goes to the vision lane', async () => {
      const math = await anthropic.messages
        .create({ model: 'svc-shiplow', max_tokens: 200, messages: [{ role: 'user', content: [{ type: 'text', text: 'Solve for x:' }, { type: 'text', text: '4x - 7 = 21' }] }] })
        .withResponse();
      expectLane(sdkAnswer(math), 'svc-shiplow', 'math', 'svc-pro');
      const screenshot = await anthropic.messages
        .create({
          model: 'svc-shiplow',
          max_tokens: 200,
          messages: [
            { role: 'user', content: 'Take a screenshot of the page.' },
            { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'screenshot', input: {} }] },
            { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } }] }] },
          ],
        })
        .withResponse();
      // The agent lane's executors cannot see: the pipeline's vision executor answers, and says so.
      expectLane(sdkAnswer(screenshot), 'svc-shiplow', 'vision', 'svc-vision');
    });
  });

  describe('what executors are given', () => {
    it('a stored conversation with an image goes to the vision executor on svc-shiplow and svc-auto', async () => {
      const first = await openai.responses.create({
        model: 'svc-vision',
        input: [{ role: 'user', content: [{ type: 'input_text', text: 'What is in this picture?' }, { type: 'input_image', image_url: `data:image/png;base64,${PNG}`, detail: 'auto' }] }],
      });
      for (const [model, answerModel] of [['svc-shiplow', 'svc-shiplow'], ['svc-auto', 'svc-vision']] as const) {
        const r = await openai.responses.create({ model, previous_response_id: first.id, input: 'What colour is it?' }).withResponse();
        expectLane(sdkAnswer(r), answerModel, 'vision', 'svc-vision');
      }
    });

    it("reasoning reaches svc-pro's Anthropic deployment and is left out for svc-fast; json_schema reaches both", async () => {
      const schema = { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'] };
      const response_format = { type: 'json_schema' as const, json_schema: { name: 'answer', schema } };
      g.openai.chat.enqueue({ json: { answer: 'def f(): pass' } });
      const code = await openai.chat.completions
        .create({ model: 'svc-shiplow', reasoning_effort: 'high', response_format, messages: [{ role: 'user', content: 'Write a Python function that reverses a list.' }] })
        .withResponse();
      expectLane(sdkAnswer(code), 'svc-shiplow', 'code', 'svc-fast');
      const fast = g.openai.requests.at(-1)!.body as Record<string, unknown>;
      assert.equal(fast.reasoning_effort, undefined, "svc-fast's deployment takes no reasoning parameters");
      assert.deepEqual(fast.response_format, response_format);
      const math = await openai.chat.completions
        .create({ model: 'svc-shiplow', reasoning_effort: 'high', max_tokens: 20_000, messages: [{ role: 'user', content: 'Solve for x: 4x - 7 = 21' }] })
        .withResponse();
      expectLane(sdkAnswer(math), 'svc-shiplow', 'math', 'svc-pro');
      assert.deepEqual((g.anthropic.requests.at(-1)!.body as { thinking?: unknown }).thinking, { type: 'enabled', budget_tokens: 10_000 });
    });
  });

  describe('the lane of a text document', () => {
    const CODE = 'import os\n\ndef walk(root):\n    for dirpath, dirs, files in os.walk(root):\n        for f in files:\n            if f.endswith(".py"):\n                yield os.path.join(dirpath, f)\n';

    it('messages: a plain-text document of code with a short question goes to the code lane, streamed and not', async () => {
      const body = {
        model: 'svc-shiplow',
        max_tokens: 200,
        messages: [{ role: 'user' as const, content: [{ type: 'document' as const, source: { type: 'text' as const, media_type: 'text/plain' as const, data: CODE } }, { type: 'text' as const, text: 'What does this do?' }] }],
      };
      expectLane(sdkAnswer(await anthropic.messages.create(body).withResponse()), 'svc-shiplow', 'code', 'svc-fast');
      const streamed = await streamedAnswer(anthropic.messages.create({ ...body, stream: true }).withResponse(), streamModel.messages);
      expectLane(streamed, 'svc-shiplow', 'code', 'svc-fast');
    });

    it('svc-auto reads it too: a Spanish letter in a document is multilingual', async () => {
      const letter = 'Hola Marta, te escribo para contarte que mañana llegaré tarde a la reunión porque tengo una cita con el médico a primera hora. Nos vemos después.';
      const r = await anthropic.messages
        .create({ model: 'svc-auto', max_tokens: 200, messages: [{ role: 'user', content: [{ type: 'document', source: { type: 'text', media_type: 'text/plain', data: letter } }] }] })
        .withResponse();
      expectLane(sdkAnswer(r), 'svc-fast', 'multilingual', 'svc-fast');
    });
  });

  describe('an executor failing before its answer', () => {
    const USAGE = { input: 120, cached: 20, output: 15 };

    /** One usage record for the request: who served, in which lane, and the bill at `prices` for USAGE alone. */
    async function expectBilled(rowsBefore: number, creditsBefore: bigint, record: [string, string, string, string], prices: { input: bigint; cached: bigint; output: bigint }): Promise<void> {
      const rows = await waitForUsage(g.t, acct.id, rowsBefore + 1);
      assert.equal(rows.length, rowsBefore + 1, 'one usage record');
      const row = rows[0]!;
      assert.deepEqual([row.model, row.served_model, row.lane, row.provider], record);
      assert.deepEqual([row.input_tokens, row.cached_input_tokens, row.output_tokens], [USAGE.input, USAGE.cached, USAGE.output], 'what the upstream that answered reported');
      assert.equal(BigInt(row.cost_micro), expectedCost(prices, USAGE));
      assert.equal(creditsBefore - (await accountCredits(g.t, acct.id)).credits, expectedCost(prices, USAGE));
    }

    for (const stream of [false, true]) {
      it(`svc-shiplow's code lane: svc-fast's 503 hands over to svc-pro, named in the headers, billed at svc-shiplow's prices (${stream ? 'streamed' : 'not streamed'})`, async () => {
        const rows = (await usageRows(g.t, acct.id)).length;
        const credits = (await accountCredits(g.t, acct.id)).credits;
        g.openai.chat.enqueue({ error: { status: 503, message: 'overloaded' } });
        g.anthropic.chat.enqueue({ text: 'def reverse(xs): return xs[::-1]', usage: USAGE });
        const body = { model: 'svc-shiplow', messages: [{ role: 'user' as const, content: 'Write a Python function that reverses a list.' }] };
        const answer = stream
          ? await streamedAnswer(openai.chat.completions.create({ ...body, stream: true, stream_options: { include_usage: true } }).withResponse(), streamModel.chat)
          : sdkAnswer(await openai.chat.completions.create(body).withResponse());
        expectLane(answer, 'svc-shiplow', 'code', 'svc-pro');
        await expectBilled(rows, credits, ['svc-shiplow', 'svc-pro', 'code', 'anthropic-main'], PRICES['svc-shiplow']);
      });
    }

    it("svc-auto's choice falls back within the chosen model only: svc-pro's Anthropic 529, then its OpenAI deployment, at svc-pro's prices", async () => {
      const rows = (await usageRows(g.t, acct.id)).length;
      const credits = (await accountCredits(g.t, acct.id)).credits;
      g.anthropic.chat.enqueue({ error: { status: 529, type: 'overloaded_error', message: 'Overloaded' } });
      g.openai.chat.enqueue({ text: 'x = 7', usage: USAGE });
      const r = await anthropic.messages.create({ model: 'svc-auto', max_tokens: 300, messages: [{ role: 'user', content: 'Solve for x: 4x - 7 = 21' }] }).withResponse();
      expectLane(sdkAnswer(r), 'svc-pro', 'math', 'svc-pro');
      assert.equal((g.openai.requests.at(-1)!.body as { model: string }).model, 'gpt-4.1');
      await expectBilled(rows, credits, ['svc-auto', 'svc-pro', 'math', 'openai-main'], PRICES['svc-pro']);
    });

    it('a page on another origin may read x-svc-model and x-svc-lane', async () => {
      const r = await fetch(`${g.t.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${acct.key}`, 'content-type': 'application/json', origin: 'https://app.example' },
        body: JSON.stringify({ model: 'svc-ultra', messages: [{ role: 'user', content: 'hello there' }] }),
      });
      assert.equal(r.status, 200);
      await r.text();
      const exposed = (r.headers.get('access-control-expose-headers') ?? '').split(/,\s*/);
      assert.ok(exposed.includes('x-svc-model') && exposed.includes('x-svc-lane'), exposed.join());
      assert.deepEqual([r.headers.get('x-svc-lane'), r.headers.get('x-svc-model')], ['general', 'svc-pro']);
    });
  });

  describe("svc-ultra's executors' own limits", () => {
    const image = (text: string) => [{ type: 'text' as const, text }, { type: 'image_url' as const, image_url: { url: `data:image/png;base64,${PNG}` } }];

    it('an image with more output than the vision executor gives is a 400, not an upstream refusal', async () => {
      await expectRefused(
        () => openai.chat.completions.create({ model: 'svc-ultra', max_tokens: 500_000, messages: [{ role: 'user', content: image('Describe this picture.') }] }),
        /^model svc-ultra: no executor takes this request \(images, about \d+ input tokens, 500000 output tokens\)$/,
      );
    });

    it('the same on responses, streamed: the 400 comes before any event', async () => {
      await expectRefused(
        () =>
          openai.responses.create({
            model: 'svc-ultra',
            max_output_tokens: 500_000,
            stream: true,
            input: [{ role: 'user', content: [{ type: 'input_text', text: 'Describe this picture.' }, { type: 'input_image', image_url: `data:image/png;base64,${PNG}`, detail: 'auto' }] }],
          }),
        /^model svc-ultra: no executor takes this request \(images, about \d+ input tokens, 500000 output tokens\)$/,
      );
    });

    it('an image with more input than the vision executor takes is a 400 on messages too', async () => {
      const long = 'The quick brown fox jumps over the lazy dog. '.repeat(30_000); // about 300K tokens
      await expectRefused(
        () =>
          anthropic.messages.create({
            model: 'svc-ultra',
            max_tokens: 1000,
            messages: [{ role: 'user', content: [{ type: 'text', text: long }, { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } }] }],
          }),
        /^model svc-ultra: no executor takes this request \(images, about \d+ input tokens, 1000 output tokens\)$/,
      );
    });

    it('text asking for more output than svc-fast gives still goes to svc-pro, which gives it', async () => {
      const r = await openai.chat.completions.create({ model: 'svc-ultra', max_tokens: 1_000_000, messages: [{ role: 'user', content: 'Write a long story about a lighthouse keeper.' }] }).withResponse();
      expectLane(sdkAnswer(r), 'svc-ultra', 'general', 'svc-pro');
      assert.equal((g.anthropic.requests.at(-1)!.body as { max_tokens: number }).max_tokens, 1_000_000);
    });
  });
});
