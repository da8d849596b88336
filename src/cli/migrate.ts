import { loadConfig, ConfigError } from '../config/index.ts';
import { migrateToLatest, openDatabase } from '../storage/database.ts';
import { DatabaseInUseError } from '../storage/pglite-lock.ts';
import { scriptArgs } from './cli-args.ts';

scriptArgs(`Usage: npm run migrate

Applies the migrations this version knows to DATABASE_URL, or to the embedded database in
DATA_DIR (created when missing). The service runs them at every start too; on the embedded
database, stop the service first.

  -h, --help   this text`, {});

try {
  const config = loadConfig();
  const handle = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  const result = await migrateToLatest(handle.db);
  for (const r of result.results ?? []) console.log(`${r.status.toLowerCase()}: ${r.migrationName}`);
  if ((result.results ?? []).length === 0) console.log('already up to date');
  await handle.close();
} catch (e) {
  if (e instanceof DatabaseInUseError) {
    console.error(
      `The embedded database in ${e.dir} is open in process ${e.pid} (the service). The service applies every ` +
        'migration it knows when it starts, so a running service of this version has nothing left to migrate; ' +
        'to run migrate alone, stop it first.',
    );
  } else {
    console.error(e instanceof ConfigError ? e.message : e);
  }
  process.exit(1);
}
