import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import OpenAI from 'openai';
import { Agent, fetch as undiciFetch } from 'undici';
import { startGateway, type Gateway } from './helpers/gateway.ts';
import { createTestAccount } from './helpers/inference.ts';
import { waitFor } from './helpers/wait.ts';

const ENV = { RATE_LIMIT_INFERENCE_PER_MINUTE: '100000' };

function textOf(r: OpenAI.Responses.Response): string {
  return r.output.flatMap((o) => (o.type === 'message' ? o.content.map((c) => (c.type === 'output_text' ? c.text : '')) : [])).join('');
}

/**
 * Stored responses are written in group-committed batches, yet an answer still comes only once its
 * response is committed: many concurrent requests on one instance, each retrieved and continued on
 * another instance of the same database the moment its answer arrives.
 */
describe('/v1/responses: many concurrent stored responses', () => {
  let one: Gateway;
  let two: Gateway;
  before(async () => {
    one = await startGateway({ env: ENV });
    two = await startGateway({ env: ENV, database: one.t.database });
  });
  after(async () => {
    await two.close();
    await one.close();
  });

  it('each is retrievable by id from the other instance right after its answer, and chains with previous_response_id', async () => {
    const acct = await createTestAccount(one.t, { credits: 100_000 });
    const first = one.client(acct.key);
    const second = two.client(acct.key);
    const N = 48;
    one.openai.chat.enqueue(...Array.from({ length: N }, (_, i) => ({ text: `Answer number ${i} from instance one.` })));
    // Bounded output, so each request holds its estimate rather than half of what the account has
    // left: open-output holds on one instance can lease nearly the whole balance, and the other
    // instance is then refused (the todo test in inference-credits-two-instances.test.ts).
    const runs = Array.from({ length: N }, async (_, i) => {
      const body = { model: 'svc-fast', input: `Question number ${i}?`, max_output_tokens: 64 } as const;
      const r = i % 2 === 0 ? await first.responses.create(body) : await first.responses.stream(body).finalResponse();
      const got = await second.responses.retrieve(r.id);
      assert.equal(got.id, r.id);
      assert.equal(textOf(got), textOf(r));
      assert.match(textOf(r), /^Answer number \d+ from instance one\.$/);
      const next = await second.responses.create({ model: 'svc-fast', input: `Follow-up number ${i}.`, max_output_tokens: 64, previous_response_id: r.id });
      assert.equal(next.previous_response_id, r.id);
      const again = await first.responses.retrieve(next.id);
      assert.equal(again.id, next.id);
      return textOf(r);
    });
    const answers = await Promise.all(runs);
    assert.equal(new Set(answers).size, N, 'every request got an answer of its own');
    // The continuation of request i sent the upstream request i's question and answer.
    for (let i = 0; i < N; i++) {
      const seen = two.openai.requests.map((q) => JSON.stringify(q.body)).filter((b) => b.includes(`Follow-up number ${i}.`));
      assert.equal(seen.length, 1, `follow-up ${i}`);
      assert.ok(seen[0]!.includes(`Question number ${i}?`), `follow-up ${i} carries its question`);
      assert.ok(seen[0]!.includes(answers[i]!), `follow-up ${i} carries its answer`);
    }
  });

  it('an instance closed with responses in flight answers only responses it stored', async () => {
    const three = await startGateway({ env: ENV, database: one.t.database });
    const acct = await createTestAccount(one.t, { credits: 100_000 });
    // A connection per request: a keep-alive connection whose request finished after close() began
    // would hold the closing server until its keep-alive timeout (72 s).
    const noKeepAlive = new Agent({ pipelining: 0 });
    const client = new OpenAI({ apiKey: acct.key, baseURL: `${three.t.url}/v1`, maxRetries: 0, fetch: undiciFetch as never, fetchOptions: { dispatcher: noKeepAlive } as never });
    const ask = (i: number): Promise<OpenAI.Responses.Response> => {
      if (i % 2 === 0) return client.responses.create({ model: 'svc-fast', input: `q${i}` });
      const stream = client.responses.stream({ model: 'svc-fast', input: `q${i}` });
      stream.on('error', () => {});
      return stream.finalResponse();
    };
    // Requests that reach the instance once it is closing fail (503, connection refused): not answered.
    const runs = Array.from({ length: 32 }, (_, i) => ask(i).catch(() => null));
    await waitFor(() => three.openai.requests.length >= 8, { message: () => `${three.openai.requests.length} of the first 8 requests reached the upstream`, everyMs: 1 });
    await three.close();
    const answered = (await Promise.all(runs)).filter((r) => r !== null);
    assert.ok(answered.length >= 8, `${answered.length} answered`);
    for (const r of answered) assert.equal((await two.client(acct.key).responses.retrieve(r.id)).id, r.id);
    await noKeepAlive.close();
  });
});
