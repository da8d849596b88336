import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { startTestApp } from './helpers/app.ts';

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
