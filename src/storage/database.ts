import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Kysely, Migrator, PostgresDialect, sql, type MigrationResultSet } from 'kysely';
import pg from 'pg';
import { PGliteDialect } from './pglite-dialect.ts';
import { PREPARED_MARK } from './prepared-mark.ts';
import { claimPgliteDir } from './pglite-lock.ts';
import { startPgliteThread, type EmbeddedPostgres } from './pglite-thread.ts';
import { migrations } from './migrations/index.ts';
import { callSubscriber, createNotificationListener, type Listen, type ListenerErrorReporter } from './notification-listener.ts';
import type { Database } from './schema.ts';

export type Db = Kysely<Database>;

export interface DatabaseHandle {
  readonly db: Db;
  readonly kind: 'postgres' | 'pglite';
  /**
   * Subscribes to NOTIFY on `channels` (see Listen). On PostgreSQL every subscriber of the handle
   * shares one listening connection (notification-listener.ts), ended by close().
   */
  readonly listen: Listen;
  close(): Promise<void>;
}

export type { Listen };

const INT8_OID = 20;
/** The embedded database's buffer pool (PostgreSQL's default is 128MB); see the note where it is set. */
export const PGLITE_SHARED_BUFFERS = '16MB';

/** int8 columns (all money) arrive as bigint; everything else as the drivers parse it. */
function pgTypes(): pg.CustomTypesConfig {
  return {
    getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
      oid === INT8_OID ? (v: string) => BigInt(v) : pg.types.getTypeParser(oid, format)) as pg.CustomTypesConfig['getTypeParser'],
  };
}

export interface DatabaseOptions {
  /** PostgreSQL server; when null, embedded PGlite. */
  readonly databaseUrl: string | null;
  /** Folder for PGlite's files; null keeps it in memory (tests). */
  readonly dataDir: string | null;
  readonly poolSize?: number;
  /** Told of a notification subscriber that threw and of the listening connection's losses. */
  readonly onListenerError?: ListenerErrorReporter;
}

export async function openDatabase(opts: DatabaseOptions): Promise<DatabaseHandle> {
  if (opts.databaseUrl) {
    const pool = new pg.Pool({
      connectionString: opts.databaseUrl,
      max: opts.poolSize ?? 20,
      types: pgTypes(),
      connectionTimeoutMillis: 10_000,
    });
    // An idle client losing its server must not crash the process; the pool replaces it.
    pool.on('error', () => {});
    pool.on('connect', prepareMarked);
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
    const listener = createNotificationListener({ connectionString: opts.databaseUrl, onError: opts.onListenerError });
    return {
      db,
      kind: 'postgres',
      listen: listener.listen,
      close: async () => {
        try {
          await listener.close();
        } finally {
          await db.destroy();
        }
      },
    };
  }
  let dir: string | undefined;
  let release = () => {};
  if (opts.dataDir) {
    dir = join(opts.dataDir, 'pg');
    mkdirSync(dir, { recursive: true });
    release = claimPgliteDir(join(opts.dataDir, 'pg.pid'), dir);
  }
  let pglite: EmbeddedPostgres;
  try {
    // PostgreSQL's default 128 MB buffer pool lives in PGlite's WebAssembly memory, which never
    // shrinks: 16 MB keeps the idle process some 145 MB smaller (docs/operations.md). Pages
    // beyond it come back from the operating system's file cache, not from the disk.
    pglite = await startPgliteThread({ dir: dir ?? null, sharedBuffers: PGLITE_SHARED_BUFFERS });
  } catch (e) {
    release();
    throw e;
  }
  const db = new Kysely<Database>({ dialect: new PGliteDialect(pglite) });
  const embedded = pglite;
  return {
    db,
    kind: 'pglite',
    async listen(channels, onNotify) {
      const wanted = new Set(channels);
      const off = embedded.onNotification((channel, payload) => {
        // A throw here would reach PGlite's own delivery loop and the subscribers after this one.
        if (wanted.has(channel)) callSubscriber(opts.onListenerError, `a subscriber to ${channel} failed on a notification`, () => onNotify(channel, payload));
      });
      // Through Kysely, so the LISTEN waits for the one connection instead of joining a transaction.
      for (const c of channels) await sql`listen ${sql.id(c)}`.execute(db);
      // No UNLISTEN: the connection is shared by every listener of this process (two app
      // instances in one test), and a notification nobody subscribed to costs nothing.
      return async () => off();
    },
    close: async () => {
      try {
        await db.destroy();
      } finally {
        release();
      }
    },
  };
}

/**
 * Marks a statement to be run as a named prepared statement: put it first in a `sql` template
 * (`sql\`${PREPARED} select ...\``). Each connection (PGlite's one, or each of the pool's) then
 * parses and plans the statement's text once and afterwards only binds and executes it: for the
 * few statements of the hot paths whose text never changes (the charge batch's, the trade
 * batch's), not for every query, since the server keeps every prepared statement of a connection
 * for the connection's life. PGlite: pglite-prepared.ts.
 */
export const PREPARED = sql.raw(PREPARED_MARK);

type QueryFn = (...args: unknown[]) => unknown;

/**
 * Sends marked statements with a name derived from their text (one per distinct text); every
 * other call, in any of node-postgres's forms (a config object, a callback), goes through as is.
 */
function prepareMarked(client: pg.PoolClient): void {
  const query = client.query.bind(client) as QueryFn;
  const names = new Map<string, string>();
  (client as unknown as { query: QueryFn }).query = (...args) => {
    const [text, values] = args;
    if (typeof text !== 'string' || !text.startsWith(PREPARED_MARK) || typeof args[2] === 'function') return query(...args);
    let name = names.get(text);
    if (name === undefined) {
      name = `svc_${createHash('sha1').update(text).digest('hex').slice(0, 24)}`;
      names.set(text, name);
    }
    return query({ name, text, values });
  };
}

export async function migrateToLatest(db: Db): Promise<MigrationResultSet> {
  await sql`create extension if not exists pg_trgm`.execute(db);
  const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } });
  const result = await migrator.migrateToLatest();
  if (result.error) throw result.error;
  return result;
}

export async function ping(db: Db): Promise<void> {
  await sql`select 1`.execute(db);
}
