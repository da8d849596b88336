import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type Anthropic from '@anthropic-ai/sdk';
import type OpenAI from 'openai';
import type { FakeChatScenario, ScenarioQueue } from '../fakes/fake-scenario.ts';
import type { RecordedRequest } from '../fakes/fake-server.ts';
import { accountCredits, expectedCost, PLAIN_RESILIENCE, startShippedWithSdks, usageRows, waitForUsage, type Gateway } from './gateway.ts';
import type { TestAccount } from './inference.ts';

/** What any protocol's answer shows of its routing: its `model` and its response headers. */
export interface RoutedAnswer {
  readonly model: string;
  readonly header: (name: string) => string | null;
}

export interface RouteExpectation {
  /** `x-svc-lane` (null: no header, a plain model). */
  readonly lane: string | null;
  /** `x-svc-model`: the executing brand (null: no header). */
  readonly executor: string | null;
  /** The answer's `model`: the requested brand, or svc-auto's choice. */
  readonly answerModel: string;
  /** The fake upstream that must serve the call, and the upstream model name it must be asked for. */
  readonly fake: { readonly chat: ScenarioQueue; readonly requests: RecordedRequest[] };
  readonly upstreamModel: string;
  /** The usage the fake reports (queued here with a plain text answer). */
  readonly usage: { readonly input: number; readonly cached: number; readonly output: number };
  /** The prices the request must be billed at (micro-credits per 1K). */
  readonly prices: { readonly input: bigint; readonly cached: bigint; readonly output: bigint };
  /** The usage record's `model` and `served_model`. */
  readonly record: { readonly model: string; readonly servedModel: string | null };
  /** Extra scenario fields for the fake (tool calls, ...). */
  readonly scenario?: FakeChatScenario;
}

/**
 * Sends one request through `send` (any SDK, any protocol) and checks where it went and how it was
 * billed: the lane and executor headers, the answer's model, the fake upstream that served it with
 * the right upstream model, one usage record with the requested and executing brands, and a
 * balance change equal to the usage recomputed at `prices`.
 */
export async function expectRouted(g: Gateway, acct: TestAccount, send: () => Promise<RoutedAnswer>, e: RouteExpectation): Promise<void> {
  const seen = e.fake.requests.length;
  const before = await accountCredits(g.t, acct.id);
  const rowsBefore = (await usageRows(g.t, acct.id)).length;
  e.fake.chat.enqueue({ text: 'Routed answer.', ...e.scenario, usage: e.usage });
  const answer = await send();
  assert.equal(answer.header('x-svc-lane'), e.lane, 'x-svc-lane');
  assert.equal(answer.header('x-svc-model'), e.executor, 'x-svc-model');
  assert.equal(answer.model, e.answerModel, "the answer's model");
  assert.equal(e.fake.requests.length, seen + 1, 'the expected upstream served it, once');
  assert.equal((e.fake.requests.at(-1)!.body as { model: string }).model, e.upstreamModel, 'the upstream model asked for');
  const rows = await waitForUsage(g.t, acct.id, rowsBefore + 1);
  const row = rows[0]!;
  assert.deepEqual([row.model, row.served_model, row.lane, row.status], [e.record.model, e.record.servedModel, e.lane, 200], 'the usage record');
  const cost = expectedCost(e.prices, e.usage);
  assert.equal(BigInt(row.cost_micro), cost, 'billed at the expected prices');
  const after = await accountCredits(g.t, acct.id);
  assert.equal(before.credits - after.credits, cost, 'the balance moved by the recomputed cost');
  assert.equal(after.reserved, 0n, 'no hold left');
}

/** The answer and headers of an SDK call made `.withResponse()` (openai or @anthropic-ai/sdk). */
export function sdkAnswer(r: { data: { model: string }; response: Response }): RoutedAnswer {
  return { model: r.data.model, header: (n) => r.response.headers.get(n) };
}

/**
 * The answer of a streamed SDK call made `.withResponse()`, read to its end: every event that names
 * a model (`modelOf` returns undefined for the others) must name the same one.
 */
export async function streamedAnswer<E>(p: Promise<{ data: AsyncIterable<E>; response: Response }>, modelOf: (event: E) => string | undefined): Promise<RoutedAnswer> {
  const { data, response } = await p;
  const models = new Set<string>();
  for await (const e of data) {
    const m = modelOf(e);
    if (m !== undefined) models.add(m);
  }
  assert.equal(models.size, 1, `the stream names one model: ${[...models].join(', ')}`);
  return { model: [...models][0]!, header: (n) => response.headers.get(n) };
}

/** Where each streaming protocol names the model: every chat chunk, messages' message_start, the responses events that carry the response. */
export const streamModel = {
  chat: (c: { model: string }) => c.model,
  messages: (e: { type: string; message?: { model: string } }) => (e.type === 'message_start' ? e.message!.model : undefined),
  responses: (e: { type: string; response?: { model: string } }) => e.response?.model,
};

/**
 * The lane suites' checks (routing-audit-28, -29): each reported prompt takes its lane through
 * svc-shiplow on chat completions and streamed messages and through svc-ultra on responses, and
 * each probe prompt through chat completions (`x-svc-lane`), on the shipped catalog.
 */
export function describeLanes(title: string, reported: readonly (readonly [string, string])[], probes: Readonly<Record<string, readonly string[]>>): void {
  describe(title, () => {
    let g: Gateway;
    let openai: OpenAI;
    let anthropic: Anthropic;

    before(async () => {
      ({ g, openai, anthropic } = await startShippedWithSdks(PLAIN_RESILIENCE));
    });
    after(() => g.close());

    const laneOf = async (text: string) => {
      const r = await openai.chat.completions.create({ model: 'svc-shiplow', messages: [{ role: 'user', content: text }] }).withResponse();
      return sdkAnswer(r).header('x-svc-lane');
    };

    it('the reported prompts take their lanes through chat completions, messages and responses', async () => {
      for (const [text, lane] of reported) {
        assert.equal(await laneOf(text), lane, text);
        const m = await streamedAnswer(anthropic.messages.create({ model: 'svc-shiplow', max_tokens: 300, messages: [{ role: 'user', content: text }], stream: true }).withResponse(), streamModel.messages);
        assert.equal(m.header('x-svc-lane'), lane, text);
        const r = sdkAnswer(await openai.responses.create({ model: 'svc-ultra', input: text }).withResponse());
        assert.equal(r.header('x-svc-lane'), lane, text);
      }
    });

    for (const [lane, texts] of Object.entries(probes)) {
      it(`${lane}: the probe's prompts of that lane`, async () => {
        for (const text of texts) assert.equal(await laneOf(text), lane, text);
      });
    }
  });
}
