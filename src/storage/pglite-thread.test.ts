import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { startPgliteThread } from './pglite-thread.ts';
import { PREPARED_MARK } from './prepared-mark.ts';

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

  it('runs statements marked prepared with the same values, rows, errors and notifications as the others', async () => {
    const pg = await startPgliteThread({ dir: null, sharedBuffers: '16MB' });
    try {
      const seen: string[] = [];
      pg.onNotification((channel, payload) => seen.push(`${channel}:${payload}`));
      await pg.query('listen c1', []);
      await pg.query('create table t (id int primary key, n int8, tags text[], at timestamptz, j jsonb)', []);
      const insert = `${PREPARED_MARK}insert into t values ($1, $2, $3, $4, $5) returning id, n, tags, at, j`;
      const row = { id: 1, n: 12345678901234567n, tags: ['a', 'b,"c"', null], at: new Date('2026-01-02T03:04:05Z'), j: { x: [1] } };
      for (const text of [insert, insert.slice(PREPARED_MARK.length).replace('$1', '$1::int')]) {
        await pg.query('delete from t', []);
        const r = await pg.query(text, [row.id, row.n.toString(), row.tags, row.at, row.j]);
        assert.deepEqual(r, { rows: [row], affectedRows: 1 }, text);
      }
      await assert.rejects(pg.query(insert, [1, '1', [], new Date(), {}]), (e: Error & { code?: string; constraint?: string }) => {
        assert.equal(e.code, '23505');
        assert.equal(e.constraint, 't_pkey');
        return true;
      });
      // The statement, and the connection, still work after an error.
      assert.deepEqual((await pg.query(`${PREPARED_MARK}select count(*)::int as n from t where id = any($1::int[])`, [[1, 2]])).rows, [{ n: 1 }]);
      assert.deepEqual((await pg.query(`${PREPARED_MARK}select count(*)::int as n from t where id = any($1::int[])`, [[2]])).rows, [{ n: 0 }]);
      await pg.query(`${PREPARED_MARK}select pg_notify('c1', $1)`, ['prepared']);
      assert.deepEqual(seen, ['c1:prepared']);
      const names = await pg.query<{ n: number }>(`select count(*)::int as n from pg_prepared_statements where name like 'svc_%'`, []);
      assert.deepEqual(names.rows, [{ n: 3 }], 'one prepared statement per text');
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
