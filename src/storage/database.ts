import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { Kysely, Migrator, PostgresDialect, sql, type MigrationResultSet } from 'kysely';
import pg from 'pg';
import { PGliteDialect } from './pglite-dialect.ts';
import { claimPgliteDir } from './pglite-lock.ts';
import { migrations } from './migrations/index.ts';
import type { Database } from './schema.ts';

export type Db = Kysely<Database>;

export interface DatabaseHandle {
  readonly db: Db;
  readonly kind: 'postgres' | 'pglite';
  close(): Promise<void>;
}

const INT8_OID = 20;

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
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
    return { db, kind: 'postgres', close: () => db.destroy() };
  }
  let dir: string | undefined;
  let release = () => {};
  if (opts.dataDir) {
    dir = join(opts.dataDir, 'pg');
    mkdirSync(dir, { recursive: true });
    release = claimPgliteDir(join(opts.dataDir, 'pg.pid'), dir);
  }
  let pglite: PGlite;
  try {
    pglite = await PGlite.create(dir, {
      extensions: { pg_trgm },
      parsers: { [INT8_OID]: (v: string) => BigInt(v) },
    });
  } catch (e) {
    release();
    throw e;
  }
  const db = new Kysely<Database>({ dialect: new PGliteDialect(pglite) });
  return {
    db,
    kind: 'pglite',
    close: async () => {
      try {
        await db.destroy();
      } finally {
        release();
      }
    },
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
