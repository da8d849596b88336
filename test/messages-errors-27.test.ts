import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import { accountCredits, startGateway, usageRows, waitForUsage, type Gateway } from './helpers/gateway.ts';
import { createTestAccount, type TestAccount } from './helpers/inference.ts';
import { sdkFailure } from './helpers/sdk-failure.ts';

type APIError = InstanceType<typeof Anthropic.APIError>;

/**
 * `/v1/messages` errors as an `@anthropic-ai/sdk` user meets them, status by status: the SDK's
 * class, `request-id`, an overloaded upstream as Anthropic's 529 (docs/api-decisions.md,
 * "Messages errors by status (session 27)").
 */
describe('messages errors by status (session 27)', () => {
  let g: Gateway;
  let acct: TestAccount;
  let client: Anthropic;
  const hi = [{ role: 'user' as const, content: 'hi' }];
  const base = { max_tokens: 10, messages: hi };

  before(async () => {
    g = await startGateway({ env: { RATE_LIMIT_INFERENCE_PER_MINUTE: '10000', BODY_LIMIT_BYTES: '8192' } });
    acct = await createTestAccount(g.t, { credits: 1000 });
    client = new Anthropic({ apiKey: acct.key, baseURL: `${g.t.url}/inference`, maxRetries: 0 });
  });
  after(() => g.close());

  /** Runs `call`, which must fail, and gives the SDK's error: its class, status, request id. */
  const failure = (call: () => Promise<unknown>): Promise<APIError> => sdkFailure(Anthropic.APIError, call);

  /** The body and headers the SDK kept: the documented `{"error": "<message>"}` and a `request-id` equal to `x-request-id`. */
  function documented(e: APIError): string {
    assert.equal(typeof (e.error as { error?: unknown }).error, 'string', JSON.stringify(e.error));
    assert.ok(e.requestID, 'request-id on the error');
    assert.equal(e.requestID, e.headers?.get('x-request-id'));
    return (e.error as { error: string }).error;
  }

  async function settledUnchanged(accountId: number, credits: bigint): Promise<void> {
    const after = await accountCredits(g.t, accountId);
    assert.deepEqual(after, { credits, reserved: 0n }, 'a refused request costs nothing and reserves nothing');
  }

  describe('an overloaded upstream is 529 overloaded_error', () => {
    it('an upstream 529 is the SDK\'s OverloadedError with the upstream\'s retry-after, unbilled', async () => {
      const { credits } = await accountCredits(g.t, acct.id);
      const rows = (await usageRows(g.t, acct.id)).length;
      g.anthropic.chat.enqueue({ error: { status: 529, type: 'overloaded_error', message: 'Overloaded', headers: { 'retry-after': '3' } } });
      const e = await failure(() => client.messages.create({ model: 'svc-vision', ...base }));
      assert.ok(e instanceof Anthropic.OverloadedError, e.constructor.name);
      assert.equal(e.status, 529);
      assert.equal(e.headers?.get('retry-after'), '3');
      assert.equal(documented(e), 'Overloaded');
      const [row] = await waitForUsage(g.t, acct.id, rows + 1);
      assert.equal(row!.status, 529);
      assert.equal(row!.cost_micro, '0');
      await settledUnchanged(acct.id, credits);
    });

    it('streamed: a 529 before the stream, or an overloaded error event before any content, is the same 529', async () => {
      const { credits } = await accountCredits(g.t, acct.id);
      g.anthropic.chat.enqueue({ error: { status: 529, type: 'overloaded_error', message: 'Overloaded' } });
      let e = await failure(() => client.messages.stream({ model: 'svc-vision', ...base }).finalMessage());
      assert.ok(e instanceof Anthropic.OverloadedError && e.status === 529, `${e.constructor.name} ${e.status}`);
      documented(e);
      assert.equal(e.headers?.get('retry-after'), null, 'no retry-after when the upstream sent none');

      // message_start, then the upstream's overloaded error: nothing reached the client yet.
      g.anthropic.chat.enqueue({ text: 'never', streamErrorAfter: { events: 1, type: 'overloaded_error', message: 'Overloaded' } });
      e = await failure(async () => {
        for await (const event of await client.messages.create({ model: 'svc-vision', ...base, stream: true })) void event;
      });
      assert.ok(e instanceof Anthropic.OverloadedError && e.status === 529, `${e.constructor.name} ${e.status}`);
      documented(e);
      await settledUnchanged(acct.id, credits);
    });

    it('after the stream began it is `event: error` with overloaded_error, billed for what was produced', async () => {
      const rows = (await usageRows(g.t, acct.id)).length;
      g.anthropic.chat.enqueue({ text: 'partial answer that breaks', streamErrorAfter: { events: 4, type: 'overloaded_error', message: 'Overloaded' }, usage: { input: 25, cached: 0, output: 10 } });
      const e = await failure(() => client.messages.stream({ model: 'svc-vision', ...base }).finalMessage());
      assert.equal((e.error as { type: string; error: { type: string } }).error.type, 'overloaded_error');
      assert.equal(e.type, 'overloaded_error');
      const [row] = await waitForUsage(g.t, acct.id, rows + 1);
      assert.equal(row!.status, 529);
      assert.notEqual(row!.cost_micro, '0');
    });

    it('a fallback still answers; every deployment overloaded is 529, the last failure otherwise', async () => {
      // svc-pro: an Anthropic deployment, then an OpenAI-compatible one.
      g.anthropic.chat.enqueue({ error: { status: 529, type: 'overloaded_error', message: 'Overloaded' } });
      g.openai.chat.enqueue({ text: 'from the fallback' });
      const m = await client.messages.create({ model: 'svc-pro', ...base });
      assert.equal((m.content[0] as Anthropic.TextBlock).text, 'from the fallback');

      const { credits } = await accountCredits(g.t, acct.id);
      g.anthropic.chat.enqueue({ error: { status: 529, type: 'overloaded_error', message: 'Overloaded' } });
      g.openai.chat.enqueue({ error: { status: 529, message: 'overloaded' } });
      let e = await failure(() => client.messages.create({ model: 'svc-pro', ...base }));
      assert.ok(e instanceof Anthropic.OverloadedError && e.status === 529, `${e.constructor.name} ${e.status}`);
      documented(e);

      // An OpenAI-compatible stream whose first event is an overloaded error, after the Anthropic 529.
      g.anthropic.chat.enqueue({ error: { status: 529, type: 'overloaded_error', message: 'Overloaded' } });
      g.openai.chat.enqueue({ text: 'never', streamErrorAfter: { events: 0, type: 'overloaded_error', message: 'busy' } });
      e = await failure(() => client.messages.stream({ model: 'svc-pro', ...base }).finalMessage());
      assert.ok(e instanceof Anthropic.OverloadedError && e.status === 529, `${e.constructor.name} ${e.status}`);

      // The last deployment failed otherwise: its status, not the first one's overload.
      g.anthropic.chat.enqueue({ error: { status: 529, type: 'overloaded_error', message: 'Overloaded' } });
      g.openai.chat.enqueue({ error: { status: 500 } });
      e = await failure(() => client.messages.create({ model: 'svc-pro', ...base }));
      assert.ok(e instanceof Anthropic.InternalServerError && e.status === 502, `${e.constructor.name} ${e.status}`);
      await settledUnchanged(acct.id, credits);
    });

    it('/openapi.json lists the 529 on messages only', async () => {
      const doc = (await (await fetch(`${g.t.url}/openapi.json`)).json()) as { paths: Record<string, Record<string, { responses: Record<string, unknown> }>> };
      for (const path of ['/v1/messages', '/inference/v1/messages']) assert.ok(doc.paths[path]!.post!.responses['529'], path);
      for (const path of ['/v1/messages/count_tokens', '/v1/chat/completions', '/v1/responses']) assert.equal(doc.paths[path]!.post!.responses['529'], undefined, path);
    });

    it('the other protocols keep their 503 for an overloaded upstream', async () => {
      const openai = g.client(acct.key);
      g.anthropic.chat.enqueue({ error: { status: 529, type: 'overloaded_error', message: 'Overloaded', headers: { 'retry-after': '2' } } });
      const chat = await openai.chat.completions.create({ model: 'svc-vision', messages: hi }).then(
        () => assert.fail('answered'),
        (err: unknown) => err as { status: number; headers: Headers },
      );
      assert.equal(chat.status, 503);
      assert.equal(chat.headers.get('retry-after'), '2');
      g.anthropic.chat.enqueue({ error: { status: 529, type: 'overloaded_error', message: 'Overloaded' } });
      const r = await fetch(`${g.t.url}/v1/responses`, {
        method: 'POST',
        headers: { authorization: `Bearer ${acct.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'svc-vision', input: 'hi', store: false }),
      });
      assert.equal(r.status, 503);
    });
  });

  describe('every other status is the SDK class of its status, with request-id', () => {
    it('upstream failures: 503 ServiceUnavailableError, 502 InternalServerError, 504 GatewayTimeoutError, 429 RateLimitError, 400, 413', async () => {
      const { credits } = await accountCredits(g.t, acct.id);
      const cases: [number, number, new (...a: never[]) => APIError][] = [
        [503, 503, Anthropic.ServiceUnavailableError],
        [500, 502, Anthropic.InternalServerError],
        [401, 502, Anthropic.InternalServerError],
        [504, 504, Anthropic.GatewayTimeoutError],
        [408, 504, Anthropic.GatewayTimeoutError],
        [429, 429, Anthropic.RateLimitError],
        [400, 400, Anthropic.BadRequestError],
        [413, 413, Anthropic.ContentTooLargeError],
      ];
      for (const [upstream, status, cls] of cases) {
        g.anthropic.chat.enqueue({ error: { status: upstream } });
        const e = await failure(() => client.messages.create({ model: 'svc-vision', ...base }));
        assert.ok(e instanceof cls && e.status === status, `upstream ${upstream}: ${e.constructor.name} ${e.status}`);
        documented(e);
      }
      await settledUnchanged(acct.id, credits);
    });

    it("the service's own refusals on messages and count_tokens: 400, 401, 402, 403, 404, 413, 415", async () => {
      const unverified = await createTestAccount(g.t, { credits: 100, verified: false });
      const poor = await createTestAccount(g.t);
      const sdk = (key: string) => new Anthropic({ apiKey: key, baseURL: `${g.t.url}/inference`, maxRetries: 0 });
      const big = 'x'.repeat(10_000);
      const cases: [string, () => Promise<unknown>, number, new (...a: never[]) => APIError][] = [
        ['400', () => client.messages.create({ model: 'svc-fast', max_tokens: 10, messages: [] }), 400, Anthropic.BadRequestError],
        ['400 count', () => client.messages.countTokens({ model: 'svc-fast', messages: [] }), 400, Anthropic.BadRequestError],
        ['401', () => sdk('svk_wrong').messages.create({ model: 'svc-fast', ...base }), 401, Anthropic.AuthenticationError],
        ['401 count', () => sdk('svk_wrong').messages.countTokens({ model: 'svc-fast', messages: hi }), 401, Anthropic.AuthenticationError],
        ['402', () => sdk(poor.key).messages.create({ model: 'svc-fast', ...base }), 402, Anthropic.PaymentRequiredError],
        ['403', () => sdk(unverified.key).messages.create({ model: 'svc-fast', ...base }), 403, Anthropic.PermissionDeniedError],
        ['403 count', () => sdk(unverified.key).messages.countTokens({ model: 'svc-fast', messages: hi }), 403, Anthropic.PermissionDeniedError],
        ['404', () => client.messages.create({ model: 'svc-nope', ...base }), 404, Anthropic.NotFoundError],
        ['404 count', () => client.messages.countTokens({ model: 'svc-nope', messages: hi }), 404, Anthropic.NotFoundError],
        ['404 thread', () => client.messages.create({ model: 'svc-fast', ...base, thread: { type: 'continue', previous_message_id: 'msg_unknown' } } as never), 404, Anthropic.NotFoundError],
        ['413', () => client.messages.create({ model: 'svc-fast', max_tokens: 10, messages: [{ role: 'user', content: big }] }), 413, Anthropic.ContentTooLargeError],
        ['413 count', () => client.messages.countTokens({ model: 'svc-fast', messages: [{ role: 'user', content: big }] }), 413, Anthropic.ContentTooLargeError],
      ];
      for (const [what, call, status, cls] of cases) {
        const e = await failure(call);
        assert.ok(e instanceof cls && e.status === status, `${what}: ${e.constructor.name} ${e.status}`);
        documented(e);
      }
      // 415: the SDK always sends JSON; a raw client gets the documented body and request-id.
      for (const path of ['/inference/v1/messages', '/inference/v1/messages/count_tokens']) {
        const r = await fetch(`${g.t.url}${path}`, { method: 'POST', headers: { 'x-api-key': acct.key, 'content-type': 'application/x-www-form-urlencoded' }, body: 'a=b' });
        assert.equal(r.status, 415);
        assert.equal(typeof ((await r.json()) as { error: unknown }).error, 'string');
        assert.equal(r.headers.get('request-id'), r.headers.get('x-request-id'));
      }
    });

    it('429 RateLimitError from the rate limit, on messages and count_tokens, with retry-after and request-id', async () => {
      const limited = await startGateway({ env: { RATE_LIMIT_INFERENCE_PER_MINUTE: '1' } });
      try {
        const a = await createTestAccount(limited.t, { credits: 10 });
        const c = new Anthropic({ apiKey: a.key, baseURL: `${limited.t.url}/inference`, maxRetries: 0 });
        await c.messages.countTokens({ model: 'svc-fast', messages: hi });
        for (const call of [() => c.messages.create({ model: 'svc-fast', ...base }), () => c.messages.countTokens({ model: 'svc-fast', messages: hi })]) {
          const e = await failure(call);
          assert.ok(e instanceof Anthropic.RateLimitError && e.status === 429, `${e.constructor.name} ${e.status}`);
          assert.ok(e.headers?.get('retry-after'));
          documented(e);
        }
      } finally {
        await limited.close();
      }
    });

    it('answers carry request-id too, as the SDK reads it for _request_id', async () => {
      g.anthropic.chat.enqueue({ text: 'ok' });
      const { request_id, response } = await client.messages.create({ model: 'svc-vision', ...base }).withResponse();
      assert.ok(request_id);
      assert.equal(request_id, response.headers.get('x-request-id'));
      g.anthropic.chat.enqueue({ text: 'ok' });
      assert.ok((await client.messages.create({ model: 'svc-vision', ...base }))._request_id);
      const counted = await client.messages.countTokens({ model: 'svc-fast', messages: hi }).withResponse();
      assert.equal(counted.response.headers.get('request-id'), counted.response.headers.get('x-request-id'));
      g.anthropic.chat.enqueue({ text: 'ok' });
      const stream = client.messages.stream({ model: 'svc-vision', ...base });
      await stream.finalMessage();
      assert.ok(stream.request_id);
    });
  });
});
