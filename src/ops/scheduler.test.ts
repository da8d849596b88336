import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createScheduler } from './scheduler.ts';

describe('scheduler', () => {
  it('runs registered jobs every period without overlap, logs failures, and stops', async () => {
    const errors: string[] = [];
    const s = createScheduler({ error: (_o, msg) => void errors.push(msg) });
    let runs = 0;
    let failing = 0;
    s.register({ name: 'count', everyMs: 5, run: async () => void (runs += 1) });
    s.register({ name: 'fail', everyMs: 5, run: async () => {
      failing += 1;
      throw new Error('boom');
    } });
    s.start();
    while (runs < 3 || failing < 2) await new Promise((r) => setTimeout(r, 5));
    await s.stop();
    const after = runs;
    await new Promise((r) => setTimeout(r, 30));
    assert.equal(runs, after, 'no run after stop');
    assert.ok(errors.length >= 2);
  });
});
