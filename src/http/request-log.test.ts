import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { describe, it } from 'node:test';
import Fastify, { type FastifyBaseLogger } from 'fastify';
import pino from 'pino';
import { RequestLog } from './request-log.ts';

describe('RequestLog', () => {
  it('writes one line per request, when it is answered, with its id and no credential', async () => {
    const lines: Record<string, unknown>[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const line of chunk.toString('utf8').split('\n')) if (line) lines.push(JSON.parse(line) as Record<string, unknown>);
        done();
      },
    });
    const app = Fastify({ loggerInstance: pino(sink) as FastifyBaseLogger, logController: new RequestLog(), genReqId: () => 'req-1' });
    app.get('/thing', async () => ({ ok: true }));
    await app.inject({ method: 'GET', url: '/thing?x=1', headers: { authorization: 'Bearer svk_secret' } });
    await app.inject({ method: 'POST', url: '/missing' });
    await app.close();

    const completed = lines.filter((l) => l.msg === 'request completed');
    assert.equal(completed.length, 2);
    assert.equal(lines.filter((l) => l.msg === 'incoming request').length, 0);
    const [first, second] = completed as [Record<string, unknown>, Record<string, unknown>];
    assert.equal(first.reqId, 'req-1');
    assert.equal(first.method, 'GET');
    assert.equal(first.url, '/thing?x=1');
    assert.equal(first.statusCode, 200);
    assert.equal(typeof first.responseTime, 'number');
    assert.equal(second.statusCode, 404);
    assert.doesNotMatch(JSON.stringify(lines), /svk_secret/);
  });
});
