import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { sql } from 'kysely';
import { openDatabase, PGLITE_SHARED_BUFFERS, PREPARED } from './database.ts';

describe('the embedded database', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-db-'));
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  it(`runs with a ${PGLITE_SHARED_BUFFERS} buffer pool, on its first start and after (the idle process stays small)`, async () => {
    for (let start = 0; start < 2; start++) {
      const handle = await openDatabase({ databaseUrl: null, dataDir });
      try {
        const { rows } = await sql<{ shared_buffers: string }>`show shared_buffers`.execute(handle.db);
        assert.equal(rows[0]!.shared_buffers, PGLITE_SHARED_BUFFERS);
      } finally {
        await handle.close();
      }
    }
  });
});

describe('statements marked PREPARED', () => {
  it('run as one named prepared statement per text, on PostgreSQL and on PGlite', async () => {
    const handle = await openDatabase({ databaseUrl: process.env.DATABASE_URL || null, dataDir: null });
    try {
      const names = await handle.db.transaction().execute(async (trx) => {
        for (const n of [1, 2, 3]) {
          const { rows } = await sql<{ n: number }>`${PREPARED}select ${n}::int + 1 as n`.execute(trx);
          assert.deepEqual(rows, [{ n: n + 1 }]);
        }
        const r = await sql<{ name: string; statement: string }>`select name, statement from pg_prepared_statements where name like 'svc_%'`.execute(trx);
        return r.rows.filter((row) => row.statement.includes('::int + 1 as n')).map((row) => row.name);
      });
      assert.equal(names.length, 1, `one statement for one text: ${names.join(', ')}`);
    } finally {
      await handle.close();
    }
  });
});
