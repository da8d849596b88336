import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { FastifyReply } from 'fastify';
import { knownAscii, startSse } from './sse-response.ts';

/** A reply whose raw response records what was written, and how. */
function reply() {
  const calls: string[] = [];
  const raw = {
    destroyed: false,
    writableEnded: false,
    writeHead(status: number) {
      calls.push(`head ${status}`);
    },
    write(text: string, encoding?: string) {
      calls.push(`write ${text}${encoding === undefined ? '' : ` [${encoding}]`}`);
      return true;
    },
    end(text?: string, encoding?: string) {
      raw.writableEnded = true;
      calls.push(text === undefined ? 'end' : `end ${text}${encoding === undefined ? '' : ` [${encoding}]`}`);
    },
  };
  const r = { raw, getHeaders: () => ({ 'x-request-id': 'req_1' }), hijack() {} } as unknown as FastifyReply;
  return { r, calls };
}

describe('startSse', () => {
  it('writes what one turn queued in one write, and what is queued at the end with the end', async () => {
    const { r, calls } = reply();
    const sse = startSse(r);
    sse.send('a');
    sse.send('b');
    await new Promise(process.nextTick);
    sse.send('c');
    sse.end();
    await new Promise(process.nextTick);
    assert.deepEqual(calls, ['head 200', 'write ab', 'end c']);
    sse.send('d');
    sse.end();
    assert.equal(calls.length, 3);
  });

  it('ends with nothing to write', () => {
    const { r, calls } = reply();
    startSse(r).end();
    assert.deepEqual(calls, ['head 200', 'end']);
  });

  it('writes text all sent as ASCII as latin1 (no UTF-8 length or encoding to work out), anything else as UTF-8', async () => {
    const { r, calls } = reply();
    const sse = startSse(r);
    sse.send('a', true);
    sse.send('b', true);
    await new Promise(process.nextTick);
    sse.send('c', true);
    sse.send('é');
    await new Promise(process.nextTick);
    sse.send('d');
    sse.send('e', true);
    await new Promise(process.nextTick);
    sse.send('f', true);
    sse.end();
    assert.deepEqual(calls, ['head 200', 'write ab [latin1]', 'write cé', 'write de', 'end f [latin1]']);
  });

  it('knows short text to be ASCII, and takes long text as not', () => {
    assert.equal(knownAscii('data: {"a":"b\\n"}\n\n\u0000\u007f'), true);
    assert.equal(knownAscii('é'), false);
    assert.equal(knownAscii('a\u0080'), false);
    assert.equal(knownAscii('😀'), false);
    assert.equal(knownAscii('a'.repeat(4096)), true);
    assert.equal(knownAscii('a'.repeat(4097)), false);
  });
});
