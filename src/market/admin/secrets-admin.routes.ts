import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import { keyId, type SealingKeys } from '../../shared/sealing-keys.ts';
import type { Db } from '../../storage/database.ts';
import { resealApiSecrets } from '../auth/reseal-secrets.ts';

export interface SecretsAdminDeps {
  readonly db: Db;
  /** SECRETS_KEY and SECRETS_KEY_PREVIOUS of this instance. */
  readonly keys: SealingKeys;
  /** Records the current key as every instance's (instance_secrets), so an instance given only it starts. */
  readonly recordCurrentKey: () => Promise<void>;
}

/**
 * POST /admin/secrets/reseal: the last step of a sealing-key rotation (docs/operations.md,
 * "Rotating the sealing key"). Seals every stored market API secret with this instance's
 * SECRETS_KEY, then records that key as the database's, so the previous keys can be dropped.
 * Idempotent and safe while serving; run it once every instance has the new key as SECRETS_KEY.
 */
export function secretsAdminRoutes(deps: SecretsAdminDeps): FastifyPluginAsync {
  return async (app: FastifyInstance) => {
    app.post(
      '/secrets/reseal',
      { schema: { tags: ['admin'], summary: 'Seal every stored market API secret with the current SECRETS_KEY and record it as the key of this database' } },
      async () => {
        const report = await resealApiSecrets(deps.db, deps.keys);
        await deps.recordCurrentKey();
        return {
          key_id: keyId(deps.keys.current).toString('base64url'),
          checked: report.checked,
          resealed: report.resealed,
          already_current: report.current,
          unopened: report.unopened,
        };
      },
    );
  };
}
