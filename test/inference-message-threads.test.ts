import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { postJson, startWithSdks, usageRows, type SdkSetup } from './helpers/gateway.ts';
import { createTestAccount } from './helpers/inference.ts';

const weatherTool = {
  name: 'get_weather',
  description: 'weather',
  input_schema: { type: 'object' as const, properties: { city: { type: 'string' } }, required: ['city'] },
};

type Sent = { messages: { role: string; content: unknown }[]; tools?: { function: { name: string } }[] };

/**
 * Message threads (the Anthropic SDK's `thread` field, which its tool runner and
 * `beta.messages.thread()` use): the gateway keeps the conversation between turns, so each turn
 * sends only its new messages and the upstream still gets the whole conversation.
 */
describe('message threads through the Anthropic SDK', () => {
  let s: SdkSetup;
  before(async () => {
    s = await startWithSdks();
  });
  after(() => s.g.close());

  for (const stream of [false, true]) {
    it(`the tool runner${stream ? ', streamed,' : ''} sends only new messages and the upstream gets the whole conversation`, async () => {
      s.g.openai.chat.enqueue({ toolCalls: [{ name: 'get_weather', arguments: { city: 'Rome' } }] }, { text: 'Rome is warm.' });
      const seen: unknown[] = [];
      const before = s.g.openai.requests.length;
      const rowsBefore = (await usageRows(s.g.t, s.acct.id)).length;
      const runner = s.anthropic.beta.messages.toolRunner({
        model: 'svc-fast',
        max_tokens: 200,
        system: 'Be brief.',
        messages: [{ role: 'user', content: 'weather in Rome?' }],
        tools: [{ ...weatherTool, run: (input: unknown) => (seen.push(input), 'warm') }],
        ...(stream ? { stream: true as const } : {}),
      });
      const final = await runner.runUntilDone();
      assert.equal(final.content[0]?.type === 'text' && final.content[0].text, 'Rome is warm.');
      assert.deepEqual(seen, [{ city: 'Rome' }]);
      const sent = s.g.openai.requests.slice(before).map((r) => r.body as Sent);
      assert.equal(sent.length, 2);
      // The second turn: the system prompt, the question, the model's call and its result, and the tools.
      const second = sent[1]!;
      assert.deepEqual(second.messages.map((m) => m.role), ['system', 'user', 'assistant', 'tool']);
      assert.equal(second.messages[0]!.content, 'Be brief.');
      assert.deepEqual(second.tools?.map((t) => t.function.name), ['get_weather']);
      // Both turns billed.
      assert.equal((await usageRows(s.g.t, s.acct.id)).length, rowsBefore + 2);
    });
  }

  it('over an Anthropic upstream, streamed with thinking: the upstream gets its own signatures back in the thread', async () => {
    s.g.anthropic.chat.enqueue({ reasoning: 'Need the weather.', toolCalls: [{ name: 'get_weather', arguments: { city: 'Oslo' } }] }, { reasoning: 'Now answer.', text: 'Oslo is cold.' });
    const before = s.g.anthropic.requests.length;
    const runner = s.anthropic.beta.messages.toolRunner({
      model: 'svc-vision',
      max_tokens: 4000,
      thinking: { type: 'enabled', budget_tokens: 2000 },
      messages: [{ role: 'user', content: 'weather in Oslo?' }],
      tools: [{ ...weatherTool, run: () => 'cold' }],
      stream: true,
    });
    const final = await runner.runUntilDone();
    assert.deepEqual(final.content.map((b) => b.type), ['thinking', 'text']);
    const second = s.g.anthropic.requests.slice(before)[1]!.body as { messages: { role: string; content: { type: string; signature?: string }[] }[]; tools?: unknown[] };
    assert.deepEqual(second.messages.map((m) => m.role), ['user', 'assistant', 'user']);
    assert.deepEqual(second.messages[1]!.content.map((b) => b.type), ['thinking', 'tool_use']);
    assert.equal(second.messages[1]!.content[0]!.signature, 'EqQBfakeanthropicsignature');
    assert.equal(second.tools?.length, 1);
  });

  it('beta.messages.thread() keeps a plain conversation turn after turn', async () => {
    s.g.openai.chat.enqueue({ text: 'Hello, Ada.' }, { text: 'Your name is Ada.' });
    const before = s.g.openai.requests.length;
    const thread = s.anthropic.beta.messages.thread({ model: 'svc-fast', max_tokens: 100 });
    const first = await thread.send({ role: 'user', content: 'I am Ada.' });
    assert.equal(first.content[0]?.type === 'text' && first.content[0].text, 'Hello, Ada.');
    const second = await thread.send({ role: 'user', content: 'What is my name?' });
    assert.equal(second.content[0]?.type === 'text' && second.content[0].text, 'Your name is Ada.');
    const last = s.g.openai.requests.slice(before).at(-1)!.body as Sent;
    assert.deepEqual(
      last.messages.map((m) => [m.role, m.content]),
      [
        ['user', 'I am Ada.'],
        ['assistant', 'Hello, Ada.'],
        ['user', 'What is my name?'],
      ],
    );
  });

  it('a turn continues a thread of its own account only; an unknown id is 404 naming the field', async () => {
    s.g.openai.chat.enqueue({ text: 'Kept.' });
    const created = await postJson(s.g, s.acct.key, '/inference/v1/messages', { model: 'svc-fast', max_tokens: 50, messages: [{ role: 'user', content: 'hi' }], thread: { type: 'create' } });
    assert.equal(created.status, 200);
    const id = ((await created.json()) as { id: string }).id;
    const other = await createTestAccount(s.g.t, { credits: 1000 });
    const next = { model: 'svc-fast', max_tokens: 50, messages: [{ role: 'user', content: 'and?' }], thread: { type: 'continue', previous_message_id: id } };
    for (const [key, wanted] of [
      [other.key, id],
      [s.acct.key, 'msg_unknown000000000000000000'],
    ] as const) {
      const r = await postJson(s.g, key, '/inference/v1/messages', { ...next, thread: { type: 'continue', previous_message_id: wanted } });
      assert.equal(r.status, 404);
      assert.deepEqual(await r.json(), { error: `thread.previous_message_id: no thread has a message ${wanted}` });
    }
  });

  it('a continuing turn may not change system or tools; a malformed thread is 400 naming the field', async () => {
    s.g.openai.chat.enqueue({ text: 'Kept.' });
    const created = await postJson(s.g, s.acct.key, '/inference/v1/messages', { model: 'svc-fast', max_tokens: 50, system: 'A', messages: [{ role: 'user', content: 'hi' }], thread: { type: 'create' } });
    const id = ((await created.json()) as { id: string }).id;
    const base = { model: 'svc-fast', max_tokens: 50, messages: [{ role: 'user', content: 'and?' }] };
    const cases: [unknown, string][] = [
      [{ ...base, system: 'B', thread: { type: 'continue', previous_message_id: id } }, 'system: cannot be set on a turn that continues a thread'],
      [{ ...base, tools: [weatherTool], thread: { type: 'continue', previous_message_id: id } }, 'tools: cannot be set on a turn that continues a thread'],
      [{ ...base, thread: { type: 'fork' } }, 'thread.type: must be one of'],
      [{ ...base, thread: { type: 'continue' } }, 'thread.previous_message_id: is required'],
      [{ ...base, thread: 'create' }, 'thread: must be an object'],
    ];
    for (const [body, message] of cases) {
      const r = await postJson(s.g, s.acct.key, '/inference/v1/messages', body);
      assert.equal(r.status, 400, JSON.stringify(body));
      const { error } = (await r.json()) as { error: string };
      assert.ok(error.startsWith(message), `${error} (wanted ${message})`);
    }
  });

  it('count_tokens counts a continuing turn with its thread', async () => {
    s.g.openai.chat.enqueue({ text: 'A long answer to keep in the thread, word after word after word.' });
    const created = await postJson(s.g, s.acct.key, '/inference/v1/messages', { model: 'svc-fast', max_tokens: 50, messages: [{ role: 'user', content: 'tell me' }], thread: { type: 'create' } });
    const id = ((await created.json()) as { id: string }).id;
    const alone = await s.anthropic.messages.countTokens({ model: 'svc-fast', messages: [{ role: 'user', content: 'more' }] });
    const r = await postJson(s.g, s.acct.key, '/inference/v1/messages/count_tokens', { model: 'svc-fast', messages: [{ role: 'user', content: 'more' }], thread: { type: 'continue', previous_message_id: id } });
    assert.equal(r.status, 200);
    assert.ok(((await r.json()) as { input_tokens: number }).input_tokens > alone.input_tokens);
  });

  it('a failed turn is not kept: continuing from it is 404', async () => {
    s.g.openai.chat.enqueue({ text: 'one two three four five six seven', streamErrorAfter: { events: 4 } });
    const failed = await postJson(s.g, s.acct.key, '/inference/v1/messages', { model: 'svc-fast', max_tokens: 50, stream: true, messages: [{ role: 'user', content: 'hi' }], thread: { type: 'create' } });
    const text = await failed.text();
    assert.match(text, /event: error/);
    const id = /"id":"(msg_[A-Za-z0-9]+)"/.exec(text)![1]!;
    const r = await postJson(s.g, s.acct.key, '/inference/v1/messages', { model: 'svc-fast', max_tokens: 50, messages: [{ role: 'user', content: 'again' }], thread: { type: 'continue', previous_message_id: id } });
    assert.equal(r.status, 404);
  });
});
