import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ProviderStreamEvent } from '../providers/provider-stream.ts';
import type { EventBatchSource } from './start-chat-stream.ts';
import { StopCutEvents } from './stop-cut-events.ts';

/** A source giving these batches, recording whether it was closed. */
function source(batches: ProviderStreamEvent[][]): EventBatchSource & { closed: boolean; left: () => number } {
  const queue = [...batches];
  return {
    closed: false,
    left: () => queue.length,
    next: async () => queue.shift() ?? null,
    close() {
      this.closed = true;
    },
  };
}

async function drain(s: EventBatchSource): Promise<ProviderStreamEvent[][]> {
  const out: ProviderStreamEvent[][] = [];
  for (let b = await s.next(); b !== null; b = await s.next()) out.push([...b]);
  return out;
}

const text = (t: string): ProviderStreamEvent => ({ type: 'text-delta', text: t });
const usage = (outputTokens: number): ProviderStreamEvent => ({ type: 'reported-usage', usage: { outputTokens } });
const finish: ProviderStreamEvent = { type: 'finish', reason: 'length' };

describe('StopCutEvents', () => {
  it('a sequence split across reads: the text before it, the usage of the same read, finish stop; the source closed, never read again', async () => {
    const src = source([[{ type: 'reported-usage', usage: { inputTokens: 5 } }, text('One.\n')], [text('\nTwo'), text(' more'), usage(9)], [text('never read'), finish]]);
    const cut = new StopCutEvents(src, ['\n\n', 'END']);
    assert.deepEqual(await drain(cut), [
      [{ type: 'reported-usage', usage: { inputTokens: 5 } }, text('One.')],
      [usage(9), { type: 'finish', reason: 'stop', stopSequence: '\n\n' }],
    ]);
    assert.equal(src.closed, true);
    assert.equal(src.left(), 1);
  });

  it('text runs are cut like deltas', async () => {
    const run: ProviderStreamEvent = { type: 'text-run', run: { text: '"ab""c\\nd"', literals: [0, 4, 4, 10], ascii: true } };
    assert.deepEqual(await drain(new StopCutEvents(source([[run, finish]]), ['\n'])), [[text('ab'), text('c'), { type: 'finish', reason: 'stop', stopSequence: '\n' }]]);
  });

  it('held text goes out before other content and before the finish of an answer without a match; a read of nothing but held text is not a batch', async () => {
    const call: ProviderStreamEvent = { type: 'tool-call-start', index: 0, id: 'call_1', name: 'f' };
    const src = source([[text('a\n')], [call], [text('E')], [text('N'), finish]]);
    assert.deepEqual(await drain(new StopCutEvents(src, ['\n\n', 'END'])), [[text('a')], [text('\n'), call], [text('EN'), finish]]);
    assert.equal(src.closed, false);
  });

  it('a source that ends without a finish has its held text given back', async () => {
    assert.deepEqual(await drain(new StopCutEvents(source([[text('x ')]]), [' \n'])), [[text('x')], [text(' ')]]);
  });
});
