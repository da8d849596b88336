import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { textsOfRun } from '../canonical/text-run.ts';
import { createOpenAIChatStreamParser } from '../providers/openai-compatible/parse-openai-chat-stream.ts';
import { ProviderFailure } from '../providers/provider-failure.ts';
import type { ProviderStreamEvent, ProviderStreamParser } from '../providers/provider-stream.ts';
import { createAnthropicStreamParser } from '../providers/anthropic/parse-anthropic-stream.ts';
import { ProviderEventBatches } from './read-provider-events.ts';
import { MAX_PENDING } from './read-sse-events.ts';
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

/** Every batch until the end (or the failure). */
async function drain(source: ProviderEventBatches, into: ProviderStreamEvent[][] = []): Promise<ProviderStreamEvent[][]> {
  for (let b = await source.next(); b !== null; b = await source.next()) into.push(b);
  return into;
}

describe('ProviderEventBatches', () => {
  it('gives the events of one read as one batch, and releases a complete answer instead of destroying it', async () => {
    const b = body();
    const it = new ProviderEventBatches(b, parser(), undefined);
    b.give(chunk('a') + chunk('b') + chunk('c').slice(0, 10));
    assert.deepEqual(await it.next(), [
      { type: 'text-delta', text: 'a' },
      { type: 'text-delta', text: 'b' },
    ]);
    b.give(chunk('c').slice(10) + 'data: [DONE]\n\n');
    assert.deepEqual(await it.next(), [
      { type: 'text-delta', text: 'c' },
      { type: 'finish', reason: 'stop' },
    ]);
    assert.equal(await it.next(), null);
    // What follows [DONE] is left to drain: the body is released, not destroyed.
    assert.equal(b.ended, 'released');
  });

  it('delivers what a read carried before an error event, then throws', async () => {
    const b = body();
    b.give(chunk('a') + `data: ${JSON.stringify({ error: { message: 'overloaded', code: 529 } })}\n\n`);
    const batches: ProviderStreamEvent[][] = [];
    await assert.rejects(drain(new ProviderEventBatches(b, parser(), undefined), batches), ProviderFailure);
    assert.deepEqual(batches, [[{ type: 'text-delta', text: 'a' }]]);
    assert.equal(b.ended, 'destroyed');
  });

  it('closes the body of an answer the consumer stops reading', async () => {
    const b = body();
    b.give(chunk('a'));
    const source = new ProviderEventBatches(b, parser(), undefined);
    assert.equal((await source.next())?.length, 1);
    source.close();
    assert.equal(b.ended, 'destroyed');
    assert.equal(await source.next(), null);
  });

  it('fails a body cut before the answer was complete', async () => {
    const b = body();
    b.give(chunk('a'));
    b.give(null);
    await assert.rejects(drain(new ProviderEventBatches(b, parser(), undefined)), /ended before the answer was complete/);
    assert.equal(b.ended, 'destroyed');
  });

  it('fails a stream whose reads bring only keep-alives for the idle time, and never times a stream of content', async () => {
    const b = body();
    const source = new ProviderEventBatches(b, parser(), undefined, { idleMs: 60 });
    b.give(chunk('a'));
    assert.equal((await source.next())?.length, 1);
    const pings = setInterval(() => b.give(': keep-alive\n\n'), 10);
    try {
      await assert.rejects(source.next(), (e: unknown) => e instanceof ProviderFailure && e.status === 504 && e.extra.network === 'timeout');
    } finally {
      clearInterval(pings);
    }
    assert.equal(b.ended, 'destroyed');

    // Keep-alives just under the idle time: the silence counts from the last event.
    const near = body();
    const s1 = new ProviderEventBatches(near, parser(), undefined, { idleMs: 100 });
    near.give(chunk('a'));
    assert.equal((await s1.next())?.length, 1);
    const lastEvent = Date.now();
    const slow = setInterval(() => near.give(': keep-alive\n\n'), 80);
    try {
      await assert.rejects(s1.next(), (e: unknown) => e instanceof ProviderFailure && e.status === 504);
    } finally {
      clearInterval(slow);
    }
    // Counted from the first keep-alive instead (the old way), the stream would fail at the third,
    // 240 ms in; the margin below that is for a loaded machine's late timers.
    const silent = Date.now() - lastEvent;
    assert.ok(silent >= 95 && silent < 230, `failed ${silent} ms after the last event, idleMs is 100`);

    const steady = body();
    const s2 = new ProviderEventBatches(steady, parser(), undefined, { idleMs: 60 });
    for (let i = 0; i < 5; i++) {
      steady.give(': keep-alive\n\n');
      await new Promise((r) => setTimeout(r, 20));
      steady.give(chunk(String(i)));
      assert.equal((await s2.next())?.length, 1, 'keep-alives between content do not add up');
    }
  });

  it("maps a read's network failure as the transport does, and gives the caller's abort reason back", async () => {
    const failing = { read: () => Promise.reject(Object.assign(new Error('reset'), { code: 'ECONNRESET' })), release() {}, destroy() {} };
    await assert.rejects(drain(new ProviderEventBatches(failing, parser(), undefined)), (e: unknown) => e instanceof ProviderFailure && e.status === 502);
    const reason = new Error('client left');
    await assert.rejects(drain(new ProviderEventBatches(failing, parser(), AbortSignal.abort(reason))), (e: unknown) => e === reason);
  });
});

