import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import OpenAI from 'openai';
import type { FakeChatScenario } from './fakes/fake-scenario.ts';
import type { FakeServer } from './fakes/fake-server.ts';
import { accountCredits, expectedCost, PRICES, startGateway, waitForUsage, type Gateway } from './helpers/gateway.ts';
import { createTestAccount, manualClock, type TestAccount } from './helpers/inference.ts';
import { waitFor } from './helpers/wait.ts';
import { pruneExpiredResponses } from '../src/inference/responses/responses.repository.ts';
import { assertResponsePaid, type CallUsage } from './helpers/books.ts';


const KINDS = [
  { name: 'OpenAI-style', model: 'svc-fast' as const, fake: (g: Gateway) => g.openai },
  { name: 'Anthropic', model: 'svc-vision' as const, fake: (g: Gateway) => g.anthropic },
];

/**
 * A credit lease is trusted for half its stale period of the app's clock, so after the test moves
 * the clock by days the instance's lease is out of date and a request is refused (402) until it is
 * renewed or gone: wait until the account's idle lease went back (CREDIT_LEASE_IDLE_MS, 100 ms
 * here), so the next request takes a new one, valid from the moved clock.
 */
const leaseReturned = (g: Gateway, accountId: number) =>
  waitFor(
    async () => (await g.t.deps.db.selectFrom('accounts').select('reserved').where('id', '=', accountId).executeTakeFirstOrThrow()).reserved === 0n,
    { message: `the credit lease of account ${accountId} did not go back` },
  );

/** The books of an account: the ledger sums to the balance and nothing stays held. */
async function assertBooks(g: Gateway, accountId: number): Promise<void> {
  const db = g.t.deps.db;
  // The instance's credit lease goes back once the account is idle (CREDIT_LEASE_IDLE_MS), after its charges are written.
  await leaseReturned(g, accountId);
  const a = await db.selectFrom('accounts').select(['credits', 'reserved']).where('id', '=', accountId).executeTakeFirstOrThrow();
  const l = await db.selectFrom('credit_ledger').select(sql<bigint>`coalesce(sum(amount), 0)::bigint`.as('sum')).where('account_id', '=', accountId).executeTakeFirstOrThrow();
  assert.equal(l.sum, a.credits, 'the ledger sums to the balance');
  assert.equal(a.reserved, 0n, 'no credits stay reserved');
}

/** The text of a response's message items (the SDK computes output_text only for responses.create). */
function textOf(r: OpenAI.Responses.Response): string {
  return r.output.flatMap((o) => (o.type === 'message' ? o.content.map((c) => (c.type === 'output_text' ? c.text : '')) : [])).join('');
}

/** Text of every message the upstream received in its last request (both kinds), joined. */
function upstreamText(fake: FakeServer): string {
  return JSON.stringify(fake.requests.at(-1)!.body);
}

