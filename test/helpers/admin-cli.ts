import { spawn } from 'node:child_process';
import { TEST_ADMIN_TOKEN } from './app.ts';

export interface CliResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `npm run admin -- <args>`'s command against a listening test service (asynchronously). */
export function runAdmin(url: string, args: string[], token = TEST_ADMIN_TOKEN): Promise<CliResult> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/admin.ts', ...args], {
    env: { ...process.env, SERVICE_URL: url, ADMIN_TOKEN: token },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  return new Promise((resolve) => child.once('close', (status) => resolve({ status, stdout, stderr })));
}
