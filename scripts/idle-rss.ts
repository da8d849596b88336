/**
 * The resident memory of the service started by `npm start`, idle: once on an empty DATA_DIR (the
 * first start creates the embedded database) and once more on the same folder (every later
 * start). With DATABASE_URL set it measures the same process on PostgreSQL, which is what the
 * embedded database is compared with in docs/operations.md.
 * Run: npx tsx scripts/idle-rss.ts
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startNpm } from '../test/helpers/service-process.ts';

/** How long the service sits idle before it is measured. */
const IDLE_MS = 15_000;

const megabytes = (pid: number, field: 'VmRSS' | 'VmHWM'): number => {
  const kb = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  return Math.round(Number(kb) / 1024);
};

const dataDir = mkdtempSync(join(tmpdir(), 'svc-idle-rss-'));
try {
  for (const label of ['first start', 'later start']) {
    const s = await startNpm({ dataDir, env: { LOG_LEVEL: 'warn', DATABASE_URL: process.env.DATABASE_URL ?? '' } });
    try {
      if (!s.up) throw new Error(`npm start did not answer /healthz:\n${s.output()}`);
      // `npm start` execs node dist/main.js: the service is npm's only child.
      const pid = Number(execFileSync('pgrep', ['-P', String(s.npm.pid)]).toString().trim().split('\n')[0]);
      await new Promise((r) => setTimeout(r, IDLE_MS));
      console.log(`${label}: idle RSS ${megabytes(pid, 'VmRSS')} MB (peak ${megabytes(pid, 'VmHWM')} MB)`);
    } finally {
      s.npm.kill('SIGTERM');
      await s.exited;
    }
  }
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
