import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError } from './config-error.ts';

/** Bytes of the AES-256 key that seals stored secrets (API secrets). */
export const SECRETS_KEY_BYTES = 32;

export interface SecretsKeyResult {
  readonly key: Buffer;
  /** True when this start generated the key (kept in DATA_DIR from then on). */
  readonly generated: boolean;
  readonly file: string | null;
}

/** Decodes a base64 (or base64url) 32-byte key; null when it is not exactly that. */
export function decodeSecretsKey(text: string): Buffer | null {
  const t = text.trim();
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(t)) return null;
  const key = Buffer.from(t, 'base64');
  return key.length === SECRETS_KEY_BYTES ? key : null;
}

/** For loadConfig: SECRETS_KEY as given (null when unset), refused early when it is malformed. */
export function checkSecretsKeyEnv(raw: string | undefined): string | null {
  const t = raw?.trim() ?? '';
  if (t === '') return null;
  if (!decodeSecretsKey(t)) throw new ConfigError('SECRETS_KEY', `must be ${SECRETS_KEY_BYTES} bytes in base64`);
  return t;
}

/**
 * For loadConfig: SECRETS_KEY_PREVIOUS, the keys SECRETS_KEY replaced (comma-separated base64),
 * which still open what they sealed but seal nothing (docs/operations.md, "Rotating the sealing
 * key"); refused early, naming the position, when one is malformed.
 */
export function checkPreviousSecretsKeysEnv(raw: string | undefined): readonly string[] {
  const t = raw?.trim() ?? '';
  if (t === '') return Object.freeze([]);
  return Object.freeze(
    t.split(',').map((part, i) => {
      const key = part.trim();
      if (!decodeSecretsKey(key)) {
        throw new ConfigError('SECRETS_KEY_PREVIOUS', `key ${i + 1}: must be ${SECRETS_KEY_BYTES} bytes in base64 (comma-separated keys)`);
      }
      return key;
    }),
  );
}

/** The previous keys as keys, in the order given. */
export function decodePreviousSecretsKeys(configured: readonly string[]): Buffer[] {
  return configured.map((text) => decodeSecretsKey(text)!);
}

/**
 * SECRETS_KEY when set; otherwise the key kept in DATA_DIR, generated on the first start (mode
 * 0600, like the admin token). An existing file that does not hold a valid key is an error, never
 * silently replaced: every secret sealed with the old key would become unreadable.
 */
export function resolveSecretsKey(configured: string | null, dataDir: string): SecretsKeyResult {
  if (configured) {
    const key = decodeSecretsKey(configured);
    if (!key) throw new ConfigError('SECRETS_KEY', `must be ${SECRETS_KEY_BYTES} bytes in base64`);
    return { key, generated: false, file: null };
  }
  const file = join(dataDir, 'secrets-key');
  const existing = readKeyFile(file);
  if (existing) return { key: existing, generated: false, file };
  mkdirSync(dataDir, { recursive: true });
  const key = randomBytes(SECRETS_KEY_BYTES);
  try {
    // 'wx': a second process starting at the same moment keeps the first one's key.
    writeFileSync(file, `${key.toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    const raced = readKeyFile(file);
    if (raced) return { key: raced, generated: false, file };
    throw new ConfigError('SECRETS_KEY', `${file} does not hold a ${SECRETS_KEY_BYTES}-byte base64 key`);
  }
  chmodSync(file, 0o600);
  return { key, generated: true, file };
}

function readKeyFile(file: string): Buffer | null {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
  const key = decodeSecretsKey(text);
  if (!key) throw new ConfigError('SECRETS_KEY', `${file} does not hold a ${SECRETS_KEY_BYTES}-byte base64 key`);
  return key;
}
