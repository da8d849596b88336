import assert from 'node:assert/strict';
import type { Socket } from 'node:net';
import { describe, it } from 'node:test';
import type { ConnectionError } from 'fastify';
import { clientErrorHandler } from './error-handler.ts';

/** What clientErrorHandler writes for `code` with `rawPacket`, and whether it closed the socket. */
function answer(code: string, rawPacket?: Buffer, socket: Partial<Socket> = {}): { written: string; destroyed: boolean } {
  let written = '';
  let destroyed = false;
  const s = { destroyed: false, writable: true, write: (t: string) => void (written += t), destroy: () => void (destroyed = true), ...socket };
  const err = Object.assign(new Error(code), { code, ...(rawPacket ? { rawPacket } : {}) }) as unknown as ConnectionError;
  clientErrorHandler(err, s as unknown as Socket);
  return { written, destroyed };
}

const bodyOf = (written: string) => JSON.parse(written.slice(written.indexOf('\r\n\r\n') + 4));

describe('clientErrorHandler', () => {
  it('answers 431, 408 and 400 in the shape of the surface the request line names, then closes', () => {
    const market = Buffer.from('GET /api/markets HTTP/1.1\r\nHost: x\r\n');
    const h = answer('HPE_HEADER_OVERFLOW', market);
    assert.match(h.written, /^HTTP\/1\.1 431 Request Header Fields Too Large\r\n/);
    assert.match(h.written, /\r\nConnection: close\r\n/);
    assert.deepEqual(bodyOf(h.written), { success: false, error: 'request headers too large' });
    assert.equal(h.destroyed, true);
    const t = answer('ERR_HTTP_REQUEST_TIMEOUT', Buffer.from('POST /v1/chat/completions HTTP/1.1\r\n'));
    assert.match(t.written, /^HTTP\/1\.1 408 /);
    assert.deepEqual(bodyOf(t.written), { error: 'request timeout' });
    const b = answer('HPE_INVALID_CONTENT_LENGTH', market);
    assert.match(b.written, /^HTTP\/1\.1 400 /);
    assert.deepEqual(bodyOf(b.written), { success: false, error: 'malformed HTTP request' });
  });

  it('takes the plain shape when the kept bytes hold no request line, and Content-Length counts bytes', () => {
    const { written } = answer('HPE_HEADER_OVERFLOW', Buffer.from('x-pad: xxxxxxxx'));
    const body = written.slice(written.indexOf('\r\n\r\n') + 4);
    assert.deepEqual(JSON.parse(body), { error: 'request headers too large' });
    assert.match(written, new RegExp(`\\r\\nContent-Length: ${Buffer.byteLength(body)}\\r\\n`));
    assert.deepEqual(bodyOf(answer('HPE_INVALID_METHOD').written), { error: 'malformed HTTP request' });
  });

  it('writes nothing to a reset or destroyed socket, and only closes one that cannot be written', () => {
    assert.deepEqual(answer('ECONNRESET'), { written: '', destroyed: false });
    assert.deepEqual(answer('HPE_INVALID_METHOD', undefined, { destroyed: true }), { written: '', destroyed: false });
    assert.deepEqual(answer('HPE_INVALID_METHOD', undefined, { writable: false }), { written: '', destroyed: true });
  });
});
