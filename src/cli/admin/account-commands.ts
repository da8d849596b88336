import { InvalidArgumentError, type Command } from 'commander';
import type { AdminClient } from './admin-client.ts';
import type { Print } from './print.ts';

function positiveId(value: string): number {
  if (!/^[1-9]\d{0,9}$/.test(value)) throw new InvalidArgumentError('expected a positive whole number');
  return Number(value);
}

function credits(value: string): number {
  if (!/^-?\d+(\.\d{1,6})?$/.test(value.trim())) throw new InvalidArgumentError('expected credits like 10, 2.5 or -1.25 (at most 6 decimals)');
  return Number(value);
}

function limit(value: string): number {
  if (!/^\d{1,3}$/.test(value) || Number(value) < 1 || Number(value) > 500) throw new InvalidArgumentError('expected 1 to 500');
  return Number(value);
}

function searchText(value: string): string {
  const text = value.trim();
  if (text === '' || text.length > 254) throw new InvalidArgumentError('expected an email or a part of one (1 to 254 characters)');
  return text;
}

/** The most accounts `accounts find` lists (the admin API's most per page). */
const FIND_LIMIT = 100;

/** `accounts ...` and `keys ...`: the inference account rows of the admin API. */
export function registerAccountCommands(program: Command, client: () => AdminClient, print: Print): void {
  const accounts = program.command('accounts').description('inference accounts, credits and usage');
  accounts
    .command('create')
    .description('create an account')
    .argument('<email>')
    .option('--verified', 'mark its email verified now', false)
    .action(async (email: string, o: { verified: boolean }) =>
      print(await client().call('POST', '/accounts', { email, email_verified: o.verified })),
    );
  accounts
    .command('show')
    .description('an account with its balance and keys')
    .argument('<id>', 'account id', positiveId)
    .action(async (id: number) => print(await client().call('GET', `/accounts/${id}`)));
  accounts
    .command('find')
    .description(`accounts whose email contains <email> (any case): the exact match, then the newest (${FIND_LIMIT} at most); exit 1 when none does`)
    .argument('<email>', 'an email or a part of it', searchText)
    .action(async (email: string) => {
      const q = new URLSearchParams({ email, limit: String(FIND_LIMIT) });
      const { data } = (await client().call('GET', `/accounts?${q}`)) as { data: { email: string }[] };
      if (data.length === 0) throw new Error(`no account's email contains "${email}"`);
      const exact = email.toLowerCase();
      print([...data.filter((a) => a.email.toLowerCase() === exact), ...data.filter((a) => a.email.toLowerCase() !== exact)]);
    });
  accounts
    .command('verify-email')
    .description("mark an account's email verified")
    .argument('<id>', 'account id', positiveId)
    .action(async (id: number) => print(await client().call('POST', `/accounts/${id}/verify-email`)));
  accounts
    .command('credit')
    .description('grant credits (negative takes them away), e.g. `credit 7 100` or `credit 7 -2.5`')
    .argument('<id>', 'account id', positiveId)
    .argument('<credits>', 'credits, at most 6 decimals', credits)
    .option('--note <text>', 'why, kept in the credit ledger')
    .action(async (id: number, amount: number, o: { note?: string }) =>
      print(await client().call('POST', `/accounts/${id}/credits`, { credits: amount, ...(o.note ? { note: o.note } : {}) })),
    );
  accounts
    .command('usage')
    .description("an account's requests with tokens and cost, newest first")
    .argument('<id>', 'account id', positiveId)
    .option('--limit <n>', 'rows (1-500)', limit, 100)
    .option('--before <usageId>', 'older than this usage id', positiveId)
    .action(async (id: number, o: { limit: number; before?: number }) => {
      const q = new URLSearchParams({ limit: String(o.limit), ...(o.before ? { before: String(o.before) } : {}) });
      print(await client().call('GET', `/accounts/${id}/usage?${q}`));
    });

  const keys = program.command('keys').description('svk_ API keys of inference accounts');
  keys
    .command('create')
    .description('issue a key; it is printed once and never again')
    .argument('<accountId>', 'account id', positiveId)
    .option('--name <name>', 'a label for the key')
    .action(async (accountId: number, o: { name?: string }) =>
      print(await client().call('POST', `/accounts/${accountId}/keys`, o.name ? { name: o.name } : {})),
    );
  keys
    .command('revoke')
    .description('revoke a key (every instance refuses it at once)')
    .argument('<keyId>', 'key id', positiveId)
    .action(async (keyId: number) => print(await client().call('DELETE', `/keys/${keyId}`)));
  keys
    .command('rename')
    .description('rename a key (the key itself does not change); "" clears the name')
    .argument('<keyId>', 'key id', positiveId)
    .argument('<name>', 'the new label')
    .action(async (keyId: number, name: string) => print(await client().call('PATCH', `/keys/${keyId}`, { name })));
}
