import { loadConfig, ConfigError } from '../config/index.ts';
import { migrateToLatest, openDatabase } from '../storage/database.ts';

try {
  const config = loadConfig();
  const handle = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  const result = await migrateToLatest(handle.db);
  for (const r of result.results ?? []) console.log(`${r.status.toLowerCase()}: ${r.migrationName}`);
  if ((result.results ?? []).length === 0) console.log('already up to date');
  await handle.close();
} catch (e) {
  console.error(e instanceof ConfigError ? e.message : e);
  process.exit(1);
}
