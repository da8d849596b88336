import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ProviderFailure } from '../providers/provider-failure.ts';
import { createOpenAIChatStreamParser } from '../providers/openai-compatible/parse-openai-chat-stream.ts';
import { JsonAnswerEvents } from './json-answer-events.ts';
import { ProviderEventBatches } from './read-provider-events.ts';
import type { BodyReader } from './upstream-transport.ts';

function body(reads: (string | Error)[]): BodyReader & { destroyed: boolean } {
  let i = 0;
  const b = {
    destroyed: false,
    read: async () => {
      const r = reads[i++];
      if (r instanceof Error) throw r;
      return r === undefined ? null : Buffer.from(r);
    },
    release() {},
    destroy() {
      b.destroyed = true;
    },
  };
  return b;
}

const noStream = (): never => assert.fail('read as an event stream');

describe('JsonAnswerEvents', () => {
  it('reads the body whole, however it is chunked, and gives its events in one batch, then the end', async () => {
    const seen: unknown[] = [];
    const events = new JsonAnswerEvents(body(['{"te', 'xt":"hi"}']), (json) => (seen.push(json), [{ type: 'text-delta', text: (json as { text: string }).text }]), noStream, undefined);
    assert.deepEqual(await events.next(), [{ type: 'text-delta', text: 'hi' }]);
    assert.equal(await events.next(), null);
    assert.deepEqual(seen, [{ text: 'hi' }]);
  });

  it('a body that is not JSON is a 502, as a non-streamed answer that is not JSON', async () => {
    const events = new JsonAnswerEvents(body(['{"partial"']), () => [], noStream, undefined);
    await assert.rejects(events.next(), (e: unknown) => e instanceof ProviderFailure && e.status === 502 && e.message === 'the upstream answer is not JSON');
  });

  it('a body labelled JSON that is an event stream is read as one, from the bytes already read', async () => {
    const sse = 'data: {"choices":[{"delta":{"content":"Hi"},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n';
    const events = new JsonAnswerEvents(body([sse.slice(0, 20), sse.slice(20)]), () => assert.fail('parsed as JSON'), (b) => new ProviderEventBatches(b, createOpenAIChatStreamParser(() => 'call_1'), undefined), undefined);
    const batches: unknown[] = [];
    for (let b = await events.next(); b !== null; b = await events.next()) batches.push(...b);
    assert.deepEqual(batches, [{ type: 'text-delta', text: 'Hi' }, { type: 'finish', reason: 'stop' }]);
  });

  it('a read that fails is a network failure, and the body is destroyed; close() before reading destroys it too', async () => {
    const failing = body(['{', Object.assign(new Error('reset'), { code: 'ECONNRESET' })]);
    await assert.rejects(new JsonAnswerEvents(failing, () => [], noStream, undefined).next(), (e: unknown) => e instanceof ProviderFailure && e.status === 502);
    assert.equal(failing.destroyed, true);
    const unread = body(['{}']);
    const events = new JsonAnswerEvents(unread, () => [], noStream, undefined);
    events.close();
    assert.equal(unread.destroyed, true);
    assert.equal(await events.next(), null);
  });
});
