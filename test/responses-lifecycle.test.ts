import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import OpenAI from 'openai';
import { inputItemIdsMigration } from '../src/storage/migrations/2026_11_29_20_response_input_item_ids.ts';
import { startWithSdks, type Gateway } from './helpers/gateway.ts';
import { createTestAccount, type TestAccount } from './helpers/inference.ts';
import { waitFor } from './helpers/wait.ts';

/**
 * The lifecycle of a stored response with the `openai` SDK: delete, input items, a streamed
 * response retrievable while it runs, cancel (docs/api-decisions.md, "Responses: lifecycle endpoints").
 */
type Ev = { type: string; response?: Record<string, unknown> & { id: string } } & Record<string, unknown>;
type Item = { id: string; type: string; role?: string; content?: { type: string; text?: string }[] } & Record<string, unknown>;

/** A response without the fields the SDK adds on its own. */
function wire(r: object): unknown {
  return JSON.parse(JSON.stringify(r, (k, v) => (['output_text', 'output_parsed', 'parsed', 'parsed_arguments'].includes(k) ? undefined : v)));
}

const textOf = (i: Item) => i.content?.map((p) => p.text).join('');

describe('responses: lifecycle endpoints', () => {
  let g: Gateway;
  let acct: TestAccount;
  let openai: OpenAI;
  let other: OpenAI;

  before(async () => {
    ({ g, acct, openai } = await startWithSdks());
    other = g.client((await createTestAccount(g.t, { credits: 1000 })).key);
  });
  // Every gate opens when the suite ends, so a failed test leaves no stream held at the upstream.
  const gates: (() => void)[] = [];
  after(async () => {
    for (const open of gates) open();
    await g.close();
  });

  const notFound = (p: Promise<unknown>, message = 'response not found') =>
    assert.rejects(p, (e: unknown) => e instanceof OpenAI.NotFoundError && e.message.includes(message));
  const badRequest = (p: Promise<unknown>, message: string) =>
    assert.rejects(p, (e: unknown) => e instanceof OpenAI.BadRequestError && e.message.includes(message));
  const get = (path: string) => fetch(`${g.t.url}${path}`, { headers: { authorization: `Bearer ${acct.key}` } });

  /** Starts a streamed response and reads it up to its first text delta: the stream, the events so far, and its id. */
  async function streamUntilText(input: string) {
    const stream = await openai.responses.create({ model: 'svc-fast', input, stream: true });
    const events: Ev[] = [];
    const iterator = (stream as unknown as AsyncIterable<Ev>)[Symbol.asyncIterator]();
    for (;;) {
      const next = await iterator.next();
      assert.ok(!next.done, 'the stream ended before its first text delta');
      events.push(next.value);
      if (next.value.type === 'response.output_text.delta') break;
    }
    const rest = async () => {
      for (;;) {
        const next = await iterator.next();
        if (next.done) return events;
        events.push(next.value);
      }
    };
    return { stream, events, id: events[0]!.response!.id, rest };
  }

  function gate() {
    let release!: () => void;
    const until = new Promise<void>((r) => (release = r));
    gates.push(release);
    return { until, release };
  }

  describe('DELETE /v1/responses/:id', () => {
    it('deletes for the owner; then retrieve, delete, input items, cancel and previous_response_id are 404; another account sees 404 as for an unknown id', async () => {
      g.openai.chat.enqueue({ text: 'one' }, { text: 'two' });
      const r1 = await openai.responses.create({ model: 'svc-fast', input: 'first' });
      const r2 = await openai.responses.create({ model: 'svc-fast', input: 'second', previous_response_id: r1.id });

      await notFound(other.responses.delete(r1.id));
      await notFound(openai.responses.delete('resp_doesnotexist000000000000'));
      assert.equal((await openai.responses.retrieve(r1.id)).id, r1.id, "another account's delete left it");

      const answer = await openai.responses.delete(r1.id).asResponse();
      assert.equal(answer.status, 200);
      assert.deepEqual(await answer.json(), { id: r1.id, object: 'response.deleted', deleted: true });

      await notFound(openai.responses.retrieve(r1.id));
      await notFound(openai.responses.delete(r1.id));
      await notFound(openai.responses.inputItems.list(r1.id));
      await notFound(openai.responses.cancel(r1.id));
      await notFound(openai.responses.create({ model: 'svc-fast', input: 'x', previous_response_id: r1.id }));
      await badRequest(openai.responses.create({ model: 'svc-fast', input: [{ type: 'item_reference', id: r1.output[0]!.id! }] }), 'no stored item');

      // A response that continued the deleted one is still there, but its conversation is not.
      assert.equal((await openai.responses.retrieve(r2.id)).status, 'completed');
      await notFound(openai.responses.create({ model: 'svc-fast', input: 'x', previous_response_id: r2.id }), 'earlier responses have expired or were deleted');
      const items = (await openai.responses.inputItems.list(r2.id)).data as unknown as Item[];
      assert.deepEqual(items.map(textOf), ['second'], 'only what was not deleted');
    });
  });

  describe('GET /v1/responses/:id/input_items', () => {
    it('lists the conversation the response was given, newest first, with stable ids; order, limit and after page as the SDK does', async () => {
      g.openai.chat.enqueue({ text: 'answer one' }, { text: 'answer two' });
      const r1 = await openai.responses.create({ model: 'svc-fast', input: [{ role: 'developer', content: 'Be brief.' }, { role: 'user', content: 'first' }] });
      const page = await openai.responses.inputItems.list(r1.id);
      const items = page.data as unknown as Item[];
      assert.deepEqual(items.map((i) => [i.type, i.role, textOf(i)]), [['message', 'user', 'first'], ['message', 'developer', 'Be brief.']]);
      for (const i of items) assert.match(i.id, /^msg_[A-Za-z0-9]{24}$/);
      assert.equal(page.has_more, false);
      const raw = await (await get(`/v1/responses/${r1.id}/input_items`)).json();
      assert.deepEqual(raw, { object: 'list', data: items, first_id: items[0]!.id, last_id: items[1]!.id, has_more: false });
      assert.deepEqual((await openai.responses.inputItems.list(r1.id)).data, page.data, 'the same ids on every listing');

      // A continuation lists what the model was given: the earlier turn's items, then its own input.
      const r2 = await openai.responses.create({ model: 'svc-fast', input: 'second', previous_response_id: r1.id });
      const all: Item[] = [];
      for await (const item of openai.responses.inputItems.list(r2.id, { order: 'asc', limit: 1 })) all.push(item as unknown as Item);
      assert.deepEqual(all.map((i) => [i.role, textOf(i)]), [['developer', 'Be brief.'], ['user', 'first'], ['assistant', 'answer one'], ['user', 'second']]);
      assert.deepEqual(all.slice(0, 2).map((i) => i.id), [items[1]!.id, items[0]!.id]);
      assert.equal(all[2]!.id, r1.output[0]!.id, "the earlier answer's item, under its id");

      const first = await openai.responses.inputItems.list(r2.id, { limit: 2 });
      assert.deepEqual((first.data as unknown as Item[]).map(textOf), ['second', 'answer one']);
      assert.equal(first.has_more, true);
      const next = await openai.responses.inputItems.list(r2.id, { limit: 2, after: first.data[1]!.id! });
      assert.deepEqual((next.data as unknown as Item[]).map(textOf), ['first', 'Be brief.']);
      assert.equal(next.has_more, false);
      const asc = await openai.responses.inputItems.list(r2.id, { order: 'asc', after: all[1]!.id });
      assert.deepEqual((asc.data as unknown as Item[]).map(textOf), ['answer one', 'second']);
      // include is taken, as on create and retrieve.
      assert.equal((await openai.responses.inputItems.list(r2.id, { include: ['message.input_image.image_url'] })).data.length, 4);
      await notFound(other.responses.inputItems.list(r2.id));
    });

    it('bad parameters are 400s naming the parameter', async () => {
      g.openai.chat.enqueue({ text: 'ok' });
      const r = await openai.responses.create({ model: 'svc-fast', input: 'hello' });
      const refused = async (query: string, message: string) => {
        const res = await get(`/v1/responses/${r.id}/input_items?${query}`);
        assert.equal(res.status, 400, query);
        assert.deepEqual(await res.json(), { error: message });
      };
      const LIMIT = 'limit: must be an integer from 1 to 100';
      await refused('limit=0', LIMIT);
      await refused('limit=101', LIMIT);
      await refused('limit=2.5', LIMIT);
      await refused('limit=ten', LIMIT);
      await refused('order=up', 'order: must be asc or desc');
      await refused('after=msg_unknown', 'after: no input item msg_unknown in this response');
      await refused('after=', 'after: must not be empty');
      // The SDK's own limits are its own; a good query still answers.
      assert.equal((await get(`/v1/responses/${r.id}/input_items?limit=100&order=asc`)).status, 200);
    });

    it('a response stored before items had ids lists them under ids given once by the migration', async () => {
      g.openai.chat.enqueue({ text: 'ok' });
      const r = await openai.responses.create({ model: 'svc-fast', input: [{ role: 'user', content: 'old' }, { type: 'function_call', call_id: 'c1', name: 'f', arguments: '{}' }, { type: 'function_call_output', call_id: 'c1', output: 'done' }] });
      const db = g.t.deps.db;
      // As the service stored input items before: without ids.
      await sql`update responses set input_items = (select jsonb_agg(item - 'id' order by n) from jsonb_array_elements(input_items) with ordinality as e(item, n)) where id = ${r.id}`.execute(db);
      await inputItemIdsMigration.up(db as never);
      const once = (await openai.responses.inputItems.list(r.id, { order: 'asc' })).data as unknown as Item[];
      assert.deepEqual(once.map((i) => i.type), ['message', 'function_call', 'function_call_output']);
      assert.match(once[0]!.id, /^msg_/);
      assert.match(once[1]!.id, /^fc_/);
      assert.match(once[2]!.id, /^fco_/);
      await inputItemIdsMigration.up(db as never);
      assert.deepEqual((await openai.responses.inputItems.list(r.id, { order: 'asc' })).data, once, 'running it again changes nothing');
    });
  });

  describe('a response being streamed', () => {
    it('is retrievable in_progress, listed, neither continued nor cancelled; when it ends, retrieve gives the final response under the same id', async () => {
      const { until, release } = gate();
      g.openai.chat.enqueue({ text: 'Hello there, my friend', pauseAfter: { events: 2, until } });
      const s = await streamUntilText('hi');
      const running = await openai.responses.retrieve(s.id);
      assert.equal(running.status, 'in_progress');
      assert.deepEqual(wire(running), s.events[0]!.response, 'the response of response.created');
      assert.deepEqual(((await openai.responses.inputItems.list(s.id)).data as unknown as Item[]).map(textOf), ['hi']);
      await badRequest(openai.responses.create({ model: 'svc-fast', input: 'x', previous_response_id: s.id }), `previous_response_id: response ${s.id} is still in progress`);
      await badRequest(openai.responses.cancel(s.id), 'Cannot cancel a synchronous response.');
      await notFound(other.responses.retrieve(s.id));

      release();
      const events = await s.rest();
      const done = events.at(-1)!;
      assert.equal(done.type, 'response.completed');
      const got = await openai.responses.retrieve(s.id);
      assert.equal(got.status, 'completed');
      assert.deepEqual(wire(got), done.response);
      // The finished response carries its conversation on.
      g.openai.chat.enqueue({ text: 'again' });
      const next = await openai.responses.create({ model: 'svc-fast', input: 'more', previous_response_id: s.id });
      assert.equal(next.status, 'completed');
      const sent = g.openai.requests.at(-1)!.body as { messages: { role: string; content: unknown }[] };
      assert.deepEqual(sent.messages.map((m) => m.role), ['user', 'assistant', 'user']);
    });

    it('deleted while it runs, it stays deleted when it ends', async () => {
      const { until, release } = gate();
      g.openai.chat.enqueue({ text: 'Hello there, my friend', pauseAfter: { events: 2, until } });
      const s = await streamUntilText('hi');
      assert.deepEqual(await (await openai.responses.delete(s.id).asResponse()).json(), { id: s.id, object: 'response.deleted', deleted: true });
      await notFound(openai.responses.retrieve(s.id));
      release();
      assert.equal((await s.rest()).at(-1)!.type, 'response.completed');
      await notFound(openai.responses.retrieve(s.id));
      await notFound(openai.responses.inputItems.list(s.id));
      await notFound(openai.responses.create({ model: 'svc-fast', input: 'x', previous_response_id: s.id }));
    });

    it('left by its client, it is not kept (404, as before)', async () => {
      g.openai.chat.enqueue({ text: 'Hello there, my friend', stallAfter: 2 });
      const s = await streamUntilText('hi');
      assert.equal((await openai.responses.retrieve(s.id)).status, 'in_progress');
      s.stream.controller.abort();
      await waitFor(
        async () => {
          try {
            await openai.responses.retrieve(s.id);
            return false;
          } catch (e) {
            return e instanceof OpenAI.NotFoundError;
          }
        },
        { message: 'the abandoned response is still retrievable' },
      );
    });

    it('with store: false, it is never retrievable', async () => {
      const { until, release } = gate();
      g.openai.chat.enqueue({ text: 'Hello there, my friend', pauseAfter: { events: 2, until } });
      const stream = await openai.responses.create({ model: 'svc-fast', input: 'hi', stream: true, store: false });
      const iterator = (stream as unknown as AsyncIterable<Ev>)[Symbol.asyncIterator]();
      let id = '';
      for (;;) {
        const e = (await iterator.next()).value as Ev;
        if (e.type === 'response.created') id = e.response!.id;
        if (e.type === 'response.output_text.delta') break;
      }
      await notFound(openai.responses.retrieve(id));
      release();
      for (;;) if ((await iterator.next()).done) break;
      await notFound(openai.responses.retrieve(id));
    });
  });

  describe('POST /v1/responses/:id/cancel', () => {
    it("a response not created in the background is OpenAI's 400; an unknown or another account's id 404; background stays refused", async () => {
      g.openai.chat.enqueue({ text: 'ok' });
      const r = await openai.responses.create({ model: 'svc-fast', input: 'hello' });
      const res = await fetch(`${g.t.url}/v1/responses/${r.id}/cancel`, { method: 'POST', headers: { authorization: `Bearer ${acct.key}` } });
      assert.equal(res.status, 400);
      assert.deepEqual(await res.json(), { error: 'Cannot cancel a synchronous response.' });
      await badRequest(openai.responses.cancel(r.id), 'Cannot cancel a synchronous response.');
      await notFound(other.responses.cancel(r.id));
      await notFound(openai.responses.cancel('resp_doesnotexist000000000000'));
      await badRequest(openai.responses.create({ model: 'svc-fast', input: 'x', background: true }), 'background: is not supported');
      assert.equal((await openai.responses.retrieve(r.id)).status, 'completed');
    });
  });
});
