import { fork } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { buildApp } from './app.ts';
import { ConfigError, loadConfig } from './config/index.ts';
import { createDeps } from './deps.ts';
import { DatabaseInUseError } from './storage/pglite-lock.ts';

/**
 * On the first start on an empty DATA_DIR, the embedded database is created and migrated by
 * `cli/migrate` in a child process. Creating it grows PGlite's WebAssembly memory to some 850 MB
 * for a moment, and WebAssembly memory never shrinks (closing and reopening PGlite in the same
 * process does not give it back either): done here, the service would keep that peak for its
 * whole life, some 150 MB above every later start (docs/operations.md, "Memory").
 */
async function createEmbeddedDatabaseApart(dataDir: string): Promise<void> {
  if (existsSync(join(dataDir, 'pg', 'PG_VERSION'))) return;
  const ext = import.meta.url.endsWith('.ts') ? '.ts' : '.js';
  const child = fork(new URL(`./cli/migrate${ext}`, import.meta.url), [], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  // A failure is reported again, with its cause, by the start below, which tries the same itself.
  if (code !== 0) console.error(`creating the embedded database in a child process failed (exit ${code}); creating it here`);
}

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (e) {
    if (e instanceof ConfigError) {
      console.error(e.message);
      process.exit(1);
    }
    throw e;
  }
  let deps;
  try {
    if (config.databaseUrl === null) await createEmbeddedDatabaseApart(config.dataDir);
    deps = await createDeps(config);
  } catch (e) {
    if (e instanceof ConfigError || e instanceof DatabaseInUseError) {
      console.error(e.message);
      process.exit(1);
    }
    throw e;
  }
  const app = await buildApp(deps, { defaultMetrics: true });
  try {
    await app.listen({ port: config.port, host: config.host });
  } catch (e) {
    const why = listenFailure(e);
    if (why === null) throw e;
    // Another svc, or another program, already on the port is the commonest first-start failure:
    // one line that says what to do, and the database closed (its lock released), not a stack.
    console.error(`cannot listen on ${config.host}:${config.port}: ${why}; stop what listens there or set PORT (docs/configuration.md)`);
    await app.close();
    await deps.close();
    process.exit(1);
  }

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down: finishing in-flight requests');
    // Streams still running after SHUTDOWN_GRACE_MS are ended (close-connections.ts); this is
    // the last resort if writing what is queued and closing the database then hangs.
    const limitMs = config.shutdownGraceMs + 10_000;
    const force = setTimeout(() => {
      app.log.error({ limitMs }, 'shutdown did not finish in time; exiting');
      process.exit(1);
    }, limitMs);
    force.unref();
    try {
      await app.close();
      await deps.close();
    } finally {
      process.exit(0);
    }
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

function listenFailure(e: unknown): string | null {
  switch ((e as NodeJS.ErrnoException | null)?.code) {
    case 'EADDRINUSE':
      return 'the address is already in use';
    case 'EACCES':
      return 'permission denied (ports below 1024 need privileges)';
    case 'EADDRNOTAVAIL':
      return 'no network interface has that address (check HOST)';
    default:
      return null;
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
