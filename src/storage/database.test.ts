import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { sql } from 'kysely';
import { openDatabase, PGLITE_SHARED_BUFFERS } from './database.ts';

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
