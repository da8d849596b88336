import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { openDatabase } from '../src/storage/database.ts';
import { portTaken, startNpm } from './helpers/service-process.ts';

describe('npm start', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-npm-start-'));
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(`runs the compiled service and releases the port and the database lock on ${signal} to the npm process`, async () => {
      // npm itself, as a user runs it: the signal goes to npm's process, not to the service's.
      const { npm, url, output, exited, up } = await startNpm({ dataDir });
      const port = Number(new URL(url).port);
      assert.ok(up, `the service answered /healthz: ${output()}`);
      assert.ok(existsSync(join('dist', 'main.js')), 'the compiled entry point exists');
      assert.match(readFileSync(join(dataDir, 'pg.pid'), 'utf8'), /^\d+\n$/);
      assert.match(output(), /built-in demo provider/, 'the log says the demo provider serves the models');

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
