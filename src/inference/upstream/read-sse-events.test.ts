import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ProviderFailure } from '../providers/provider-failure.ts';
import { SseReader, readSseEvents, tailBytes, type SseVisitor } from './read-sse-events.ts';

async function* pieces(...chunks: (string | Uint8Array)[]) {
  for (const c of chunks) yield c;
}

async function collect(it: AsyncIterable<{ event?: string | undefined; data: string }>) {
  const out: { event?: string | undefined; data: string }[] = [];
  for await (const e of it) out.push({ event: e.event, data: e.data });
  return out;
}

describe('readSseEvents', () => {
  it('reassembles events split across chunks, including inside a UTF-8 character', async () => {
    const bytes = new TextEncoder().encode('event: a\ndata: {"t":"é"}\n\n: comment\n\ndata: [DONE]\n\n');
    const cut = bytes.indexOf(0xc3) + 1; // between the two bytes of é
    const events = await collect(readSseEvents(pieces(bytes.slice(0, 5), bytes.slice(5, cut), bytes.slice(cut))));
    assert.deepEqual(events, [
      { event: 'a', data: '{"t":"é"}' },
      { event: undefined, data: '[DONE]' },
    ]);
  });

  it('drops a leading byte order mark, even split across chunks, and no other', async () => {
    const bytes = new TextEncoder().encode('\uFEFFdata: 1\n\ndata: \uFEFF2\n\n');
    for (const cut of [1, 2, 3, 4]) {
      const events = await collect(readSseEvents(pieces(bytes.slice(0, cut), bytes.slice(cut))));
      assert.deepEqual(events.map((e) => e.data), ['1', '\uFEFF2']);
    }
  });

  it('replaces bytes that are not UTF-8 with U+FFFD', async () => {
    const events = await collect(readSseEvents(pieces(new Uint8Array([0x64, 0x61, 0x74, 0x61, 0x3a, 0x20, 0x61, 0xff, 0x62, 0x0a, 0x0a]))));
    assert.deepEqual(events.map((e) => e.data), ['a\uFFFDb']);
  });

  it('handles CRLF line endings and a last event without its blank line', async () => {
    const events = await collect(readSseEvents(pieces('data: 1\r\n\r\ndata: 2')));
    assert.deepEqual(events.map((e) => e.data), ['1', '2']);
  });
});

describe('SseReader with a cap on one event', () => {
  const tooLarge = (e: unknown) => e instanceof ProviderFailure && e.status === 502 && /too large/.test(e.message);
  const visitor = (runs: boolean): SseVisitor & { data: string[] } => {
    const data: string[] = [];
    return { data, runs, event: (e) => (data.push(e.data), false), run: () => {}, template: () => null };
  };

  it('fails a line that never ends once it passes the cap, however it is split', () => {
    for (const runs of [true, false]) {
      const r = new SseReader(100);
      const v = visitor(runs);
      r.visit('data: 1\n\ndata: "', v);
      assert.throws(() => {
        for (let i = 0; i < 20; i++) r.visit('x'.repeat(10), v);
      }, tooLarge);
      assert.deepEqual(v.data, ['1']);
    }
    const split = new SseReader(100);
    assert.throws(() => {
      for (let i = 0; i < 20; i++) split.feed('x'.repeat(10));
    }, tooLarge);
  });

  it('fails an event of many lines that never ends, and takes any number of events each within the cap', () => {
    const r = new SseReader(100);
    assert.throws(() => {
      for (let i = 0; i < 20; i++) r.feed('data: 0123456789\n');
    }, tooLarge);
    const ok = new SseReader(100);
    const v = visitor(false);
    for (let i = 0; i < 1000; i++) ok.visit(`data: ${'y'.repeat(80)}\n\n: ping\n\n`, v);
    assert.equal(v.data.length, 1000);
  });

  it('counts bytes, not characters: an event of multi-byte text is cut at the byte cap, whatever the path', () => {
    const bytes = (s: string) => Buffer.from(s, 'utf8');
    // 400 characters, 1,200 bytes: within a cap of 1,024 counted in characters, past it in bytes.
    const wide = '\u4e2d'.repeat(400);
    for (const runs of [true, false]) {
      const r = new SseReader(1024);
      const v = visitor(runs);
      r.visit(bytes('data: 1\n\n'), v);
      assert.throws(() => {
        for (let i = 0; i < 4; i++) r.visit(bytes(wide.slice(i * 100, (i + 1) * 100)), v);
      }, tooLarge, `runs: ${runs}`);
      assert.deepEqual(v.data, ['1']);
    }
    // In one read, the tail after the last event is counted in bytes too.
    const tail = new SseReader(1024);
    assert.throws(() => tail.visit(bytes(`data: 1\n\ndata: ${wide}`), visitor(false)), tooLarge);
    const fed = new SseReader(1024);
    assert.throws(() => fed.feed(bytes(`data: ${wide}`)), tooLarge);
  });

  it('takes events of multi-byte text each within the byte cap, however they are split', () => {
    // 300 characters of 3 bytes: 906 bytes an event, within 1,024.
    const event = `data: ${'\u4e2d'.repeat(300)}\n\n`;
    for (const runs of [true, false]) {
      const r = new SseReader(1024);
      const v = visitor(runs);
      const body = Buffer.from(event.repeat(20), 'utf8');
      // Reads of 7 bytes split characters between reads.
      for (let i = 0; i < body.length; i += 7) r.visit(body.subarray(i, i + 7), v);
      assert.equal(v.data.length, 20, `runs: ${runs}`);
    }
  });

  it('tailBytes: the UTF-8 bytes after the last line end', () => {
    assert.equal(tailBytes('data: 1\n\ndata: ab'), 8);
    assert.equal(tailBytes('x\r\u00e9\u4e2d\ud83d\ude00'), 2 + 3 + 4);
    assert.equal(tailBytes('\u4e2d\u4e2d'), 6);
    assert.equal(tailBytes('a\n'), 0);
  });
});
