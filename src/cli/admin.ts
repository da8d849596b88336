import { CommanderError } from 'commander';
import { AdminApiError, createAdminClient } from './admin/admin-client.ts';
import { buildAdminProgram } from './admin/program.ts';
import { adminToken, serviceUrl } from './service-target.ts';

// The CLI is a client of the admin API over HTTP.
const program = buildAdminProgram(
  () => createAdminClient(serviceUrl(), adminToken()),
  (v) => console.log(typeof v === 'string' ? v : JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? x.toString() : x), 2)),
);

try {
  await program.parseAsync(process.argv);
} catch (e) {
  if (e instanceof CommanderError) process.exit(e.exitCode);
  console.error(e instanceof AdminApiError || e instanceof Error ? e.message : String(e));
  process.exit(1);
}
