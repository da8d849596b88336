import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import { intArrayLiteral, textArrayLiteral } from './array-literal.ts';
import { openDatabase } from './database.ts';

describe('array literals', () => {
  it('write integers and nulls', () => {
    assert.equal(intArrayLiteral([]), '{}');
    assert.equal(intArrayLiteral([1, -2, null, 9007199254740993n]), '{1,-2,NULL,9007199254740993}');
  });

  it('quote every text, escape backslashes and quotes, and keep null apart from "NULL"', () => {
    assert.equal(textArrayLiteral(['a', null, 'NULL', '', 'x"y\\z']), '{"a",NULL,"NULL","","x\\"y\\\\z"}');
  });

  it('read back as the same values, on PostgreSQL and on PGlite', async () => {
    const texts = ['svc-fast', 'svc-fast', null, 'NULL', '', ' spaced ', 'a,b', '{braces}', 'quote"s', 'back\\slash', '\\"', 'ünïcødé ✓', 'tab\tnew\nline'];
    const ints = [0, 1, -1, null, 2147483647, -2147483648];
    const bigints = [0n, null, 9223372036854775807n, -9223372036854775808n];
    const handle = await openDatabase({ databaseUrl: process.env.DATABASE_URL || null, dataDir: null });
    try {
      const r = await sql<{ t: (string | null)[]; i: (number | null)[]; b: (string | null)[] }>`
        select ${textArrayLiteral(texts)}::text[] as t, ${intArrayLiteral(ints)}::int[] as i, ${intArrayLiteral(bigints)}::bigint[]::text[] as b`.execute(handle.db);
      assert.deepEqual(r.rows[0]!.t, texts);
      assert.deepEqual(r.rows[0]!.i, ints);
      assert.deepEqual(r.rows[0]!.b, bigints.map((v) => (v === null ? null : String(v))));
    } finally {
      await handle.close();
    }
  });
});
