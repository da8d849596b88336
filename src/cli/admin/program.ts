import { Command } from 'commander';
import type { AdminClient } from './admin-client.ts';
import { registerAccountCommands } from './account-commands.ts';
import { registerMarketCommands } from './market-commands.ts';
import { registerSecretsCommands } from './secrets-commands.ts';
import type { Print } from './print.ts';

/**
 * The admin command line. Each domain adds its commands with a `register...Commands(program,
 * client, print)` function listed here.
 */
export function buildAdminProgram(client: () => AdminClient, print: Print): Command {
  const program = new Command('admin')
    .description('Operate svc through its admin API (SERVICE_URL, ADMIN_TOKEN or DATA_DIR/admin-token)')
    .exitOverride();
  program
    .command('whoami')
    .description('check the admin token against the service')
    .action(async () => print(await client().call('GET', '/whoami')));
  registerAccountCommands(program, client, print);
  registerMarketCommands(program, client, print);
  registerSecretsCommands(program, client, print);
  return program;
}