describe('/v1/responses over both upstream kinds', () => {
  let g: Gateway;
  const clock = manualClock();
  before(async () => {
    g = await startGateway({ clock });
  });
  after(() => g.close());

  /** Runs fn and checks the account paid exactly the sum of the upstream calls' usages at the brand's prices. */
  async function billed(acct: TestAccount, model: keyof typeof PRICES, usages: readonly CallUsage[], fn: () => Promise<unknown>): Promise<void> {
    await assertResponsePaid(g, acct.id, PRICES[model], usages, fn, 'charged the sum of the upstream usages');
  }

  for (const kind of KINDS) {
    describe(`${kind.name} (${kind.model})`, () => {
      const u1 = { input: 321, cached: 100, output: 45 };
      const u2 = { input: 654, cached: 0, output: 12 };
      const u3 = { input: 987, cached: 300, output: 7 };

      it('responses.create answers with a resp_ id, the brand as model, output_text and usage', async () => {
        const acct = await createTestAccount(g.t, { credits: 1000 });
        kind.fake(g).chat.enqueue({ text: 'Hello from responses.', usage: u1 });
        let r!: OpenAI.Responses.Response;
        await billed(acct, kind.model, [u1], async () => {
          r = await g.client(acct.key).responses.create({ model: kind.model, input: 'Say hello', max_output_tokens: 200 });
        });
        assert.match(r.id, /^resp_[A-Za-z0-9]{24}$/);
        assert.equal(r.object, 'response');
        assert.equal(r.model, kind.model);
        assert.equal(r.status, 'completed');
        assert.equal(r.output_text, 'Hello from responses.');
        assert.equal(r.output[0]!.type, 'message');
        assert.deepEqual(r.usage, {
          input_tokens: 321,
          input_tokens_details: { cached_tokens: 100 },
          output_tokens: 45,
          output_tokens_details: { reasoning_tokens: 0 },
          total_tokens: 366,
        });
        const got = await g.client(acct.key).responses.retrieve(r.id);
        assert.equal(got.id, r.id);
        assert.equal(got.output_text, 'Hello from responses.');
      });

      it('responses.stream(...).finalResponse() with the full event sequence', async () => {
        const acct = await createTestAccount(g.t, { credits: 1000 });
        kind.fake(g).chat.enqueue({ text: 'A streamed answer in pieces.', usage: u2 });
        const events: { type: string; sequence_number: number; response?: { id: string } }[] = [];
        let final!: OpenAI.Responses.Response;
        await billed(acct, kind.model, [u2], async () => {
          const stream = g.client(acct.key).responses.stream({ model: kind.model, input: 'Stream please' });
          stream.on('event', (e) => events.push(e as never));
          final = await stream.finalResponse();
        });
        assert.equal(textOf(final), 'A streamed answer in pieces.');
        assert.equal(final.status, 'completed');
        assert.equal(final.usage?.output_tokens, 12);
        assert.equal(events[0]!.type, 'response.created');
        assert.equal(events[1]!.type, 'response.in_progress');
        assert.equal(events.at(-1)!.type, 'response.completed');
        assert.equal(events[0]!.response!.id, final.id);
        assert.equal(events.at(-1)!.response!.id, final.id);
        events.forEach((e, i) => assert.equal(e.sequence_number, i));
        const types = events.map((e) => e.type);
        for (const t of ['response.output_item.added', 'response.content_part.added', 'response.output_text.delta', 'response.output_text.done', 'response.content_part.done', 'response.output_item.done']) {
          assert.ok(types.includes(t), t);
        }
      });

      it('continues a three-turn conversation by previous_response_id; the upstream gets the whole history', async () => {
        const acct = await createTestAccount(g.t, { credits: 1000 });
        const client = g.client(acct.key);
        kind.fake(g).chat.enqueue({ text: 'First answer alpha.', usage: u1 }, { text: 'Second answer beta.', usage: u2 }, { text: 'Third answer gamma.', usage: u3 });
        const r1 = await client.responses.create({ model: kind.model, input: 'Question one', instructions: 'Speak like a pirate.' });
        const r2 = await client.responses.create({ model: kind.model, input: 'Question two', previous_response_id: r1.id });
        let seen2 = upstreamText(kind.fake(g));
        assert.ok(seen2.includes('Question one') && seen2.includes('First answer alpha.') && seen2.includes('Question two'));
        assert.ok(!seen2.includes('Speak like a pirate.'), 'instructions are not carried over');
        const stream = client.responses.stream({ model: kind.model, input: [{ role: 'user', content: 'Question three' }], previous_response_id: r2.id, instructions: 'Be brief.' });
        const r3 = await stream.finalResponse();
        seen2 = upstreamText(kind.fake(g));
        for (const s of ['Question one', 'First answer alpha.', 'Question two', 'Second answer beta.', 'Question three', 'Be brief.']) assert.ok(seen2.includes(s), s);
        assert.equal(textOf(r3), 'Third answer gamma.');
        assert.equal(r3.previous_response_id, r2.id);
      });

      it('store: false stores nothing, and continuing it is 404', async () => {
        const acct = await createTestAccount(g.t, { credits: 1000 });
        const client = g.client(acct.key);
        kind.fake(g).chat.enqueue({ text: 'Not kept.' });
        const r = await client.responses.create({ model: kind.model, input: 'hi', store: false });
        assert.equal((r as unknown as { store: boolean }).store, false);
        await assert.rejects(client.responses.create({ model: kind.model, input: 'again', previous_response_id: r.id }), (e: unknown) => e instanceof OpenAI.NotFoundError && e.message.includes('response not found'));
        await assert.rejects(client.responses.retrieve(r.id), OpenAI.NotFoundError);
      });

      it('a function-tool loop, not streamed then streamed', async () => {
        const acct = await createTestAccount(g.t, { credits: 1000 });
        const client = g.client(acct.key);
        const tools: OpenAI.Responses.Tool[] = [
          { type: 'function', name: 'get_time', description: 'Current time in a city', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] }, strict: true },
        ];
        for (const streamed of [false, true]) {
          kind.fake(g).chat.enqueue({ toolCalls: [{ name: 'get_time', arguments: { city: 'Oslo' } }], usage: u1 }, { text: 'It is noon in Oslo.', usage: u2 });
          const run = async (body: OpenAI.Responses.ResponseCreateParamsNonStreaming) =>
            streamed ? client.responses.stream(body as never).finalResponse() : client.responses.create(body);
          let r1!: OpenAI.Responses.Response;
          await billed(acct, kind.model, [u1], async () => {
            r1 = await run({ model: kind.model, input: 'What time is it in Oslo?', tools });
          });
          const call = r1.output.find((o): o is OpenAI.Responses.ResponseFunctionToolCall => o.type === 'function_call');
          assert.ok(call, 'a function_call item');
          assert.equal(call.name, 'get_time');
          assert.deepEqual(JSON.parse(call.arguments), { city: 'Oslo' });
          assert.match(call.call_id, /^call_/);
          let r2!: OpenAI.Responses.Response;
          await billed(acct, kind.model, [u2], async () => {
            r2 = await run({ model: kind.model, previous_response_id: r1.id, input: [{ type: 'function_call_output', call_id: call.call_id, output: '12:00' }], tools });
          });
          assert.equal(textOf(r2), 'It is noon in Oslo.');
          const seen = upstreamText(kind.fake(g));
          assert.ok(seen.includes('get_time') && seen.includes('12:00') && seen.includes(call.call_id));
        }
      });

      it('structured output with text.format json_schema', async () => {
        const acct = await createTestAccount(g.t, { credits: 1000 });
        kind.fake(g).chat.enqueue({ json: { city: 'Paris', population: 2100000 } });
        const r = await g.client(acct.key).responses.create({
          model: kind.model,
          input: 'Give me a city',
          text: { format: { type: 'json_schema', name: 'city', schema: { type: 'object', properties: { city: { type: 'string' }, population: { type: 'number' } }, required: ['city', 'population'] }, strict: true } },
        });
        assert.deepEqual(JSON.parse(r.output_text), { city: 'Paris', population: 2100000 });
      });
    });
  }

  it('an image input on a vision model, and 400 naming the item on one without vision', async () => {
    const acct = await createTestAccount(g.t, { credits: 1000 });
    const client = g.client(acct.key);
    g.anthropic.chat.enqueue({ text: 'A red square.' });
    const input: OpenAI.Responses.ResponseInput = [
      { role: 'user', content: [{ type: 'input_text', text: 'What is this?' }, { type: 'input_image', image_url: 'data:image/png;base64,iVBORw0KGgo=', detail: 'auto' }] },
    ];
    const r = await client.responses.create({ model: 'svc-vision', input });
    assert.equal(r.output_text, 'A red square.');
    assert.ok(upstreamText(g.anthropic).includes('iVBORw0KGgo='));
    await assert.rejects(client.responses.create({ model: 'svc-fast', input }), (e: unknown) => e instanceof OpenAI.BadRequestError && e.message.includes('input[0]: model svc-fast does not accept images'));
  });

  it("another account's response id is 404, exactly like one that never existed", async () => {
    const owner = await createTestAccount(g.t, { credits: 1000 });
    const other = await createTestAccount(g.t, { credits: 1000 });
    g.openai.chat.enqueue({ text: 'Mine.' });
    const r = await g.client(owner.key).responses.create({ model: 'svc-fast', input: 'hi' });
    const missing = async (p: Promise<unknown>) => {
      const e = await p.then(() => null, (x: unknown) => x);
      assert.ok(e instanceof OpenAI.NotFoundError);
      return e.message;
    };
    const foreign = await missing(g.client(other.key).responses.create({ model: 'svc-fast', input: 'x', previous_response_id: r.id }));
    const never = await missing(g.client(other.key).responses.create({ model: 'svc-fast', input: 'x', previous_response_id: 'resp_doesnotexist000000000000' }));
    assert.equal(foreign, never);
    assert.equal(await missing(g.client(other.key).responses.retrieve(r.id)), await missing(g.client(other.key).responses.retrieve('resp_doesnotexist000000000000')));
  });

  it('400s name the field', async () => {
    const acct = await createTestAccount(g.t, { credits: 1000 });
    const client = g.client(acct.key);
    const bad = async (body: object, message: string) =>
      assert.rejects(client.responses.create(body as never), (e: unknown) => e instanceof OpenAI.BadRequestError && e.message.includes(message));
    await bad({ model: 'svc-fast' }, 'input: is required');
    await bad({ model: 'svc-fast', input: 'x', temperature: 5 }, 'temperature: must be <= 2');
    await bad({ model: 'svc-fast', input: 'x', tools: [{ type: 'web_search' }] }, 'tools[0].type: unsupported tool type');
    await bad({ model: 'svc-fast', input: [{ type: 'function_call_output', output: 'x' }] }, 'input[0].call_id: is required');
    await bad({ model: 'svc-fast', input: 'x', text: { format: { type: 'json_schema', name: 'x' } } }, 'text.format.schema: must be an object');
    await bad({ model: 'svc-fast', input: 'x', max_output_tokens: 10_000_000 }, 'max_output_tokens: must be <= 900000');
    // Deleting is supported (test/responses-lifecycle.test.ts): an unknown id is not found.
    const r = await g.t.app.inject({ method: 'DELETE', url: '/v1/responses/resp_x', headers: { authorization: `Bearer ${acct.key}` } });
    assert.equal(r.statusCode, 404);
    assert.deepEqual(r.json(), { error: 'response not found' });
  });

  it('retention: an expired response answers 404, a chain whose start expired says so, and pruning deletes the rows', async () => {
    const acct = await createTestAccount(g.t, { credits: 1000 });
    const client = g.client(acct.key);
    g.openai.chat.enqueue({ text: 'old' }, { text: 'newer' });
    const r1 = await client.responses.create({ model: 'svc-fast', input: 'one' });
    clock.advance(20 * 86_400_000);
    await leaseReturned(g, acct.id);
    const r2 = await client.responses.create({ model: 'svc-fast', input: 'two', previous_response_id: r1.id });
    clock.advance(11 * 86_400_000);
    await leaseReturned(g, acct.id);
    await assert.rejects(client.responses.retrieve(r1.id), OpenAI.NotFoundError);
    await assert.rejects(client.responses.create({ model: 'svc-fast', input: 'x', previous_response_id: r1.id }), (e: unknown) => e instanceof OpenAI.NotFoundError && e.message.includes('response not found'));
    await assert.rejects(
      client.responses.create({ model: 'svc-fast', input: 'x', previous_response_id: r2.id }),
      (e: unknown) => e instanceof OpenAI.NotFoundError && e.message.includes('earlier responses have expired'),
    );
    const db = g.t.deps.db;
    const count = async (id: string) => Number((await db.selectFrom('responses').select(sql<number>`count(*)::int`.as('n')).where('id', '=', id).executeTakeFirstOrThrow()).n);
    assert.equal(await count(r1.id), 1);
    const deleted = await pruneExpiredResponses(db, new Date(clock.now()));
    assert.ok(deleted >= 1);
    assert.equal(await count(r1.id), 0, 'expired rows are gone');
    assert.equal(await count(r2.id), 1, 'a live response stays');
    const items = await db.selectFrom('response_items').select('item_id').where('response_id', '=', r1.id).execute();
    assert.equal(items.length, 0);
    await assert.rejects(client.responses.create({ model: 'svc-fast', input: 'x', previous_response_id: r2.id }), (e: unknown) => e instanceof OpenAI.NotFoundError && e.message.includes('earlier responses have expired'));
  });

  it('an abandoned stream is billed for what the upstream produced', async () => {
    const acct = await createTestAccount(g.t, { credits: 1000 });
    const text = 'Abandoned responses are billed for what was produced.';
    g.anthropic.chat.enqueue({ text, usage: { input: 500, cached: 0, output: 99 }, stallAfter: 6 } satisfies FakeChatScenario);
    const before = await accountCredits(g.t, acct.id);
    const stream = await g.client(acct.key).responses.create({ model: 'svc-vision', input: 'Tell me', stream: true });
    let got = '';
    for await (const e of stream) {
      if (e.type === 'response.output_text.delta') got += e.delta;
      if (got.length > 0) break;
    }
    assert.equal(await g.anthropic.requests.at(-1)!.closed, 'aborted');
    const rows = await waitForUsage(g.t, acct.id, 1);
    const row = rows[0]!;
    assert.equal(row.status, 499);
    assert.equal(row.input_tokens, 500, 'Anthropic reports input first');
    assert.ok(row.output_tokens > 0);
    const after = await accountCredits(g.t, acct.id);
    assert.equal(before.credits - after.credits, expectedCost(PRICES['svc-vision'], { input: row.input_tokens, cached: row.cached_input_tokens, output: row.output_tokens }));
    await assertBooks(g, acct.id);
  });
});
