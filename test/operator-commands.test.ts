import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { claimPgliteDir } from '../src/storage/pglite-lock.ts';
import { runAdmin } from './helpers/admin-cli.ts';
import { startTestApp, TEST_ADMIN_TOKEN, type TestApp } from './helpers/app.ts';

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

interface Run {
  status: number | null;
  out: string;
}

function runCli(script: string, args: string[], env: Record<string, string>): Promise<Run> {
  const child = spawn(process.execPath, ['--import', 'tsx', script, ...args], {
    env: { ...process.env, DATABASE_URL: '', ADMIN_TOKEN: TEST_ADMIN_TOKEN, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  return new Promise((resolve) => child.once('close', (status) => resolve({ status, out })));
}

/**
 * `npm run seed:demo`, `audit` and `migrate` while a service holds the embedded database. The
 * service under test runs in this process; the test claims a DATA_DIR's lock as that service would.
 */
describe('operator commands while the service runs on the embedded database', () => {
  let t: TestApp;
  let dataDir: string;
  let release: () => void;
  let env: Record<string, string>;

  before(async () => {
    t = await startTestApp();
    await t.listen();
    dataDir = mkdtempSync(join(tmpdir(), 'svc-ops-'));
    mkdirSync(join(dataDir, 'pg'));
    release = claimPgliteDir(join(dataDir, 'pg.pid'), join(dataDir, 'pg'));
    env = { DATA_DIR: dataDir, SERVICE_URL: t.url };
  });
  after(async () => {
    release?.();
    rmSync(dataDir, { recursive: true, force: true });
    await t?.close();
  });

  it('seeds the demo market through the admin API, then refuses a second seed plainly', async () => {
    const r = await runCli('src/cli/seed-demo.ts', ['--seed', '3', '--trades', '60'], env);
    assert.equal(r.status, 0, r.out);
    assert.match(r.out, new RegExp(`open in process ${process.pid} \\(the service\\): asking it through its admin API at ${t.url}`));
    assert.match(r.out, /Done in .* s: \d+ events, \d+ markets/);
    assert.match(r.out, /Books balanced/);
    const markets = await t.app.inject({ url: '/api/markets?limit=1' });
    assert.ok(markets.json().data.length > 0, 'the service has the demo markets');

    const again = await runCli('src/cli/seed-demo.ts', [], env);
    assert.equal(again.status, 1);
    assert.match(again.out, /Not seeding: the database already holds market data/);
    assert.doesNotMatch(again.out, /at .*\.ts:\d+/, 'no stack trace');
  });

  it('audits the books through the admin API', async () => {
    const r = await runCli('src/cli/audit.ts', [], env);
    assert.equal(r.status, 0, r.out);
    assert.match(r.out, /Balanced\./);
  });

  it('explains why migrate does not run, without a stack trace', async () => {
    const r = await runCli('src/cli/migrate.ts', [], env);
    assert.equal(r.status, 1);
    assert.match(r.out, /open in process \d+ \(the service\)\. The service applies every migration/);
    assert.doesNotMatch(r.out, /DatabaseInUseError|at .*\.ts:\d+/);
  });

  it('names the URL it could not reach and what to check', async () => {
    const closed = `http://127.0.0.1:${await freePort()}`;
    const admin = await runAdmin(closed, ['whoami']);
    assert.equal(admin.status, 1);
    assert.match(admin.stderr, new RegExp(`could not reach the service at ${closed} \\(ECONNREFUSED\\): is it running .* set SERVICE_URL \\(or PORT\\)`));
    assert.doesNotMatch(admin.stderr, /fetch failed/);

    const audit = await runCli('src/cli/audit.ts', [], { ...env, SERVICE_URL: closed });
    assert.equal(audit.status, 2);
    assert.match(audit.out, new RegExp(`could not reach the service at ${closed} .* holds the embedded database`));

    const refused = await runAdmin(t.url, ['whoami'], 'not-the-admin-token-0000');
    assert.match(refused.stderr, /401: unauthorized \(the service at .* refused the admin token: check ADMIN_TOKEN/);
  });
});
