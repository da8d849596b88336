import { randomBytes } from 'node:crypto';
import type { CompiledQuery, Kysely, QueryResult } from 'kysely';
import pg from 'pg';
import { openDatabase, type DatabaseHandle, type DatabaseOptions } from '../../src/storage/database.ts';

/**
 * A database of its own for one test file: PGlite in memory, or, when DATABASE_URL names a
 * server, a database created on it for this file and dropped by close().
 */
export async function freshDatabase(
  opts: Pick<DatabaseOptions, 'onListenerError'> = {},
): Promise<DatabaseHandle & { url: string | null }> {
  const server = process.env.DATABASE_URL;
  if (!server) return { ...(await openDatabase({ ...opts, databaseUrl: null, dataDir: null })), url: null };
  const name = `svc_t_${process.pid}_${randomBytes(4).toString('hex')}`;
  await adminQuery(server, `create database ${name}`);
  const u = new URL(server);
  u.pathname = `/${name}`;
  const handle = await openDatabase({ ...opts, databaseUrl: u.toString(), dataDir: null });
  return {
    ...handle,
    url: u.toString(),
    async close() {
      await handle.close();
      await adminQuery(server, `drop database if exists ${name} with (force)`);
    },
  };
}

/** Another connection to the same test database (a second app instance). */
export async function openSameDatabase(url: string): Promise<DatabaseHandle> {
  return openDatabase({ databaseUrl: url, dataDir: null });
}

async function adminQuery(serverUrl: string, text: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

/**
 * `db` with every statement it runs passed through `hook`, which runs it with `run()` and may
 * wait before or after (tests that step another commit into the middle of a read). Transactions
 * and every other method are `db`'s own.
 */
export function interceptQueries<DB>(db: Kysely<DB>, hook: (q: CompiledQuery, run: () => Promise<QueryResult<unknown>>) => Promise<QueryResult<unknown>>): Kysely<DB> {
  const executor = db.getExecutor();
  const intercepting = new Proxy(executor, {
    get(target, prop) {
      if (prop === 'executeQuery') return (q: CompiledQuery) => hook(q, () => target.executeQuery(q));
      const v = Reflect.get(target, prop, target) as unknown;
      return typeof v === 'function' ? v.bind(target) : v;
    },
  });
  return new Proxy(db, {
    get(target, prop) {
      if (prop === 'getExecutor') return () => intercepting;
      const v = Reflect.get(target, prop, target) as unknown;
      return typeof v === 'function' ? v.bind(target) : v;
    },
  });
}
