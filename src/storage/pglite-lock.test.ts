import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { claimPgliteDir, DatabaseInUseError } from './pglite-lock.ts';

describe('claimPgliteDir', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-lock-'));
  const file = join(dir, 'pg.pid');
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('writes this process id and removes it on release', () => {
    const release = claimPgliteDir(file, dir);
    assert.equal(readFileSync(file, 'utf8').trim(), String(process.pid));
    release();
    assert.equal(existsSync(file), false);
  });

  it('refuses a folder held by another live process', () => {
    writeFileSync(file, `${process.ppid}\n`);
    assert.throws(() => claimPgliteDir(file, dir), (e: unknown) => e instanceof DatabaseInUseError && e.pid === process.ppid);
    assert.equal(readFileSync(file, 'utf8').trim(), String(process.ppid), 'the holder keeps its claim');
  });

  it('takes over the file of a process that died', () => {
    const dead = spawnSync(process.execPath, ['-e', '0']).pid!;
    writeFileSync(file, `${dead}\n`);
    const release = claimPgliteDir(file, dir);
    assert.equal(readFileSync(file, 'utf8').trim(), String(process.pid));
    release();
  });
});
