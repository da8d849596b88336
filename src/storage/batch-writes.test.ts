import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createBatchWriter } from './batch-writes.ts';

describe('createBatchWriter', () => {
  it('writes a lone item with single, and items that arrive together with one many call', async () => {
    const calls: string[] = [];
    const write = createBatchWriter<number, number>({
      single: async (x) => (calls.push(`single ${x}`), x * 10),
      many: async (xs) => (calls.push(`many ${xs.join(',')}`), xs.map((x) => x * 10)),
    });
    assert.equal(await write(1), 10);
    assert.deepEqual(await Promise.all([write(2), write(3), write(4)]), [20, 30, 40]);
    assert.deepEqual(calls, ['single 1', 'many 2,3,4']);
  });

  it('fills the next batch while one is being written, and bounds its size', async () => {
    const batches: number[][] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const write = createBatchWriter<number, number>({
      single: async (x) => (batches.push([x]), x),
      many: async (xs) => {
        batches.push([...xs]);
        if (xs[0] === 0) await gate;
        return [...xs];
      },
      maxBatch: 3,
    });
    const first = [write(0), write(1)];
    await new Promise((r) => setImmediate(r));
    const later = [2, 3, 4, 5].map((x) => write(x));
    release();
    assert.deepEqual(await Promise.all([...first, ...later]), [0, 1, 2, 3, 4, 5]);
    assert.deepEqual(batches, [[0, 1], [2, 3, 4], [5]]);
  });

  it('falls back to single writes when a batch fails, so only the bad item fails', async () => {
    const write = createBatchWriter<number, number>({
      single: async (x) => {
        if (x < 0) throw new Error(`bad ${x}`);
        return x;
      },
      many: async () => {
        throw new Error('batch failed');
      },
    });
    const results = await Promise.allSettled([write(1), write(-2), write(3)]);
    assert.deepEqual(results.map((r) => r.status), ['fulfilled', 'rejected', 'fulfilled']);
    assert.equal((results[1] as PromiseRejectedResult).reason.message, 'bad -2');
  });

  it('writes at once on flush instead of waiting out the delay', async () => {
    const written: number[] = [];
    const write = createBatchWriter<number, number>({
      single: async (x) => (written.push(x), x),
      many: async (xs) => (written.push(...xs), [...xs]),
      delayMs: 60_000,
    });
    const pending = [write(1), write(2)];
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(written, []);
    await write.flush();
    assert.deepEqual(written, [1, 2]);
    assert.deepEqual(await Promise.all(pending), [1, 2]);
    await write.flush();
  });
});
