import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createAdminClient, ServiceUnreachableError } from './admin/admin-client.ts';

// The command-line tools reach a running service over HTTP; these settings say where and with what.

export function serviceUrl(): string {
  return (process.env.SERVICE_URL || `http://127.0.0.1:${process.env.PORT || 8080}`).replace(/\/+$/, '');
}

export function adminToken(): string {
  const fromEnv = process.env.ADMIN_TOKEN?.trim();
  if (fromEnv) return fromEnv;
  const file = join(process.env.DATA_DIR || './data', 'admin-token');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  throw new Error(`no admin token: set ADMIN_TOKEN or start the service once to create ${file}`);
}

/**
 * For the tools that open the database themselves (seed:demo, audit): when the embedded database
 * is held by a running service, the same work goes through that service's admin API instead.
 */
export async function callHoldingService(holder: { readonly dir: string; readonly pid: number }, method: string, path: string, body?: unknown): Promise<unknown> {
  const url = serviceUrl();
  console.error(`The embedded database in ${holder.dir} is open in process ${holder.pid} (the service): asking it through its admin API at ${url}.`);
  try {
    return await createAdminClient(url, adminToken()).call(method, path, body);
  } catch (e) {
    if (e instanceof ServiceUnreachableError) {
      throw new Error(
        `${e.message} Process ${holder.pid} holds the embedded database, so this tool cannot open it either: ` +
          'point SERVICE_URL at that service, or stop it and run this again.',
      );
    }
    throw e;
  }
}
