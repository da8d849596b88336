import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { startPgliteThread } from './pglite-thread.ts';

describe('the embedded database in its own thread', () => {
  it('answers in order, with bigint, dates and json as in-process, and errors keep their fields', async () => {
    const pg = await startPgliteThread({ dir: null, sharedBuffers: '16MB' });
    try {
      const r = await pg.query<{ a: bigint; d: Date; j: unknown }>(`select $1::int8 as a, '2026-01-02T03:04:05Z'::timestamptz as d, '{"x":[1]}'::jsonb as j`, [12345678901234567n.toString()]);
      assert.deepEqual(r.rows, [{ a: 12345678901234567n, d: new Date('2026-01-02T03:04:05Z'), j: { x: [1] } }]);
      await pg.query('create table t (id int primary key)', []);
      await pg.query('insert into t values (1)', []);
      await assert.rejects(pg.query('insert into t values (1)', []), (e: Error & { code?: string; constraint?: string }) => {
        assert.equal(e.code, '23505');
        assert.equal(e.constraint, 't_pkey');
        return true;
      });
    } finally {
      await pg.close();
    }
  });

  it('delivers a notification before the result of the statement that raised it', async () => {
    const pg = await startPgliteThread({ dir: null, sharedBuffers: '16MB' });
    try {
      const seen: string[] = [];
      pg.onNotification((channel, payload) => seen.push(`${channel}:${payload}`));
      await pg.query('listen c1', []);
      await pg.query(`select pg_notify('c1', 'hello')`, []);
      assert.deepEqual(seen, ['c1:hello']);
    } finally {
      await pg.close();
    }
  });

  it('keeps the process alive through a close that waits for a statement in flight', async () => {
    // The statement's answer used to let go of the thread that close() was still waiting on, and
    // the process ran out of work with close() pending.
    const pg = await startPgliteThread({ dir: null, sharedBuffers: '16MB' });
    const inFlight = pg.query('select count(*) from generate_series(1, 200000)', []);
    await pg.close();
    await inFlight.catch(() => {});
    assert.equal(pg.closed, true);
    await assert.rejects(pg.query('select 1', []), /closed/);
  });
});
