import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createOpenAIChatStreamParser } from '../providers/openai-compatible/parse-openai-chat-stream.ts';
import { ProviderFailure } from '../providers/provider-failure.ts';
import type { ProviderStreamEvent } from '../providers/provider-stream.ts';
import { readProviderEvents } from './read-provider-events.ts';
import type { BodyReader } from './upstream-transport.ts';

const chunk = (content: string) => `data: ${JSON.stringify({ id: 'x', choices: [{ index: 0, delta: { content }, finish_reason: null }] })}\n\n`;
const parser = () => createOpenAIChatStreamParser(() => 'call_1');

/** A body whose reads are given by the test, recording how the reader let go of it. */
function body(): BodyReader & { give(text: string | null): void; ended: 'released' | 'destroyed' | null } {
  const reads: (Buffer | null)[] = [];
  let wake: (() => void) | null = null;
  const b = {
    ended: null as 'released' | 'destroyed' | null,
    give(text: string | null) {
      reads.push(text === null ? null : Buffer.from(text));
      wake?.();
    },
    async read() {
      while (reads.length === 0) await new Promise<void>((r) => (wake = r));
      return reads.shift()!;
    },
    release() {
      b.ended ??= 'released';
    },
    destroy() {
      b.ended ??= 'destroyed';
    },
  };
  return b;
}

describe('readProviderEvents', () => {
  it('gives the events of one read as one batch, and releases a complete answer instead of destroying it', async () => {
    const b = body();
    const it = readProviderEvents(b, parser(), undefined)[Symbol.asyncIterator]();
    b.give(chunk('a') + chunk('b') + chunk('c').slice(0, 10));
    assert.deepEqual((await it.next()).value, [
      { type: 'text-delta', text: 'a' },
      { type: 'text-delta', text: 'b' },
    ]);
    b.give(chunk('c').slice(10) + 'data: [DONE]\n\n');
    assert.deepEqual((await it.next()).value, [
      { type: 'text-delta', text: 'c' },
      { type: 'finish', reason: 'stop' },
    ]);
    assert.equal((await it.next()).done, true);
    // What follows [DONE] is left to drain: the body is released, not destroyed.
    assert.equal(b.ended, 'released');
  });

  it('delivers what a read carried before an error event, then throws', async () => {
    const b = body();
    b.give(chunk('a') + `data: ${JSON.stringify({ error: { message: 'overloaded', code: 529 } })}\n\n`);
    const batches: ProviderStreamEvent[][] = [];
    await assert.rejects(async () => {
      for await (const x of readProviderEvents(b, parser(), undefined)) batches.push(x);
    }, ProviderFailure);
    assert.deepEqual(batches, [[{ type: 'text-delta', text: 'a' }]]);
    assert.equal(b.ended, 'destroyed');
  });

  it('closes the body of an answer the consumer stops reading', async () => {
    const b = body();
    b.give(chunk('a'));
    for await (const x of readProviderEvents(b, parser(), undefined)) {
      assert.equal(x.length, 1);
      break;
    }
    assert.equal(b.ended, 'destroyed');
  });

  it('fails a body cut before the answer was complete', async () => {
    const b = body();
    b.give(chunk('a'));
    b.give(null);
    const it = readProviderEvents(b, parser(), undefined)[Symbol.asyncIterator]();
    await assert.rejects(async () => {
      while (!(await it.next()).done) {
        /* read on */
      }
    }, /ended before the answer was complete/);
  });

  it("maps a read's network failure as the transport does, and gives the caller's abort reason back", async () => {
    const failing = { read: () => Promise.reject(Object.assign(new Error('reset'), { code: 'ECONNRESET' })), release() {}, destroy() {} };
    await assert.rejects(async () => {
      for await (const x of readProviderEvents(failing, parser(), undefined)) void x;
    }, (e: unknown) => e instanceof ProviderFailure && e.status === 502);
    const reason = new Error('client left');
    await assert.rejects(async () => {
      for await (const x of readProviderEvents(failing, parser(), AbortSignal.abort(reason))) void x;
    }, (e: unknown) => e === reason);
  });
});
