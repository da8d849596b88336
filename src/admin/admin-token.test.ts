import assert from 'node:assert/strict';
import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { resolveAdminToken } from './admin-token.ts';

describe('admin token', () => {
  it('is generated once, saved with mode 0600, and found again on the next start', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tok-'));
    const first = resolveAdminToken(null, dir);
    assert.equal(first.generated, true);
    assert.equal(statSync(join(dir, 'admin-token')).mode & 0o777, 0o600);
    const second = resolveAdminToken(null, dir);
    assert.equal(second.generated, false);
    assert.equal(second.token, first.token);
  });

  it('prefers ADMIN_TOKEN', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tok-'));
    assert.equal(resolveAdminToken('configured-token-123456', dir).token, 'configured-token-123456');
  });
});
