import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { waitFor } from '../../../test/helpers/wait.ts';
import type { ProviderConfig } from '../../config/catalog.ts';
import { ProviderFailure } from '../providers/provider-failure.ts';
import { createUpstreamTransport, networkFailure, type BodyReader } from './upstream-transport.ts';

type Handler = (req: IncomingMessage, body: string, res: ServerResponse) => void;

/**
 * A loopback upstream answering with whatever `handler` is set to (after the request body arrived),
 * counting the exchanges that closed and the sockets it served; `provider` points at it.
 */
async function loopbackUpstream(limits: Pick<ProviderConfig, 'timeoutMs' | 'firstByteTimeoutMs' | 'idleTimeoutMs'>) {
  const up = {
    handler: (() => {}) as Handler,
    closed: 0,
    sockets: new Set<unknown>(),
    server: createServer((req, res) => {
      up.sockets.add(req.socket);
      let body = '';
      req.setEncoding('utf8');
      req.on('data', (c: string) => (body += c));
      req.on('end', () => up.handler(req, body, res));
      res.on('close', () => up.closed++);
    }),
    provider: null as unknown as ProviderConfig,
    close() {
      up.server.closeAllConnections();
      up.server.close();
    },
  };
  up.server.listen(0, '127.0.0.1');
  await once(up.server, 'listening');
  up.provider = { baseUrl: `http://127.0.0.1:${(up.server.address() as AddressInfo).port}/v1/`, connections: 4, connectTimeoutMs: 1000, ...limits } as ProviderConfig;
  return up;
}

