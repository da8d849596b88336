import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createLastUsedTracker } from './last-used.tracker.ts';

describe('last used tracker', () => {
  it('writes each key at most once per interval, in batches', async () => {
    let now = 0;
    const writes: Array<Map<number, Date>> = [];
    const t = createLastUsedTracker({
      clock: { now: () => now },
      minIntervalMs: 60_000,
      write: async (b) => void writes.push(new Map(b)),
    });
    for (let i = 0; i < 100; i++) {
      t.note(1);
      t.note(2);
    }
    assert.equal(t.pending, 2);
    await t.flush();
    assert.equal(writes.length, 1);
    assert.deepEqual([...writes[0]!.keys()], [1, 2]);

    now += 30_000;
    t.note(1);
    await t.flush();
    assert.equal(writes.length, 1, 'no write inside the interval');

    now += 30_000;
    t.note(1);
    await t.flush();
    assert.equal(writes.length, 2);
    assert.deepEqual([...writes[1]!.entries()], [[1, new Date(60_000)]]);
  });

  it('drops a failed batch instead of retrying it forever', async () => {
    const t = createLastUsedTracker({
      clock: { now: () => 0 },
      minIntervalMs: 1000,
      write: async () => {
        throw new Error('db down');
      },
    });
    t.note(5);
    await assert.rejects(t.flush());
    assert.equal(t.pending, 0);
  });

  it('a flush resolves only once a write already in flight is done', async () => {
    // The service's timer may have started a write just before an explicit flush (or close()):
    // that flush must not report done while the times are still on their way to the database.
    let release!: () => void;
    const written: number[] = [];
    const t = createLastUsedTracker({
      clock: { now: () => 0 },
      minIntervalMs: 1000,
      write: async (b) => {
        await new Promise<void>((r) => (release = r));
        written.push(...b.keys());
      },
    });
    t.note(1);
    const byTimer = t.flush();
    let done = false;
    const explicit = t.flush().then(() => (done = true));
    await new Promise((r) => setImmediate(r));
    assert.equal(done, false, 'waits for the write in flight');
    release();
    await Promise.all([byTimer, explicit]);
    assert.deepEqual(written, [1]);
  });
});
