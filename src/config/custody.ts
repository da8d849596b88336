import { ConfigError } from './config-error.ts';

/** Settings of the market's custody surface (deposits, withdrawals). */
export interface CustodyConfig {
  /** Smallest withdrawal, in micro-USDC. */
  readonly minWithdrawalUnits: bigint;
  /**
   * How often sent withdrawals are checked on chain (CHAIN=evm); 0 turns the periodic check off
   * (reads and the admin check still finalize them).
   */
  readonly withdrawalCheckIntervalMs: number;
}

type Env = NodeJS.ProcessEnv;

const DECIMAL_USDC = /^(\d{1,10})(?:\.(\d{1,6}))?$/;

function value(env: Env, key: string): string | undefined {
  const v = env[key]?.trim();
  return v === undefined || v === '' ? undefined : v;
}

/** Reads MIN_WITHDRAWAL_USDC and WITHDRAWAL_CHECK_INTERVAL_MS. Throws ConfigError naming the key. */
export function loadCustodyConfig(env: Env): CustodyConfig {
  const minText = value(env, 'MIN_WITHDRAWAL_USDC') ?? '1';
  const m = DECIMAL_USDC.exec(minText);
  if (!m) throw new ConfigError('MIN_WITHDRAWAL_USDC', `expected USDC with at most 6 decimals, got ${JSON.stringify(minText)}`);
  const minUnits = BigInt(m[1]!) * 1_000_000n + BigInt((m[2] ?? '').padEnd(6, '0'));
  if (minUnits <= 0n) throw new ConfigError('MIN_WITHDRAWAL_USDC', 'must be greater than 0');

  const intervalText = value(env, 'WITHDRAWAL_CHECK_INTERVAL_MS') ?? '15000';
  if (!/^\d+$/.test(intervalText)) {
    throw new ConfigError('WITHDRAWAL_CHECK_INTERVAL_MS', `expected a whole number, got ${JSON.stringify(intervalText)}`);
  }
  const interval = Number(intervalText);
  if (interval !== 0 && (interval < 100 || interval > 86_400_000)) {
    throw new ConfigError('WITHDRAWAL_CHECK_INTERVAL_MS', `must be 0 (off) or between 100 and 86400000, got ${interval}`);
  }
  return Object.freeze({ minWithdrawalUnits: minUnits, withdrawalCheckIntervalMs: interval });
}
