import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CommanderError } from 'commander';
import { AdminApiError, createAdminClient } from './admin/admin-client.ts';
import { buildAdminProgram } from './admin/program.ts';

// The CLI is a client of the admin API over HTTP; these two settings say where and with what.
function adminToken(): string {
  const fromEnv = process.env.ADMIN_TOKEN?.trim();
  if (fromEnv) return fromEnv;
  const file = join(process.env.DATA_DIR || './data', 'admin-token');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  throw new Error(`no admin token: set ADMIN_TOKEN or start the service once to create ${file}`);
}

const serviceUrl = process.env.SERVICE_URL || `http://127.0.0.1:${process.env.PORT || 8080}`;
const program = buildAdminProgram(
  () => createAdminClient(serviceUrl, adminToken()),
  (v) => console.log(typeof v === 'string' ? v : JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? x.toString() : x), 2)),
);

try {
  await program.parseAsync(process.argv);
} catch (e) {
  if (e instanceof CommanderError) process.exit(e.exitCode);
  console.error(e instanceof AdminApiError || e instanceof Error ? e.message : String(e));
  process.exit(1);
}