describe('ProviderEventBatches with text runs', () => {
  /** Every event the reader gave, a run as the text deltas it holds, and how the stream ended. */
  async function read(reads: Buffer[], textRuns: boolean, newParser: () => ProviderStreamParser = parser): Promise<{ events: ProviderStreamEvent[]; runs: number; error: string | null }> {
    let i = 0;
    const b: BodyReader = { read: async () => reads[i++] ?? null, release() {}, destroy() {} };
    const events: ProviderStreamEvent[] = [];
    let runs = 0;
    let error: string | null = null;
    try {
      for (const batch of await drain(new ProviderEventBatches(b, newParser(), undefined, { textRuns }))) {
        for (const e of batch) {
          if (e.type !== 'text-run') events.push(e);
          else {
            runs++;
            for (const text of textsOfRun(e.run)) events.push({ type: 'text-delta', text });
          }
        }
      }
    } catch (e) {
      error = String(e);
    }
    return { events, runs, error };
  }

  const upstreamChunk = (delta: object, finish: string | null = null) =>
    `data: ${JSON.stringify({ id: 'chatcmpl-up', object: 'chat.completion.chunk', model: 'up-model', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;

  it('gives the same events as reading them one by one, however the body is split', () => {
    const text = fc.oneof(fc.string(), fc.string({ unit: 'grapheme' }), fc.string({ unit: 'binary' }), fc.constantFrom('', ' ', '\n', '"', '\\', 'é', '😀', '"}}\n\n', 'data: {'));
    const piece = fc.oneof(
      { weight: 8, arbitrary: text.map((t) => upstreamChunk({ content: t })) },
      { weight: 1, arbitrary: fc.constant(upstreamChunk({ role: 'assistant', content: '' })) },
      { weight: 1, arbitrary: text.map((t) => upstreamChunk({ tool_calls: [{ index: 0, id: 'c', function: { name: 'f', arguments: t } }] })) },
      { weight: 1, arbitrary: fc.constant(': keep-alive\n\n') },
      { weight: 1, arbitrary: fc.constant('data: {"not json\n\n') },
    );
    const ending = fc.constantFrom(upstreamChunk({}, 'stop') + 'data: [DONE]\n\n', 'data: [DONE]\n\n', '', upstreamChunk({ content: 'x' }).slice(0, 30));
    return fc.assert(
      fc.asyncProperty(fc.array(piece, { maxLength: 30 }), ending, fc.array(fc.nat(), { maxLength: 6 }), async (pieces, end, cuts) => {
        const bytes = Buffer.from(pieces.join('') + end);
        const at = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
        const reads = [...at, bytes.length].map((c, k) => bytes.subarray(k === 0 ? 0 : at[k - 1]!, c)).filter((r) => r.length > 0);
        const plain = await read(reads, false);
        const withRuns = await read(reads, true);
        assert.deepEqual(withRuns.events, plain.events);
        assert.equal(withRuns.error, plain.error);
      }),
      { numRuns: 300 },
    );
  });

  it('gives the same events from an Anthropic stream as reading them one by one', () => {
    const ev = (type: string, body: object) => `event: ${type}\ndata: ${JSON.stringify({ type, ...body })}\n\n`;
    const text = fc.oneof(fc.string(), fc.string({ unit: 'binary' }), fc.constantFrom('', '"', '\\', '\n', '😀'));
    const piece = fc.oneof(
      { weight: 8, arbitrary: text.map((t) => ev('content_block_delta', { index: 0, delta: { type: 'text_delta', text: t } })) },
      { weight: 1, arbitrary: fc.constant(ev('ping', {})) },
      { weight: 1, arbitrary: text.map((t) => `data: ${JSON.stringify({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: t } })}\n\n`) },
    );
    const start = ev('message_start', { message: { usage: { input_tokens: 3 } } }) + ev('content_block_start', { index: 0, content_block: { type: 'text', text: '' } });
    const end = ev('content_block_stop', { index: 0 }) + ev('message_delta', { delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 5 } }) + ev('message_stop', {});
    return fc.assert(
      fc.asyncProperty(fc.array(piece, { maxLength: 30 }), fc.array(fc.nat(), { maxLength: 6 }), async (pieces, cuts) => {
        const bytes = Buffer.from(start + pieces.join('') + end);
        const at = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
        const reads = [...at, bytes.length].map((c, k) => bytes.subarray(k === 0 ? 0 : at[k - 1]!, c)).filter((r) => r.length > 0);
        const anthropic = () => createAnthropicStreamParser(null, () => 'call_1');
        const plain = await read(reads, false, anthropic);
        const withRuns = await read(reads, true, anthropic);
        assert.deepEqual(withRuns.events, plain.events);
        assert.equal(withRuns.error, plain.error);
      }),
      { numRuns: 200 },
    );
  });

  it('gives a run for the events after the one the template was learned from, in the same read', async () => {
    const reads = [Buffer.from([upstreamChunk({ role: 'assistant', content: '' }), ...['a', 'b', 'c'].map((t) => upstreamChunk({ content: t })), upstreamChunk({}, 'stop'), 'data: [DONE]\n\n'].join(''))];
    const r = await read(reads, true);
    assert.equal(r.runs, 1);
    assert.deepEqual(r.events.filter((e) => e.type === 'text-delta').map((e) => (e as { text: string }).text), ['a', 'b', 'c']);
  });

  it('reads on event by event after an event longer than it holds back, split over many reads', async () => {
    const long = upstreamChunk({ tool_calls: [{ index: 0, id: 'c', function: { name: 'f', arguments: 'x'.repeat(MAX_PENDING * 2) } }] });
    const text = [upstreamChunk({ content: 'a' }), upstreamChunk({ content: 'b' }), long, upstreamChunk({ content: 'c' }), upstreamChunk({}, 'stop'), 'data: [DONE]\n\n'].join('');
    const bytes = Buffer.from(text);
    const reads: Buffer[] = [];
    for (let at = 0; at < bytes.length; at += 1000) reads.push(bytes.subarray(at, at + 1000));
    const withRuns = await read(reads, true);
    assert.deepEqual(withRuns.events, (await read(reads, false)).events);
    assert.equal(withRuns.error, null);
  });

  it('reads a body with carriage returns event by event', async () => {
    const reads = [Buffer.from([upstreamChunk({ content: 'a' }), upstreamChunk({ content: 'b' }), upstreamChunk({ content: 'c' }), 'data: [DONE]\n\n'].join('').replaceAll('\n', '\r\n'))];
    const r = await read(reads, true);
    assert.equal(r.runs, 0);
    assert.deepEqual(r.events.map((e) => (e as { text?: string }).text), ['a', 'b', 'c', undefined]);
  });
});
