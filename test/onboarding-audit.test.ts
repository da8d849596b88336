import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { chromiumSkip, launchChromium, signUpInPage } from './helpers/chromium.ts';

/**
 * What a new user met walking the README on a fresh clone (docs/api-decisions.md, "New user walk
 * (session 27)"): each test failed before its fix.
 */
describe('a new user walk (session 27)', () => {
  let t: TestApp;

  before(async () => {
    t = await startTestApp();
    await t.listen();
  });
  after(async () => t?.close());

  const html = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' };

  it('a mistyped dashboard address answers a 404 page, not a JSON body', async () => {
    for (const path of ['/account/nope', '/account/keys/x', '/console/nope']) {
      const res = await fetch(`${t.url}${path}`, { headers: html });
      assert.equal(res.status, 404, path);
      assert.match(res.headers.get('content-type') ?? '', /^text\/html/, path);
      const body = await res.text();
      assert.doesNotMatch(body, /^\s*\{"error"/, path);
      assert.match(body, /<script type="module" src="\/dashboard\/assets\/app\.js">/, path);
    }
  });

  it('a dashboard page asked with a trailing slash is sent to the page', async () => {
    for (const [asked, page] of [
      ['/account/', '/account'],
      ['/account/usage/?from=2026-11-01', '/account/usage?from=2026-11-01'],
      ['/console/', '/console'],
    ] as const) {
      const res = await fetch(`${t.url}${asked}`, { headers: html, redirect: 'manual' });
      assert.equal(res.status, 301, asked);
      assert.equal(res.headers.get('location'), page, asked);
    }
  });

  it('the API surfaces keep their JSON 404', async () => {
    const res = await fetch(`${t.url}/dashboard/api/nope`, { headers: html });
    assert.equal(res.status, 404);
    assert.deepEqual(await res.json(), { error: 'not found: GET /dashboard/api/nope' });
  });

  it('examples/market/read-prices.ts shows a three-way market with its draw price', async () => {
    const res = await fetch(`${t.url}/admin/markets`, {
      method: 'POST',
      headers: { ...t.admin, 'content-type': 'application/json' },
      body: JSON.stringify({
        title: 'Home or away?',
        category: 'sports',
        market_type: 'threeway',
        end_date: new Date(Date.now() + 30 * 86_400_000).toISOString(),
        opening_prices: { yes: 0.5, no: 0.3, draw: 0.2 },
      }),
    });
    assert.equal(res.status, 201, await res.clone().text());
    const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('SVC_')));
    const out = await new Promise<string>((resolve, reject) =>
      execFile(process.execPath, ['--import', 'tsx', 'examples/market/read-prices.ts'], { env: { ...clean, SVC_URL: t.url } }, (err, stdout, stderr) =>
        err ? reject(new Error(`${err.message}\n${stdout}${stderr}`)) : resolve(stdout),
      ),
    );
    assert.match(out, /Home or away\?: yes 0\.500, no 0\.300, draw 0\.200, volume/);
  });

  it("the dashboard's first call names the key variable the README exports", () => {
    const readme = readFileSync('README.md', 'utf8');
    assert.match(readme, /export SVC_KEY=svk_/);
    const app = readFileSync('web/dashboard/app.js', 'utf8');
    assert.doesNotMatch(app, /\$SVK_KEY/);
    assert.match(app, /Authorization: Bearer \$SVC_KEY/);
  });
});

describe('a new user walk (session 27), in Chromium', { skip: chromiumSkip }, () => {
  let t: TestApp;
  let browser: Browser;

  before(async () => {
    t = await startTestApp();
    await t.listen();
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  it('a mistyped dashboard address shows a readable page with a way back', async () => {
    const page = await browser.newPage();
    const problems: string[] = [];
    page.on('pageerror', (e) => problems.push(`uncaught: ${e.message}`));
    await signUpInPage(page, t.url, 'walker@example.com', 'a long passphrase');
    const res = await page.goto(`${t.url}/account/keyz`);
    assert.equal(res?.status(), 404);
    await page.getByRole('heading', { name: 'Page not found' }).waitFor();
    await page.getByText('/account/keyz').first().waitFor();
    await page.getByRole('link', { name: 'Go to your account' }).click();
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    // The first call reads the key from the variable the README has the user export.
    await page.getByText('export SVC_KEY=').waitFor();
    assert.deepEqual(problems, []);
    await page.close();
  });
});

describe('a new user walk (session 27), the process', () => {
  it('a start on a port already taken says so in one line, names PORT, and exits 1', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as { port: number }).port;
    const dataDir = mkdtempSync(join(tmpdir(), 'svc-onboard-'));
    try {
      const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
        env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: '', REDIS_URL: '', ADMIN_TOKEN: '', PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let err = '';
      child.stderr.on('data', (d) => (err += d));
      child.stdout.on('data', () => {});
      const code = await new Promise((resolve) => child.once('exit', resolve));
      assert.equal(code, 1, err);
      assert.match(err, new RegExp(`cannot listen on 127\\.0\\.0\\.1:${port}: the address is already in use; .*set PORT`));
      assert.doesNotMatch(err, /setupListenHandle|EADDRINUSE: address already in use/, 'no stack trace');
    } finally {
      taken.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('a new user walk (session 27), the command line', () => {
  /** Runs a command-line script from its sources on an empty DATA_DIR; its exit code, output and whether it made a database. */
  async function cli(script: string, args: string[]): Promise<{ code: number | null; out: string; madeDatabase: boolean }> {
    const dataDir = mkdtempSync(join(tmpdir(), 'svc-onboard-cli-'));
    try {
      const child = spawn(process.execPath, ['--import', 'tsx', script, ...args], {
        env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: '', REDIS_URL: '', ADMIN_TOKEN: '', LOG_LEVEL: 'warn' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      child.stdout.on('data', (d) => (out += d));
      child.stderr.on('data', (d) => (out += d));
      const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
      return { code, out, madeDatabase: existsSync(join(dataDir, 'pg')) };
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }

  it('`npm run seed:demo -- --help` prints its options and seeds nothing', async () => {
    const r = await cli('src/cli/seed-demo.ts', ['--help']);
    assert.equal(r.code, 0, r.out);
    assert.match(r.out, /--seed <n>/);
    assert.match(r.out, /--trades <n>/);
    assert.doesNotMatch(r.out, /Seeding/);
    assert.equal(r.madeDatabase, false, r.out);
  });

  it('a mistyped seed:demo option is refused by name, before anything is seeded', async () => {
    const r = await cli('src/cli/seed-demo.ts', ['--sed', '3']);
    assert.equal(r.code, 2, r.out);
    assert.match(r.out, /--sed/);
    assert.doesNotMatch(r.out, /Seeding/);
    assert.equal(r.madeDatabase, false, r.out);
  });

  it('`npm run migrate -- --help` and `npm run audit -- --help` print what they do and open no database', async () => {
    for (const script of ['src/cli/migrate.ts', 'src/cli/audit.ts']) {
      const r = await cli(script, ['--help']);
      assert.equal(r.code, 0, `${script}: ${r.out}`);
      assert.match(r.out, /^Usage: npm run (migrate|audit)/m, script);
      assert.equal(r.madeDatabase, false, `${script}: ${r.out}`);
      const wrong = await cli(script, ['--jsn']);
      assert.equal(wrong.code, 2, `${script}: ${wrong.out}`);
      assert.match(wrong.out, /--jsn/, script);
      assert.equal(wrong.madeDatabase, false, `${script}: ${wrong.out}`);
    }
  });
});
