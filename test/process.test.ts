import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { freePort } from './helpers/service-process.ts';

interface Started {
  child: ChildProcess;
  output: () => string;
}

/** Starts the service from its sources (as `npm run start:dev` does) and waits until /healthz answers. */
async function startService(env: Record<string, string>, port: number): Promise<Started> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    env: { ...process.env, ...env, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  // A bound on the wait, not an assertion: a busy machine can take minutes to start.
  for (let i = 0; i < 3000; i++) {
    if (child.exitCode !== null) throw new Error(`service exited: ${out}`);
    try {
      const r = await fetch(`http://127.0.0.1:${port}/healthz`);
      if (r.ok) return { child, output: () => out };
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill('SIGKILL');
  throw new Error(`service did not answer /healthz: ${out}`);
}

async function stop(s: Started): Promise<number | null> {
  s.child.kill('SIGTERM');
  return new Promise((resolve) => s.child.once('exit', (code) => resolve(code)));
}

describe('the service process', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-proc-'));
  after(() => rmSync(dataDir, { recursive: true, force: true }));
  // The embedded database is what `npm start` uses on a fresh clone.
  const env = { DATA_DIR: dataDir, DATABASE_URL: '', REDIS_URL: '', ADMIN_TOKEN: '' };

  it('starts on the embedded database, prints the admin token once, and keeps it across restarts', async () => {
    const port = await freePort();
    const first = await startService(env, port);
    const token = readFileSync(join(dataDir, 'admin-token'), 'utf8').trim();
    assert.ok(first.output().includes(token), 'the first start prints the token');
    assert.equal(statSync(join(dataDir, 'admin-token')).mode & 0o777, 0o600);
    assert.ok(statSync(join(dataDir, 'pg')).isDirectory(), 'the database lives in DATA_DIR');
    const who = await fetch(`http://127.0.0.1:${port}/admin/whoami`, { headers: { authorization: `Bearer ${token}` } });
    assert.equal(who.status, 200);
    assert.equal(await stop(first), 0, 'SIGTERM shuts down cleanly');

    const second = await startService(env, port);
    assert.ok(!second.output().includes(token), 'a restart does not print the token again');
    assert.equal(readFileSync(join(dataDir, 'admin-token'), 'utf8').trim(), token);
    const again = await fetch(`http://127.0.0.1:${port}/admin/whoami`, { headers: { authorization: `Bearer ${token}` } });
    assert.equal(again.status, 200);
    const ready = await fetch(`http://127.0.0.1:${port}/readyz`);
    assert.equal(ready.status, 200);
    assert.equal(await stop(second), 0);
  });

  it('refuses to start on a broken setting and names it', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      env: { ...process.env, ...env, PORT: 'not-a-port' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let err = '';
    child.stderr!.on('data', (d) => (err += d));
    const code = await new Promise((resolve) => child.once('exit', resolve));
    assert.equal(code, 1);
    assert.match(err, /invalid configuration: PORT: expected a whole number/);
  });
});
