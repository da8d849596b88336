import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { FastifyReply } from 'fastify';
import { startSse } from './sse-response.ts';

/** A reply whose raw response records what was written, and how. */
function reply() {
  const calls: string[] = [];
  const raw = {
    destroyed: false,
    writableEnded: false,
    writeHead(status: number) {
      calls.push(`head ${status}`);
    },
    write(text: string) {
      calls.push(`write ${text}`);
      return true;
    },
    end(text?: string) {
      raw.writableEnded = true;
      calls.push(text === undefined ? 'end' : `end ${text}`);
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
});
