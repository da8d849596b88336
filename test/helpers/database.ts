import { randomBytes } from 'node:crypto';
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
