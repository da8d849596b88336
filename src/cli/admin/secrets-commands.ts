import type { Command } from 'commander';
import type { AdminClient } from './admin-client.ts';
import type { Print } from './print.ts';

/** The sealing key's rotation (docs/operations.md, "Rotating the sealing key"). */
export function registerSecretsCommands(program: Command, client: () => AdminClient, print: Print): void {
  const secrets = program.command('secrets').description('the key sealing stored secrets (SECRETS_KEY)');
  secrets
    .command('reseal')
    .description(
      'seal every stored market API secret with the current SECRETS_KEY and record it as the key of this database, ' +
        'so SECRETS_KEY_PREVIOUS can be dropped (idempotent; safe while serving)',
    )
    .action(async () => {
      const report = (await client().call('POST', '/secrets/reseal')) as { unopened?: unknown[] };
      print(report);
      if (Array.isArray(report?.unopened) && report.unopened.length > 0) {
        throw new Error(`${report.unopened.length} secret(s) open with no key this instance holds; they were left as they are`);
      }
    });
}
