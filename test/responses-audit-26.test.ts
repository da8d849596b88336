import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import OpenAI from 'openai';
import { startWithSdks, type Gateway } from './helpers/gateway.ts';
import { createTestAccount, type TestAccount } from './helpers/inference.ts';

/**
 * Responses and messages against the wire facts of ../shared/guide/protocols.md, through the
 * official SDKs (docs/api-decisions.md, "Responses and messages: wire audit (session 26)").
 */
type Item = { id: string; type: string; role?: string; content?: { type: string; text?: string }[] } & Record<string, unknown>;
type UpstreamMessage = { role: string; content: unknown };

describe('responses and messages: wire audit (session 26)', () => {
  let g: Gateway;
  let acct: TestAccount;
  let openai: OpenAI;
  let other: OpenAI;

  before(async () => {
    ({ g, acct, openai } = await startWithSdks());
    other = g.client((await createTestAccount(g.t, { credits: 1000 })).key);
  });
  after(async () => {
    await g.close();
  });

  const badRequest = (p: Promise<unknown>, message: string) =>
    assert.rejects(p, (e: unknown) => e instanceof OpenAI.BadRequestError && e.message.includes(message));
  const lastUpstreamMessages = () => (g.openai.requests.at(-1)!.body as { messages: UpstreamMessage[] }).messages;

  describe('item_reference', () => {
    it('resolves the ids of earlier input items, as of output items; another account gets 400 for them', async () => {
      g.openai.chat.enqueue({ text: 'answer one' }, { text: 'answer two' });
      const r1 = await openai.responses.create({ model: 'svc-fast', input: [{ role: 'developer', content: 'Be brief.' }, { role: 'user', content: 'first' }] });
      const inputs = (await openai.responses.inputItems.list(r1.id, { order: 'asc' })).data as unknown as Item[];
      assert.deepEqual(inputs.map((i) => i.role), ['developer', 'user']);

      const r2 = await openai.responses.create({
        model: 'svc-fast',
        store: false,
        input: [
          { type: 'item_reference', id: inputs[0]!.id },
          { type: 'item_reference', id: inputs[1]!.id },
          { type: 'item_reference', id: r1.output[0]!.id! },
          { role: 'user', content: 'second' },
        ],
      });
      assert.equal(r2.output_text, 'answer two');
      assert.deepEqual(
        lastUpstreamMessages().map((m) => [m.role, typeof m.content === 'string' ? m.content : JSON.stringify(m.content)]),
        [['system', 'Be brief.'], ['user', 'first'], ['assistant', 'answer one'], ['user', 'second']].map(([role, text]) => [role, text]),
      );

      await badRequest(other.responses.create({ model: 'svc-fast', input: [{ type: 'item_reference', id: inputs[1]!.id }] }), `input[0].id: no stored item ${inputs[1]!.id}`);
    });
  });

  describe('ownership', () => {
    it("another key of the same account retrieves, continues and references the first key's responses", async () => {
      const issued = await g.t.app.inject({ method: 'POST', url: `/admin/accounts/${acct.id}/keys`, headers: g.t.admin, payload: { name: 'second' } });
      assert.equal(issued.statusCode, 201);
      const second = g.client(issued.json().key as string);
      g.openai.chat.enqueue({ text: 'one' }, { text: 'two' }, { text: 'three' });
      const r1 = await openai.responses.create({ model: 'svc-fast', instructions: 'Answer in French.', input: 'first' });
      assert.deepEqual((await second.responses.retrieve(r1.id)).output, r1.output);
      const r2 = await second.responses.create({ model: 'svc-fast', input: 'second', previous_response_id: r1.id });
      assert.equal(r2.output_text, 'two');
      assert.deepEqual(
        lastUpstreamMessages().map((m) => m.role),
        ['user', 'assistant', 'user'],
        'the earlier instructions are not carried over',
      );
      const inputs = (await openai.responses.inputItems.list(r1.id)).data as unknown as Item[];
      await second.responses.create({ model: 'svc-fast', store: false, input: [{ type: 'item_reference', id: inputs[0]!.id }] });
      assert.deepEqual(lastUpstreamMessages().map((m) => [m.role, m.content]), [['user', 'first']]);
    });
  });
});

