import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { openDatabase } from '../src/storage/database.ts';

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/** Whether something still listens on the port: binding it fails then. */
async function portTaken(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createServer();
    s.once('error', () => resolve(true));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(false)));
  });
}

describe('npm start', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-npm-start-'));
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(`runs the compiled service and releases the port and the database lock on ${signal} to the npm process`, async () => {
      const port = await freePort();
      // npm itself, as a user runs it: the signal goes to npm's process, not to the service's.
      const npm = spawn('npm', ['start', '--silent'], {
        env: { ...process.env, DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', DATABASE_URL: '', REDIS_URL: '', ADMIN_TOKEN: '', LOG_LEVEL: 'info' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      npm.stdout.on('data', (d) => (out += d));
      npm.stderr.on('data', (d) => (out += d));
      const exited = new Promise<number | null>((resolve) => npm.once('exit', (code) => resolve(code)));
      let up = false;
      // The first start may compile src/ first; the wait is a bound, not an assertion.
      for (let i = 0; i < 3000 && npm.exitCode === null && !up; i++) {
        up = await fetch(`http://127.0.0.1:${port}/healthz`).then((r) => r.ok, () => false);
        if (!up) await new Promise((r) => setTimeout(r, 100));
      }
      assert.ok(up, `the service answered /healthz: ${out}`);
      assert.ok(existsSync(join('dist', 'main.js')), 'the compiled entry point exists');
      assert.match(readFileSync(join(dataDir, 'pg.pid'), 'utf8'), /^\d+\n$/);
      assert.match(out, /built-in demo provider/, 'the log says the demo provider serves the models');

      npm.kill(signal);
      await exited;
      // The service process is npm's child: wait for it to let go of the port as well.
      for (let i = 0; i < 300 && (await portTaken(port)); i++) await new Promise((r) => setTimeout(r, 100));
      assert.equal(await portTaken(port), false, 'the port is free');
      assert.equal(existsSync(join(dataDir, 'pg.pid')), false, 'the database lock is released');
      const again = await openDatabase({ databaseUrl: null, dataDir });
      await again.close();
    });
  }
});
