import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError } from './config-error.ts';
import { loadCustodyConfig } from './custody.ts';

describe('loadCustodyConfig', () => {
  it('has defaults: 1 USDC minimum, a check every 15 s', () => {
    assert.deepEqual(loadCustodyConfig({}), { minWithdrawalUnits: 1_000_000n, withdrawalCheckIntervalMs: 15_000 });
  });

  it('reads decimal USDC exactly and 0 as "no periodic check"', () => {
    const c = loadCustodyConfig({ MIN_WITHDRAWAL_USDC: '2.500001', WITHDRAWAL_CHECK_INTERVAL_MS: '0' });
    assert.equal(c.minWithdrawalUnits, 2_500_001n);
    assert.equal(c.withdrawalCheckIntervalMs, 0);
  });

  it('names the setting it refuses', () => {
    for (const [key, v] of [
      ['MIN_WITHDRAWAL_USDC', '0'],
      ['MIN_WITHDRAWAL_USDC', '1.0000001'],
      ['MIN_WITHDRAWAL_USDC', '-1'],
      ['MIN_WITHDRAWAL_USDC', 'abc'],
      ['WITHDRAWAL_CHECK_INTERVAL_MS', '50'],
      ['WITHDRAWAL_CHECK_INTERVAL_MS', '1.5'],
    ] as const) {
      assert.throws(() => loadCustodyConfig({ [key]: v }), (e: unknown) => e instanceof ConfigError && e.key === key, `${key}=${v}`);
    }
  });
});
