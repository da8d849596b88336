import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config/index.ts';
import { createDeps, type AppDeps } from '../../src/deps.ts';
import type { Clock } from '../../src/shared/clock.ts';
import type { DatabaseHandle } from '../../src/storage/database.ts';
import { freshDatabase } from './database.ts';

export const TEST_ADMIN_TOKEN = 'test-admin-token-0123456789abcdef';

export interface TestApp {
  readonly app: FastifyInstance;
  readonly deps: AppDeps;
  readonly database: DatabaseHandle & { url: string | null };
  /** Base URL once listen() was called. */
  url: string;
  listen(): Promise<string>;
  /** Authorization header for the admin API. */
  readonly admin: { authorization: string };
  close(): Promise<void>;
}

export interface TestAppOptions {
  readonly env?: Record<string, string>;
  /** Share a database with another test app (two instances); not closed by this app. */
  readonly database?: DatabaseHandle & { url: string | null };
  readonly clock?: Clock;
  /** Redis key prefix; two instances meant to share counters pass the same one. */
  readonly redisPrefix?: string;
  /** Mount extra routes (probes) before the app is sealed; deps give them the app's services. */
  readonly beforeReady?: (app: FastifyInstance, deps: AppDeps) => void;
}

/** An app on a database of its own (or a shared one), with Redis when REDIS_URL is set. */
export async function startTestApp(opts: TestAppOptions = {}): Promise<TestApp> {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-test-'));
  const env: Record<string, string> = {
    ADMIN_TOKEN: TEST_ADMIN_TOKEN,
    DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    REDIS_PREFIX: opts.redisPrefix ?? `t${randomBytes(6).toString('hex')}`,
    ...(process.env.REDIS_URL ? { REDIS_URL: process.env.REDIS_URL } : {}),
    ...opts.env,
  };
  const config = loadConfig(env);
  const ownsDatabase = opts.database === undefined;
  const database = opts.database ?? (await freshDatabase());
  const deps = await createDeps(config, { database, clock: opts.clock, closeDatabase: false });
  const app = await buildApp(deps);
  opts.beforeReady?.(app, deps);
  await app.ready();
  const t: TestApp = {
    app,
    deps,
    database,
    url: '',
    admin: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
    async listen() {
      await app.listen({ port: 0, host: '127.0.0.1' });
      t.url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
      return t.url;
    },
    async close() {
      await app.close();
      await deps.close();
      if (ownsDatabase) await database.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return t;
}
