import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface AdminTokenResult {
  readonly token: string;
  /** True when this start generated the token (it is printed once, then only kept in the file). */
  readonly generated: boolean;
  readonly file: string | null;
}

/** ADMIN_TOKEN when set; otherwise the token kept in DATA_DIR, generated on the first start. */
export function resolveAdminToken(configured: string | null, dataDir: string): AdminTokenResult {
  if (configured) return { token: configured, generated: false, file: null };
  const file = join(dataDir, 'admin-token');
  if (existsSync(file)) {
    const token = readFileSync(file, 'utf8').trim();
    if (token.length >= 16) return { token, generated: false, file };
  }
  mkdirSync(dataDir, { recursive: true });
  const token = `sat_${randomBytes(32).toString('base64url')}`;
  writeFileSync(file, `${token}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
  return { token, generated: true, file };
}
