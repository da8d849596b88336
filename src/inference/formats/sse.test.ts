import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { encodeSseData, encodeSseEvent, SSE_DONE } from './sse.ts';

describe('sse encoding', () => {
  it('writes one data line per event; JSON never contains a raw newline', () => {
    assert.equal(encodeSseData({ a: 'x\ny' }), 'data: {"a":"x\\ny"}\n\n');
    assert.equal(encodeSseEvent('ping', { type: 'ping' }), 'event: ping\ndata: {"type":"ping"}\n\n');
    assert.equal(SSE_DONE, 'data: [DONE]\n\n');
  });
});
