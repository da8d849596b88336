import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { createScheduler } from './scheduler.ts';

describe('scheduler', () => {
  // The scheduler's intervals run on node:test's mock timers: each period is a tick of the test,
  // and a turn of the event loop after it lets the jobs' promises settle.
  it('runs registered jobs every period without overlap, logs failures, and stops', async (t) => {
    t.mock.timers.enable({ apis: ['setInterval'] });
    const errors: string[] = [];
    const s = createScheduler({ error: (_o, msg) => void errors.push(msg) });
    let runs = 0;
    let failing = 0;
    let slow = 0;
    let finishSlow!: () => void;
    s.register({ name: 'count', everyMs: 5, run: async () => void (runs += 1) });
    s.register({ name: 'fail', everyMs: 5, run: async () => {
      failing += 1;
      throw new Error('boom');
    } });
    s.register({ name: 'slow', everyMs: 5, run: () => {
      slow += 1;
      return new Promise<void>((r) => (finishSlow = r));
    } });
    s.start();
    t.mock.timers.tick(4);
    await nextTurn();
    assert.deepEqual({ runs, failing, slow }, { runs: 0, failing: 0, slow: 0 }, 'the first run is one period after start');
    for (let i = 1; i <= 3; i++) {
      t.mock.timers.tick(5);
      await nextTurn();
    }
    assert.deepEqual({ runs, failing }, { runs: 3, failing: 3 }, 'one run per period');
    assert.deepEqual(errors, ['scheduled job failed', 'scheduled job failed', 'scheduled job failed']);
    assert.equal(slow, 1, 'a job still running is not started again');
    finishSlow();
    await nextTurn();
    t.mock.timers.tick(5);
    await nextTurn();
    assert.equal(slow, 2, 'it runs again the period after it finished');
    let stopped = false;
    const stopping = s.stop().then(() => (stopped = true));
    await nextTurn();
    assert.equal(stopped, false, 'stop() waits for the running job');
    finishSlow();
    await stopping;
    const after = { runs, failing, slow };
    t.mock.timers.tick(1_000);
    await nextTurn();
    assert.deepEqual({ runs, failing, slow }, after, 'no run after stop');
  });
});