describe('upstream transport: postJson', () => {
  let up: Awaited<ReturnType<typeof loopbackUpstream>>;
  const transport = createUpstreamTransport();
  const readError = (text: string) => `upstream said: ${text.slice(0, 40)}`;
  const post = (body: unknown = { hi: 1 }, signal?: AbortSignal) => transport.postJson(up.provider, { path: '/chat/completions', headers: { authorization: 'Bearer k' }, body, signal }, readError);

  before(async () => {
    up = await loopbackUpstream({ timeoutMs: 300, firstByteTimeoutMs: 300, idleTimeoutMs: 300 });
  });
  after(async () => {
    await transport.close();
    up.close();
  });

  it('posts the JSON body with its headers below the base path and parses a 2xx answer, however it is chunked', async () => {
    let seen: { url?: string; auth?: string; type?: string; accept?: string; body?: string } = {};
    up.handler = (req, body, res) => {
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
    up.handler = (_req, _body, res) => res.end('<html>oops</html>');
    await assert.rejects(post(), (e: unknown) => e instanceof ProviderFailure && e.status === 502 && /not JSON/.test(e.message));
  });

  it("turns a non-2xx into a ProviderFailure with the upstream's status, message and retry-after", async () => {
    up.handler = (_req, _body, res) => {
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
    up.handler = (_req, _body, res) => {
      res.writeHead(503, { 'Retry-After-Ms': '250' });
      res.end('busy');
    };
    await assert.rejects(post(), (e: unknown) => e instanceof ProviderFailure && e.status === 503 && e.extra.retryAfterMs === 250);
  });

  it('reads an error answer only up to its cap, and gives up the rest', async () => {
    up.handler = (_req, _body, res) => {
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
    up.handler = () => {};
    await assert.rejects(post(), (e: unknown) => e instanceof ProviderFailure && e.status === 504 && e.extra.network === 'timeout');
    const gone = createServer();
    gone.listen(0, '127.0.0.1');
    await once(gone, 'listening');
    const port = (gone.address() as AddressInfo).port;
    gone.close();
    await once(gone, 'close');
    await assert.rejects(
      transport.postJson({ ...up.provider, baseUrl: `http://127.0.0.1:${port}` }, { path: '/x', headers: {}, body: {} }, readError),
      (e: unknown) => e instanceof ProviderFailure && e.status === 502 && e.extra.network === 'connection',
    );
  });

  it('holds the whole answer to timeout_ms: a body trickled a byte at a time is a 504, and the call is closed', async () => {
    let closed = false;
    up.handler = (_req, _body, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const body = JSON.stringify({ text: 'x'.repeat(400) });
      let i = 0;
      const t = setInterval(() => (i < body.length ? res.write(body[i++]!) : res.end()), 10);
      res.on('close', () => {
        clearInterval(t);
        closed = !res.writableFinished;
      });
    };
    const started = Date.now();
    await assert.rejects(post(), (e: unknown) => e instanceof ProviderFailure && e.status === 504 && e.extra.network === 'timeout');
    const took = Date.now() - started;
    assert.ok(took < up.provider.timeoutMs + 150, `failed after ${took} ms, timeout_ms is ${up.provider.timeoutMs}`);
    await waitFor(() => closed, { message: 'the upstream did not see its request closed' });
  });

  it('holds an image download to its timeout as a whole, and passes the caller\'s abort on', async () => {
    let closed = false;
    up.handler = (_req, _body, res) => {
      res.writeHead(200, { 'content-type': 'image/png' });
      const t = setInterval(() => res.write('x'), 10);
      res.on('close', () => {
        clearInterval(t);
        closed = true;
      });
    };
    const url = new URL('image.png', up.provider.baseUrl).href;
    const started = Date.now();
    await assert.rejects(transport.download(url, 300), (e: unknown) => e instanceof ProviderFailure && e.status === 504 && e.extra.network === 'timeout');
    assert.ok(Date.now() - started < 450, `failed after ${Date.now() - started} ms`);
    await waitFor(() => closed, { message: 'the download was not closed' });
    closed = false;
    const reason = new Error('client left');
    const controller = new AbortController();
    setTimeout(() => controller.abort(reason), 50);
    await assert.rejects(transport.download(url, 300, controller.signal), (e: unknown) => e === reason);
    await waitFor(() => closed, { message: 'the download was not closed' });
  });

  it("rejects with the caller's abort reason, before the call and during it, and closes the upstream request", async () => {
    const reason = new Error('client left');
    await assert.rejects(post({}, AbortSignal.abort(reason)), (e: unknown) => e === reason);
    let arrived!: () => void;
    const arrival = new Promise<void>((r) => (arrived = r));
    up.handler = () => arrived();
    const closedBefore = up.closed;
    const controller = new AbortController();
    const pending = post({}, controller.signal);
    await arrival;
    controller.abort(reason);
    await assert.rejects(pending, (e: unknown) => e === reason);
    await waitFor(() => up.closed > closedBefore, { message: 'the upstream did not see its request closed' });
    assert.equal(up.closed, closedBefore + 1, 'the upstream saw its request closed');
  });
});

describe('upstream transport: postStream', () => {
  let up: Awaited<ReturnType<typeof loopbackUpstream>>;
  const transport = createUpstreamTransport();
  const readError = (text: string) => `upstream said: ${text}`;
  const open = (signal?: AbortSignal) => transport.postStream(up.provider, { path: '/chat/completions', headers: {}, body: { stream: true }, signal }, readError);
  const readAll = async (r: BodyReader) => {
    const parts: Buffer[] = [];
    for (let b = await r.read(); b !== null; b = await r.read()) parts.push(b);
    return Buffer.concat(parts).toString('utf8');
  };
  /** Waits until the upstream saw `n` more of its exchanges closed than `before`, and no more. */
  const closedSince = async (before: number, n: number) => {
    await waitFor(() => up.closed >= before + n, { message: () => `the upstream saw ${up.closed - before} exchanges closed, not ${n}` });
    assert.equal(up.closed, before + n);
  };
  /** Whether the reader stopped reading the socket (STREAM_HIGH_WATER unread). */
  const paused = (r: BodyReader) => (r as unknown as { paused: boolean }).paused;

  before(async () => {
    up = await loopbackUpstream({ timeoutMs: 2000, firstByteTimeoutMs: 2000, idleTimeoutMs: 300 });
  });
  after(async () => {
    await transport.close();
    up.close();
  });

  it('asks for an event stream and reads the body in bursts to its end, whatever its size (the socket paused while unread)', async () => {
    let accept: string | undefined;
    const big = 'x'.repeat(1024 * 1024);
    up.handler = (req, _b, res) => {
      accept = req.headers.accept;
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: 1\n\n');
      res.write(big);
      res.end('data: [DONE]\n\n');
    };
    const r = await open();
    // Nothing read: once the reader holds STREAM_HIGH_WATER it stops reading the socket, and the
    // rest of the megabyte waits there, not in memory here.
    await waitFor(() => paused(r), { message: 'the reader did not stop reading the socket with the body unread' });
    assert.equal(await readAll(r), `data: 1\n\n${big}data: [DONE]\n\n`);
    assert.equal(accept, 'text/event-stream');
  });

  it('says whether the 2xx answer is one JSON body (an upstream that ignored stream: true) by its content type', async () => {
    const cases: [string | null, boolean][] = [
      ['text/event-stream', false],
      ['text/event-stream; charset=utf-8', false],
      [null, false],
      ['application/x-ndjson', false],
      ['application/json', true],
      ['Application/JSON; charset=utf-8', true],
      ['application/problem+json', true],
    ];
    for (const [type, json] of cases) {
      up.handler = (_req, _b, res) => {
        res.writeHead(200, type === null ? {} : { 'content-type': type });
        res.end('{"a":1}');
      };
      const r = await open();
      assert.equal(r.json, json, String(type));
      assert.equal(await readAll(r), '{"a":1}');
    }
  });

  it('lets a released answer drain, so its connection serves the next calls', async () => {
    up.sockets.clear();
    let socketsClosed = 0;
    const count = (socket: import('node:net').Socket) => socket.once('close', () => socketsClosed++);
    up.server.on('connection', count);
    // The rest of the body is sent only once the answer was released: a timer instead let a slow
    // reader find both writes queued together in its first read.
    let finish = (): void => {};
    up.handler = (_req, _b, res) => {
      res.writeHead(200);
      res.write('data: [DONE]\n\n');
      finish = () => res.end('trailing bytes');
    };
    for (let i = 0; i < 5; i++) {
      const r = await open();
      assert.equal((await r.read())?.toString(), 'data: [DONE]\n\n');
      r.release();
      finish();
      // A read after release() answers at the end of the drain: the answer is complete, and undici
      // hands its connection back to the pool on the event loop's next turn.
      assert.equal(await r.read(), null, 'the released answer drained to its end');
      await nextTurn();
    }
    up.server.off('connection', count);
    assert.equal(socketsClosed, 0, 'no connection was closed');
    assert.ok(up.sockets.size <= 2, `${up.sockets.size} connections for 5 calls`);
  });

  it('cuts off a released answer that never ends, and closes a destroyed one at once', async () => {
    up.handler = (_req, _b, res) => {
      res.writeHead(200);
      res.write('data: [DONE]\n\n');
    };
    let before = up.closed;
    const released = await open();
    await released.read();
    released.release();
    await closedSince(before, 1);
    before = up.closed;
    const destroyed = await open();
    await destroyed.read();
    destroyed.destroy();
    await closedSince(before, 1);
    await assert.rejects(destroyed.read(), /closed before its end/);
  });

  it("fails the read with the caller's abort reason, and closes the upstream request", async () => {
    up.handler = (_req, _b, res) => {
      res.writeHead(200);
      res.write('data: 1\n\n');
    };
    const before = up.closed;
    const controller = new AbortController();
    const r = await open(controller.signal);
    await r.read();
    const reason = new Error('client left');
    controller.abort(reason);
    await assert.rejects(r.read(), (e: unknown) => e === reason);
    await closedSince(before, 1);
  });

  it('gives a non-2xx as a ProviderFailure, and an idle body a timeout the mapping reads as 504', async () => {
    up.handler = (_req, _b, res) => {
      res.writeHead(529, { 'retry-after': '2' });
      res.end('overloaded');
    };
    await assert.rejects(open(), (e: unknown) => e instanceof ProviderFailure && e.status === 529 && e.message === 'upstream said: overloaded' && e.extra.retryAfterMs === 2000);
    up.handler = (_req, _b, res) => {
      res.writeHead(200);
      res.write('data: 1\n\n');
    };
    const r = await open();
    await r.read();
    const failure = await r.read().then(
      () => null,
      (e: unknown) => e,
    );
    const mapped = networkFailure(failure, undefined);
    assert.ok(mapped instanceof ProviderFailure && mapped.status === 504, String(failure));
  });
});
