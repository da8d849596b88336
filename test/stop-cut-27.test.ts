import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type OpenAI from 'openai';
import { FAKE_ANTHROPIC_KEY } from './fakes/fake-anthropic.ts';
import { accountCredits, expectedCost, PRICES, startGateway, waitForUsage, type Gateway } from './helpers/gateway.ts';
import { createTestAccount } from './helpers/inference.ts';

/**
 * Chat completions' and completions' stop sequences that an Anthropic upstream refuses (whitespace
 * only) on a model it serves: left out of `stop_sequences` and cut by the service, streamed and not
 * (docs/api-decisions.md, "Stop sequences an Anthropic upstream refuses (session 27)").
 */
describe('stop sequences an Anthropic upstream refuses', () => {
  let g: Gateway;

  before(async () => {
    g = await startGateway({ env: { RATE_LIMIT_INFERENCE_PER_MINUTE: '10000' } });
  });
  after(() => g.close());

  const CREDITS = 1_000;
  /** A fresh account's client, and a check that the one charge it made equals its usage record and `usage`. */
  async function account(): Promise<{ client: OpenAI; billed: (usage: { prompt_tokens: number; completion_tokens: number } | undefined) => Promise<void> }> {
    const acct = await createTestAccount(g.t, { credits: CREDITS });
    return {
      client: g.client(acct.key),
      async billed(usage) {
        assert.ok(usage, 'the answer has its usage');
        const [row] = await waitForUsage(g.t, acct.id, 1);
        assert.deepEqual([row!.status, row!.input_tokens, row!.output_tokens], [200, usage.prompt_tokens, usage.completion_tokens]);
        assert.equal(BigInt(row!.cost_micro), expectedCost(PRICES['svc-vision'], { input: usage.prompt_tokens, output: usage.completion_tokens }));
        const { credits } = await accountCredits(g.t, acct.id);
        assert.equal(BigInt(CREDITS) * 1_000_000n - credits, BigInt(row!.cost_micro));
      },
    };
  }
  const lastAnthropicBody = () => g.anthropic.requests.at(-1)!.body as Record<string, unknown>;
  const hi = [{ role: 'user' as const, content: 'hi' }];

  async function streamed(client: OpenAI, body: Omit<OpenAI.ChatCompletionCreateParamsStreaming, 'stream'>) {
    const chunks: OpenAI.ChatCompletionChunk[] = [];
    for await (const c of await client.chat.completions.create({ ...body, stream: true, stream_options: { include_usage: true } })) chunks.push(c);
    const choices = chunks.flatMap((c) => c.choices);
    return {
      chunks,
      text: choices.map((c) => c.delta.content ?? '').join(''),
      finishes: choices.map((c) => c.finish_reason).filter((f) => f !== null && f !== undefined),
      toolCalls: choices.flatMap((c) => c.delta.tool_calls ?? []),
      usage: chunks.at(-1)!.usage ?? undefined,
    };
  }

  it('the fake Anthropic upstream refuses a whitespace-only stop sequence, as the API does', async () => {
    const r = await fetch(`${g.anthropic.url}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': FAKE_ANTHROPIC_KEY, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'claude-x', max_tokens: 10, stop_sequences: ['END', '\n'], messages: hi }),
    });
    assert.equal(r.status, 400);
    assert.match(((await r.json()) as { error: { message: string } }).error.message, /^stop_sequences: each stop sequence must contain non-whitespace/);
  });

  describe('chat completions', () => {
    it('stop "\\n", not streamed: the answer ends before the first newline, finish stop, billed as the upstream reported', async () => {
      const { client, billed } = await account();
      g.anthropic.chat.enqueue({ text: 'First line\nSecond line', usage: { input: 30, cached: 0, output: 9 } });
      const r = await client.chat.completions.create({ model: 'svc-vision', messages: hi, stop: '\n' });
      assert.equal(r.choices[0]!.message.content, 'First line');
      assert.equal(r.choices[0]!.finish_reason, 'stop');
      assert.equal(lastAnthropicBody().stop_sequences, undefined);
      assert.deepEqual([r.usage?.prompt_tokens, r.usage?.completion_tokens], [30, 9]);
      await billed(r.usage);
    });

    it('["\\n\\n", "END"], not streamed: END still goes to the upstream, which stops at it; "\\n\\n" is cut here', async () => {
      const { client, billed } = await account();
      g.anthropic.chat.enqueue({ text: 'One.\n\nTwo END three' });
      const r = await client.chat.completions.create({ model: 'svc-vision', messages: hi, stop: ['\n\n', 'END'] });
      assert.equal(r.choices[0]!.message.content, 'One.');
      assert.equal(r.choices[0]!.finish_reason, 'stop');
      assert.deepEqual(lastAnthropicBody().stop_sequences, ['END']);
      await billed(r.usage);

      g.anthropic.chat.enqueue({ text: 'Go END\n\nmore' });
      const upstreamStop = await client.chat.completions.create({ model: 'svc-vision', messages: hi, stop: ['\n\n', 'END'] });
      assert.equal(upstreamStop.choices[0]!.message.content, 'Go ');
      assert.equal(upstreamStop.choices[0]!.finish_reason, 'stop');
    });

    it('stop "\\n", streamed with the newline split from its text: cut, finish stop, usage chunk, upstream closed, billed as counted', async () => {
      const { client, billed } = await account();
      // Pieces of four characters: "One " | "line" | "\nTwo" | " mor" ... ; the stream stalls after the
      // third piece, so only a stream that stops reading at the cut ends.
      g.anthropic.chat.enqueue({ text: 'One line\nTwo more lines follow here', stallAfter: 6 });
      const s = await streamed(client, { model: 'svc-vision', messages: hi, stop: ['\n'] });
      assert.equal(s.text, 'One line');
      assert.deepEqual(s.finishes, ['stop']);
      assert.equal(await g.anthropic.requests.at(-1)!.closed, 'aborted');
      assert.equal(lastAnthropicBody().stop_sequences, undefined);
      // Input as message_start reported it; output counted on the text up to the cut.
      assert.equal(s.usage?.prompt_tokens, 40);
      assert.ok(s.usage!.completion_tokens > 0);
      await billed(s.usage);
    });

    it('["\\n\\n", "END"], streamed: a sequence split across deltas is cut, the text before it held back only as long as it could start one', async () => {
      const { client, billed } = await account();
      // "Para" | " one" | ".\n" | "\nPar" ...: "\n\n" spans two deltas.
      g.anthropic.chat.enqueue({ text: 'Para one.\n\nPara two.', usage: { input: 20, cached: 0, output: 8 } });
      const s = await streamed(client, { model: 'svc-vision', messages: hi, stop: ['\n\n', 'END'] });
      assert.equal(s.text, 'Para one.');
      assert.deepEqual(s.finishes, ['stop']);
      assert.deepEqual(lastAnthropicBody().stop_sequences, ['END']);
      await billed(s.usage);
    });

    it('held text is sent when the stream ends without a match: a trailing newline, a trailing "EN"', async () => {
      const { client } = await account();
      g.anthropic.chat.enqueue({ text: 'Almost\n' });
      const a = await streamed(client, { model: 'svc-vision', messages: hi, stop: ['\n\n', 'END'] });
      assert.deepEqual([a.text, a.finishes], ['Almost\n', ['stop']]);
      g.anthropic.chat.enqueue({ text: 'Ends in EN', finish: 'length' });
      const b = await streamed(client, { model: 'svc-vision', messages: hi, stop: ['\n\n', 'END'] });
      assert.deepEqual([b.text, b.finishes], ['Ends in EN', ['length']]);
    });

    it('an answer that starts with the sequence is empty, streamed or not', async () => {
      const { client } = await account();
      g.anthropic.chat.enqueue({ text: '\nHello' });
      const s = await streamed(client, { model: 'svc-vision', messages: hi, stop: '\n' });
      assert.deepEqual([s.text, s.finishes, s.chunks.at(-1)!.usage?.prompt_tokens], ['', ['stop'], 40]);
      g.anthropic.chat.enqueue({ text: '\nHello' });
      const r = await client.chat.completions.create({ model: 'svc-vision', messages: hi, stop: '\n' });
      assert.deepEqual([r.choices[0]!.message.content, r.choices[0]!.finish_reason], ['', 'stop']);
    });

    it('tool calls after a cut are not sent, streamed or not', async () => {
      const { client } = await account();
      const tools: OpenAI.ChatCompletionTool[] = [{ type: 'function', function: { name: 'lookup', parameters: { type: 'object', properties: {} } } }];
      const scenario = { text: 'Let me look.\nCalling now', toolCalls: [{ name: 'lookup', arguments: { q: 'x' } }] };
      g.anthropic.chat.enqueue(scenario);
      const r = await client.chat.completions.create({ model: 'svc-vision', messages: hi, tools, stop: '\n' });
      assert.equal(r.choices[0]!.message.content, 'Let me look.');
      assert.equal(r.choices[0]!.message.tool_calls, undefined);
      assert.equal(r.choices[0]!.finish_reason, 'stop');
      g.anthropic.chat.enqueue(scenario);
      const s = await streamed(client, { model: 'svc-vision', messages: hi, tools, stop: '\n' });
      assert.deepEqual([s.text, s.toolCalls, s.finishes], ['Let me look.', [], ['stop']]);
    });

    it('an upstream that answers a streamed call whole is cut the same way', async () => {
      const { client } = await account();
      g.anthropic.chat.enqueue({ text: 'Whole\nanswer', ignoreStream: true });
      const s = await streamed(client, { model: 'svc-vision', messages: hi, stop: ' \n' });
      assert.deepEqual([s.text, s.finishes], ['Whole\nanswer', ['stop']]);
      g.anthropic.chat.enqueue({ text: 'Whole \nanswer', ignoreStream: true });
      const cut = await streamed(client, { model: 'svc-vision', messages: hi, stop: ' \n' });
      assert.deepEqual([cut.text, cut.finishes], ['Whole', ['stop']]);
    });

    it('an OpenAI-compatible upstream gets the stop as before', async () => {
      const { client } = await account();
      g.openai.chat.enqueue({ text: 'fine' });
      await client.chat.completions.create({ model: 'svc-fast', messages: hi, stop: ['\n', 'END'] });
      assert.deepEqual((g.openai.requests.at(-1)!.body as { stop: unknown }).stop, ['\n', 'END']);
    });
  });

  describe('completions', () => {
    it('stop "\\n", not streamed and streamed: the text ends before it, finish stop, billed as recorded', async () => {
      const { client, billed } = await account();
      g.anthropic.chat.enqueue({ text: 'Line one\nLine two', usage: { input: 12, cached: 0, output: 6 } });
      const r = await client.completions.create({ model: 'svc-vision', prompt: 'Say two lines', stop: '\n' });
      assert.deepEqual([r.choices[0]!.text, r.choices[0]!.finish_reason], ['Line one', 'stop']);
      assert.equal(lastAnthropicBody().stop_sequences, undefined);
      await billed(r.usage);

      const second = await account();
      g.anthropic.chat.enqueue({ text: 'Abc\n\ndef', usage: { input: 12, cached: 0, output: 6 } });
      const chunks: OpenAI.Completion[] = [];
      for await (const c of await second.client.completions.create({ model: 'svc-vision', prompt: 'p', stop: ['\n\n', 'END'], stream: true, stream_options: { include_usage: true } })) chunks.push(c);
      const choices = chunks.flatMap((c) => c.choices);
      assert.equal(choices.map((c) => c.text).join(''), 'Abc');
      assert.deepEqual(choices.map((c) => c.finish_reason).filter((f) => f !== null && f !== undefined), ['stop']);
      await second.billed(chunks.at(-1)!.usage);
    });
  });

  it('responses has no stop field: nothing reaches an Anthropic upstream as stop_sequences', async () => {
    const { client } = await account();
    g.anthropic.chat.enqueue({ text: 'a\nb' });
    const r = await client.responses.create({ model: 'svc-vision', input: 'hi' });
    assert.equal(r.output_text, 'a\nb');
    assert.equal(lastAnthropicBody().stop_sequences, undefined);
  });
});
