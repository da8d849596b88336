import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { ProviderConfig } from '../../config/catalog.ts';
import { ProviderFailure } from '../providers/provider-failure.ts';
import { createUpstreamTransport } from './upstream-transport.ts';

type Handler = (req: IncomingMessage, body: string, res: ServerResponse) => void;

describe('upstream transport: postJson', () => {
  let server: Server;
  let handler: Handler = () => {};
  let closed = 0;
  let provider: ProviderConfig;
  const transport = createUpstreamTransport();
  const readError = (text: string) => `upstream said: ${text.slice(0, 40)}`;
  const post = (body: unknown = { hi: 1 }, signal?: AbortSignal) => transport.postJson(provider, { path: '/chat/completions', headers: { authorization: 'Bearer k' }, body, signal }, readError);

  before(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.setEncoding('utf8');
      req.on('data', (c: string) => (body += c));
      req.on('end', () => handler(req, body, res));
      req.on('close', () => closed++);
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    provider = {
      baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/`,
      connections: 4,
      timeoutMs: 300,
      connectTimeoutMs: 1000,
      firstByteTimeoutMs: 300,
      idleTimeoutMs: 300,
    } as ProviderConfig;
  });
  after(async () => {
    await transport.close();
    server.closeAllConnections();
    server.close();
  });

  it('posts the JSON body with its headers below the base path and parses a 2xx answer, however it is chunked', async () => {
    let seen: { url?: string; auth?: string; type?: string; accept?: string; body?: string } = {};
    handler = (req, body, res) => {
      seen = { url: req.url, auth: req.headers.authorization, type: req.headers['content-type'], accept: req.headers.accept, body };
      res.writeHead(200, { 'content-type': 'application/json' });
      // A multi-byte character split across two writes.
      const bytes = Buffer.from(JSON.stringify({ text: 'h€llo', n: 2 }));
      res.write(bytes.subarray(0, 11));
      setTimeout(() => res.end(bytes.subarray(11)), 5);
    };
    assert.deepEqual(await post({ model: 'm', x: [1, 2] }), { text: 'h€llo', n: 2 });
    assert.deepEqual(seen, { url: '/v1/chat/completions', auth: 'Bearer k', type: 'application/json', accept: 'application/json', body: '{"model":"m","x":[1,2]}' });
  });

  it('turns a 2xx answer that is not JSON into a 502', async () => {
    handler = (_req, _body, res) => res.end('<html>oops</html>');
    await assert.rejects(post(), (e: unknown) => e instanceof ProviderFailure && e.status === 502 && /not JSON/.test(e.message));
  });

  it("turns a non-2xx into a ProviderFailure with the upstream's status, message and retry-after", async () => {
    handler = (_req, _body, res) => {
      res.writeHead(429, { 'retry-after': '7', 'content-type': 'application/json' });
      res.end('{"error":"slow down"}');
    };
    await assert.rejects(post(), (e: unknown) => {
      assert.ok(e instanceof ProviderFailure);
      assert.equal(e.status, 429);
      assert.equal(e.message, 'upstream said: {"error":"slow down"}');
      assert.equal(e.extra.retryAfterMs, 7000);
      return true;
    });
    handler = (_req, _body, res) => {
      res.writeHead(503, { 'Retry-After-Ms': '250' });
      res.end('busy');
    };
    await assert.rejects(post(), (e: unknown) => e instanceof ProviderFailure && e.status === 503 && e.extra.retryAfterMs === 250);
  });

  it('reads an error answer only up to its cap, and gives up the rest', async () => {
    handler = (_req, _body, res) => {
      res.writeHead(500);
      const mb = Buffer.alloc(1024 * 1024, 'x');
      const pump = () => {
        while (res.write(mb)) if (res.writableLength > 8 * 1024 * 1024) return;
        res.once('drain', pump);
      };
      res.on('error', () => {});
      pump();
    };
    await assert.rejects(post(), (e: unknown) => e instanceof ProviderFailure && e.status === 500 && e.message === `upstream said: ${'x'.repeat(40)}`);
  });

  it('is a 504 when the answer does not come in time, and a 502 when nothing listens', async () => {
    handler = () => {};
    await assert.rejects(post(), (e: unknown) => e instanceof ProviderFailure && e.status === 504 && e.extra.network === 'timeout');
    const gone = createServer();
    gone.listen(0, '127.0.0.1');
    await once(gone, 'listening');
    const port = (gone.address() as AddressInfo).port;
    gone.close();
    await once(gone, 'close');
    await assert.rejects(
      transport.postJson({ ...provider, baseUrl: `http://127.0.0.1:${port}` }, { path: '/x', headers: {}, body: {} }, readError),
      (e: unknown) => e instanceof ProviderFailure && e.status === 502 && e.extra.network === 'connection',
    );
  });

  it("rejects with the caller's abort reason, before the call and during it, and closes the upstream request", async () => {
    const reason = new Error('client left');
    await assert.rejects(post({}, AbortSignal.abort(reason)), (e: unknown) => e === reason);
    let arrived!: () => void;
    const arrival = new Promise<void>((r) => (arrived = r));
    handler = () => arrived();
    const closedBefore = closed;
    const controller = new AbortController();
    const pending = post({}, controller.signal);
    await arrival;
    controller.abort(reason);
    await assert.rejects(pending, (e: unknown) => e === reason);
    for (let i = 0; i < 50 && closed === closedBefore; i++) await new Promise((r) => setTimeout(r, 10));
    assert.equal(closed, closedBefore + 1, 'the upstream saw its request closed');
  });
});
