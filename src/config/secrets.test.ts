import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ConfigError, loadConfig } from './index.ts';
import { decodePreviousSecretsKeys, resolveSecretsKey } from './secrets.ts';

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

describe('previous secrets keys (SECRETS_KEY_PREVIOUS)', () => {
  it('are read as comma-separated base64 keys, in order, none by default', () => {
    const [a, b] = [randomBytes(32), randomBytes(32)];
    const config = loadConfig({ SECRETS_KEY: randomBytes(32).toString('base64'), SECRETS_KEY_PREVIOUS: ` ${a.toString('base64')} ,${b.toString('base64url')}` });
    assert.deepEqual(config.secretsKeyPrevious, [a.toString('base64'), b.toString('base64url')]);
    const keys = decodePreviousSecretsKeys(config.secretsKeyPrevious);
    assert.ok(keys[0]!.equals(a) && keys[1]!.equals(b));
    assert.deepEqual(loadConfig({}).secretsKeyPrevious, []);
    assert.deepEqual(loadConfig({ SECRETS_KEY_PREVIOUS: '  ' }).secretsKeyPrevious, []);
  });

  it('refuse a malformed key, naming its position', () => {
    const a = randomBytes(32).toString('base64');
    assert.throws(() => loadConfig({ SECRETS_KEY_PREVIOUS: `${a},not-a-key` }), /SECRETS_KEY_PREVIOUS: key 2: must be 32 bytes in base64/);
    assert.throws(() => loadConfig({ SECRETS_KEY_PREVIOUS: `${a},` }), /SECRETS_KEY_PREVIOUS: key 2/);
    assert.throws(() => loadConfig({ SECRETS_KEY_PREVIOUS: randomBytes(16).toString('base64') }), /SECRETS_KEY_PREVIOUS: key 1/);
  });
});
