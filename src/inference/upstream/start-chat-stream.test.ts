import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { StreamPart } from '../canonical/chat.ts';
import type { ProviderStreamEvent } from '../providers/provider-stream.ts';
import { startBatchedChatStream, startChatStream } from './start-chat-stream.ts';
import { ProviderFailure } from '../providers/provider-failure.ts';

const options = { estimateInput: () => 100, mapError: (e: unknown) => new Error(`mapped: ${(e as Error).message}`) };

function source(events: ProviderStreamEvent[], opts: { failAfter?: number } = {}) {
  const state = { returned: false, pulled: 0 };
  async function* gen() {
    try {
      for (const e of events) {
        if (opts.failAfter !== undefined && state.pulled === opts.failAfter) throw new ProviderFailure(529, 'Overloaded');
        state.pulled++;
        yield e;
      }
      if (opts.failAfter !== undefined && state.pulled === opts.failAfter) throw new ProviderFailure(529, 'Overloaded');
    } finally {
      state.returned = true;
    }
  }
  return { iterable: gen(), state };
}

async function collect(stream: AsyncIterable<StreamPart>): Promise<StreamPart[]> {
  const out: StreamPart[] = [];
  for await (const p of stream) out.push(p);
  return out;
}

describe('startChatStream', () => {
  it('ends with finish and the reported usage', async () => {
    const { iterable } = source([
      { type: 'reported-usage', usage: { inputTokens: 10, cachedInputTokens: 4 } },
      { type: 'text-delta', text: 'Hi' },
      { type: 'reported-usage', usage: { outputTokens: 3 } },
      { type: 'finish', reason: 'stop' },
    ]);
    const s = await startChatStream(iterable, options);
    assert.deepEqual(await collect(s), [
      { type: 'text-delta', text: 'Hi' },
      { type: 'finish', reason: 'stop' },
      { type: 'usage', usage: { inputTokens: 10, cachedInputTokens: 4, outputTokens: 3 }, estimated: false },
    ]);
  });

  it('estimates usage the upstream did not report, counting tool-call arguments', async () => {
    const { iterable } = source([
      { type: 'text-delta', text: 'Hello world' },
      { type: 'tool-call-start', index: 0, id: 'call_1', name: 'f' },
      { type: 'tool-call-delta', index: 0, argumentsDelta: '{}' },
      { type: 'finish', reason: 'tool_calls' },
    ]);
    const parts = await collect(await startChatStream(iterable, options));
    const last = parts.at(-1);
    assert.equal(last?.type, 'usage');
    assert.ok(last?.type === 'usage' && last.estimated && last.usage.inputTokens === 100 && last.usage.outputTokens > 2);
  });

  it('rejects at start when the stream fails before any content', async () => {
    const { iterable } = source([{ type: 'reported-usage', usage: { inputTokens: 5 } }], { failAfter: 1 });
    await assert.rejects(startChatStream(iterable, options), /mapped: Overloaded/);
  });

  it('throws mid-stream errors mapped, and still knows what was produced', async () => {
    const { iterable } = source([{ type: 'text-delta', text: 'Hello world' }, { type: 'text-delta', text: ' again' }], { failAfter: 2 });
    const s = await startChatStream(iterable, options);
    const seen: StreamPart[] = [];
    await assert.rejects(
      (async () => {
        for await (const p of s) seen.push(p);
      })(),
      /mapped: Overloaded/,
    );
    assert.equal(seen.length, 2);
    assert.deepEqual(s.usage(), { usage: { inputTokens: 100, cachedInputTokens: 0, outputTokens: 3 }, estimated: true });
  });

  it('closes the source when the consumer stops early or cancels', async () => {
    const a = source([{ type: 'text-delta', text: 'a' }, { type: 'text-delta', text: 'b' }, { type: 'finish', reason: 'stop' }]);
    const s = await startChatStream(a.iterable, options);
    for await (const _p of s) break;
    assert.equal(a.state.returned, true);
    const b = source([{ type: 'text-delta', text: 'a' }, { type: 'finish', reason: 'stop' }]);
    const t = await startChatStream(b.iterable, options);
    await t.cancel();
    assert.equal(b.state.returned, true);
  });

  it('gives the parts in batches as the source grouped them, then finish and usage', async () => {
    const batches: ProviderStreamEvent[][] = [
      [{ type: 'reported-usage', usage: { inputTokens: 10, cachedInputTokens: 0 } }],
      [{ type: 'text-delta', text: 'a' }, { type: 'text-delta', text: 'b' }],
      [{ type: 'text-delta', text: 'c' }, { type: 'reported-usage', usage: { outputTokens: 3 } }, { type: 'finish', reason: 'length' }],
    ];
    const s = await startBatchedChatStream({ next: async () => batches.shift() ?? null, close: () => {} }, options);
    const seen: (readonly StreamPart[])[] = [];
    for await (const b of s.batches()) seen.push(b);
    assert.deepEqual(seen, [
      [{ type: 'text-delta', text: 'a' }, { type: 'text-delta', text: 'b' }],
      [{ type: 'text-delta', text: 'c' }],
      [{ type: 'finish', reason: 'length' }, { type: 'usage', usage: { inputTokens: 10, cachedInputTokens: 0, outputTokens: 3 }, estimated: false }],
    ]);
  });

  it('in batches: closes the source when the consumer stops early, throws a failure mapped once, then ends', async () => {
    const a = source([{ type: 'text-delta', text: 'a' }, { type: 'text-delta', text: 'b' }, { type: 'finish', reason: 'stop' }]);
    const s = await startChatStream(a.iterable, options);
    for await (const _b of s.batches()) break;
    assert.equal(a.state.returned, true);

    const b = source([{ type: 'text-delta', text: 'a' }], { failAfter: 1 });
    const t = await startChatStream(b.iterable, options);
    const it = t.batches()[Symbol.asyncIterator]();
    assert.deepEqual(await it.next(), { done: false, value: [{ type: 'text-delta', text: 'a' }] });
    await assert.rejects(it.next(), /mapped: Overloaded/);
    assert.deepEqual(await it.next(), { done: true, value: undefined });
    assert.equal(b.state.returned, true);
  });

  it('can be iterated only once', async () => {
    const s = await startChatStream(source([{ type: 'finish', reason: 'stop' }]).iterable, options);
    await collect(s);
    assert.throws(() => s[Symbol.asyncIterator]());
  });
});
