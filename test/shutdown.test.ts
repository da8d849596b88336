import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { startTestApp } from './helpers/app.ts';
import { waitFor } from './helpers/wait.ts';

describe('graceful shutdown', () => {
  it('finishes a request in flight before closing', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let entered!: () => void;
    const inside = new Promise<void>((r) => (entered = r));
    const t = await startTestApp({
      beforeReady: (app) =>
        app.get('/api/_slow', async () => {
          entered();
          await gate;
          return { success: true, data: 'finished' };
        }),
    });
    const url = await t.listen();
    const pending = fetch(`${url}/api/_slow`).then(async (r) => ({ status: r.status, body: await r.json() }));
    await inside;
    const closing = t.close();
    release();
    const res = await pending;
    await closing;
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { success: true, data: 'finished' });
  });
});

describe('graceful shutdown with keep-alive clients', () => {
  // A client that keeps its connection open (as browsers and SDK agents do) must not hold the
  // close for the server's keep-alive timeout (72 s): the answers finished while closing say
  // `Connection: close`, and connections that fall idle are closed.
  it('closes a kept-alive connection once its request in flight is answered', async () => {
    const { Client } = await import('undici');
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let entered!: () => void;
    const inside = new Promise<void>((r) => (entered = r));
    let closeBegan!: () => void;
    const closeBegun = new Promise<void>((r) => (closeBegan = r));
    const t = await startTestApp({
      beforeReady: (app) => {
        app.addHook('preClose', (done) => {
          closeBegan();
          done();
        });
        app.get('/api/_slow', async () => {
          entered();
          await gate;
          return { success: true, data: 'finished' };
        });
      },
    });
    const url = await t.listen();
    const client = new Client(url, { keepAliveTimeout: 600_000, keepAliveMaxTimeout: 600_000 });
    try {
      const warm = await client.request({ path: '/healthz', method: 'GET' });
      await warm.body.text();
      const pending = client.request({ path: '/api/_slow', method: 'GET' });
      await inside;
      let closed = false;
      const closing = t.close().then(() => void (closed = true));
      await closeBegun;
      release();
      const res = await pending;
      assert.equal(res.statusCode, 200);
      assert.deepEqual(await res.body.json(), { success: true, data: 'finished' });
      assert.equal(res.headers.connection, 'close');
      // Far below the 72 s keep-alive the connection would otherwise be held for.
      await waitFor(() => closed, { message: 'the close waited on the idle kept-alive connection', timeoutMs: 20_000 });
      await closing;
    } finally {
      await client.destroy();
    }
  });
});
