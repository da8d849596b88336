import assert from 'node:assert/strict';
import { once } from 'node:events';
import { PassThrough } from 'node:stream';
import { describe, it } from 'node:test';
import { createOpenAIChatStreamParser } from '../providers/openai-compatible/parse-openai-chat-stream.ts';
import { ProviderFailure } from '../providers/provider-failure.ts';
import type { ProviderStreamEvent } from '../providers/provider-stream.ts';
import { readProviderEvents } from './read-provider-events.ts';

const chunk = (content: string) => `data: ${JSON.stringify({ id: 'x', choices: [{ index: 0, delta: { content }, finish_reason: null }] })}\n\n`;
const parser = () => createOpenAIChatStreamParser(() => 'call_1');

describe('readProviderEvents', () => {
  it('gives the events of one read as one batch, and lets a complete answer drain instead of destroying it', async () => {
    const body = new PassThrough();
    const it = readProviderEvents(body, parser(), undefined)[Symbol.asyncIterator]();
    body.write(chunk('a') + chunk('b') + chunk('c').slice(0, 10));
    assert.deepEqual((await it.next()).value, [
      { type: 'text-delta', text: 'a' },
      { type: 'text-delta', text: 'b' },
    ]);
    body.write(chunk('c').slice(10) + 'data: [DONE]\n\n');
    assert.deepEqual((await it.next()).value, [
      { type: 'text-delta', text: 'c' },
      { type: 'finish', reason: 'stop' },
    ]);
    assert.equal((await it.next()).done, true);
    // What follows [DONE] is read and dropped: the body reaches its end (a destroyed one would not).
    const ended = once(body, 'end');
    body.end('data: {"late":true}\n\n');
    await ended;
    assert.equal(body.readableEnded, true);
  });

  it('delivers what a read carried before an error event, then throws', async () => {
    const body = new PassThrough();
    body.end(chunk('a') + `data: ${JSON.stringify({ error: { message: 'overloaded', code: 529 } })}\n\n`);
    const batches: ProviderStreamEvent[][] = [];
    await assert.rejects(async () => {
      for await (const b of readProviderEvents(body, parser(), undefined)) batches.push(b);
    }, ProviderFailure);
    assert.deepEqual(batches, [[{ type: 'text-delta', text: 'a' }]]);
  });

  it('closes the body of an answer the consumer stops reading', async () => {
    const body = new PassThrough();
    body.write(chunk('a'));
    for await (const b of readProviderEvents(body, parser(), undefined)) {
      assert.equal(b.length, 1);
      break;
    }
    assert.equal(body.destroyed, true);
  });

  it('fails a body cut before the answer was complete', async () => {
    const body = new PassThrough();
    body.end(chunk('a'));
    const it = readProviderEvents(body, parser(), undefined)[Symbol.asyncIterator]();
    await assert.rejects(async () => {
      while (!(await it.next()).done) {
        /* read on */
      }
    }, /ended before the answer was complete/);
  });
});
