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

  it("writes exactly the line pino's info() would, and logs through pino when a mixin must run", async () => {
    const capture = () => {
      const lines: string[] = [];
      const sink = new Writable({
        write(chunk: Buffer, _encoding, done) {
          lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
          done();
        },
      });
      return { lines, sink };
    };
    const fixedTime = () => ',"time":"2026-11-26T00:00:00.000Z"';
    const run = async (logger: pino.Logger) => {
      const app = Fastify({ loggerInstance: logger as FastifyBaseLogger, logController: new RequestLog(), genReqId: () => 'req-"7"' });
      app.get('/q', async () => ({ ok: true }));
      await app.inject({ method: 'GET', url: '/q?a="b"&c=\u00e9' });
      await app.close();
    };
    const fast = capture();
    await run(pino({ base: { service: 'svc' }, timestamp: fixedTime }, fast.sink));
    const line = fast.lines.find((l) => l.includes('request completed'))!;
    const fields = JSON.parse(line) as Record<string, unknown>;
    const expected = capture();
    pino({ base: { service: 'svc' }, timestamp: fixedTime }, expected.sink)
      .child({ reqId: 'req-"7"' })
      .info({ method: fields.method, url: fields.url, remoteAddress: fields.remoteAddress, statusCode: fields.statusCode, responseTime: fields.responseTime }, 'request completed');
    await new Promise((r) => setImmediate(r));
    assert.equal(line, expected.lines[0]);
    assert.equal(fields.url, '/q?a=%22b%22&c=%C3%A9');

    const mixed = capture();
    await run(pino({ mixin: () => ({ extra: 1 }) }, mixed.sink));
    const withMixin = JSON.parse(mixed.lines.find((l) => l.includes('request completed'))!) as Record<string, unknown>;
    assert.equal(withMixin.extra, 1);
    assert.equal(withMixin.statusCode, 200);
  });
});
