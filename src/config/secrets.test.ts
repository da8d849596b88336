import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ConfigError, loadConfig } from './index.ts';
import { resolveSecretsKey } from './secrets.ts';

describe('secrets key', () => {
  it('is generated once, saved with mode 0600, and found again on the next start', () => {
    const dir = mkdtempSync(join(tmpdir(), 'seckey-'));
    const first = resolveSecretsKey(null, dir);
    assert.equal(first.generated, true);
    assert.equal(first.key.length, 32);
    assert.equal(statSync(join(dir, 'secrets-key')).mode & 0o777, 0o600);
    const second = resolveSecretsKey(null, dir);
    assert.equal(second.generated, false);
    assert.ok(second.key.equals(first.key));
  });

  it('prefers SECRETS_KEY, and refuses one that is not 32 bytes of base64', () => {
    const dir = mkdtempSync(join(tmpdir(), 'seckey-'));
    const key = randomBytes(32);
    assert.ok(resolveSecretsKey(key.toString('base64'), dir).key.equals(key));
    assert.throws(() => resolveSecretsKey(randomBytes(16).toString('base64'), dir), ConfigError);
    assert.equal(loadConfig({ SECRETS_KEY: key.toString('base64') }).secretsKey, key.toString('base64'));
    assert.equal(loadConfig({}).secretsKey, null);
    assert.throws(() => loadConfig({ SECRETS_KEY: 'not-a-key' }), /SECRETS_KEY/);
  });

  it('never replaces a key file it cannot read as a key', () => {
    const dir = mkdtempSync(join(tmpdir(), 'seckey-'));
    writeFileSync(join(dir, 'secrets-key'), 'garbage\n');
    assert.throws(() => resolveSecretsKey(null, dir), /does not hold/);
  });
});
