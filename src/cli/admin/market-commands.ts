import { InvalidArgumentError, type Command } from 'commander';
import type { AdminClient } from './admin-client.ts';
import type { Print } from './print.ts';

/** `yes=0.6,no=0.4` -> { yes: 0.6, no: 0.4 } (values as numbers when `numbers`). */
function keyValues(numbers: boolean) {
  return (text: string): Record<string, string | number> => {
    const out: Record<string, string | number> = {};
    for (const part of text.split(',')) {
      const m = /^\s*([a-z]+)\s*=\s*(.+?)\s*$/i.exec(part);
      if (!m) throw new InvalidArgumentError(`expected outcome=value pairs separated by commas, got ${JSON.stringify(part)}`);
      const value = numbers ? Number(m[2]) : m[2]!;
      if (numbers && !Number.isFinite(value)) throw new InvalidArgumentError(`${m[2]} is not a number`);
      out[m[1]!.toLowerCase()] = value;
    }
    return out;
  };
}

function positiveId(text: string): number {
  if (!/^\d+$/.test(text) || Number(text) < 1) throw new InvalidArgumentError(`expected a positive id, got ${JSON.stringify(text)}`);
  return Number(text);
}

/** Drops the options that were not given, so the API sees only what the operator typed. */
function defined(o: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
}

/**
 * The market's operator commands: events, the market lifecycle, wallet deposits and API keys,
 * withdrawals and the books check. Amounts travel as the decimal text typed, so no digit is lost
 * to a float.
 */
export function registerMarketCommands(program: Command, client: () => AdminClient, print: Print): void {
  const event = program.command('event').description('prediction-market events (groups of markets)');
  event
    .command('create')
    .description('create an event; its slug is made from the title')
    .requiredOption('--title <text>')
    .requiredOption('--category <name>', 'e.g. crypto, politics, sports')
    .option('--description <text>')
    .option('--end-date <iso>', 'ISO 8601 date-time, e.g. 2027-01-01T00:00:00Z')
    .option('--image-url <path>')
    .action(async (o: { title: string; category: string; description?: string; endDate?: string; imageUrl?: string }) => {
      const body = defined({ title: o.title, category: o.category, description: o.description, end_date: o.endDate, image_url: o.imageUrl });
      print(await client().call('POST', '/events', body));
    });
  event
    .command('feature <id>')
    .description('make this the featured event')
    .action(async (id: string) => print(await client().call('POST', `/events/${positiveId(id)}/feature`)));
  event
    .command('unfeature <id>')
    .description('stop featuring this event')
    .action(async (id: string) => print(await client().call('DELETE', `/events/${positiveId(id)}/feature`)));

  const market = program.command('market').description('prediction markets');
  market
    .command('create')
    .description('create a market (active unless --pending)')
    .requiredOption('--title <text>')
    .requiredOption('--type <market_type>', 'yesno, threeway, updown or custom')
    .requiredOption('--end-date <iso>', 'ISO 8601 date-time when trading stops')
    .option('--category <name>', 'required unless --event is given')
    .option('--event <id>', 'the event it belongs to', positiveId)
    .option('--pending', 'create it pending (activate it later)')
    .option('--prices <pairs>', 'opening prices, e.g. yes=0.6,no=0.4', keyValues(true))
    .option('--seed <usdc>', 'virtual seed liquidity in USDC (default 100)')
    .option('--labels <pairs>', 'outcome labels, e.g. yes=Up,no=Down', keyValues(false))
    .option('--description <text>')
    .option('--image-url <path>')
    .action(
      async (o: {
        title: string;
        type: string;
        endDate: string;
        category?: string;
        event?: number;
        pending?: boolean;
        prices?: Record<string, number>;
        seed?: string;
        labels?: Record<string, string>;
        description?: string;
        imageUrl?: string;
      }) => {
        const body = defined({
          title: o.title,
          market_type: o.type,
          end_date: o.endDate,
          category: o.category,
          event_id: o.event,
          status: o.pending ? 'pending' : undefined,
          opening_prices: o.prices,
          seed_liquidity: o.seed,
          outcome_labels: o.labels,
          description: o.description,
          image_url: o.imageUrl,
        });
        print(await client().call('POST', '/markets', body));
      },
    );
  market
    .command('edit <id>')
    .description('edit a market that is not settled')
    .option('--title <text>')
    .option('--description <text>')
    .option('--category <name>')
    .option('--end-date <iso>')
    .option('--image-url <path>')
    .option('--labels <pairs>', 'outcome labels, e.g. yes=Up,no=Down', keyValues(false))
    .action(async (id: string, o: { title?: string; description?: string; category?: string; endDate?: string; imageUrl?: string; labels?: Record<string, string> }) => {
      const body = defined({
        title: o.title,
        description: o.description,
        category: o.category,
        end_date: o.endDate,
        image_url: o.imageUrl,
        outcome_labels: o.labels,
      });
      print(await client().call('PATCH', `/markets/${positiveId(id)}`, body));
    });
  for (const [name, what] of [
    ['activate', 'open a pending market to trading'],
    ['feature', 'make this the featured market'],
    ['cancel', 'cancel a market and refund every stake'],
  ] as const) {
    market
      .command(`${name} <id>`)
      .description(what)
      .action(async (id: string) => print(await client().call('POST', `/markets/${positiveId(id)}/${name}`)));
  }
  market
    .command('unfeature <id>')
    .description('stop featuring this market')
    .action(async (id: string) => print(await client().call('DELETE', `/markets/${positiveId(id)}/feature`)));
  market
    .command('resolve <id> <outcome>')
    .description('resolve a market to yes, no or draw and pay the winners')
    .action(async (id: string, outcome: string) => print(await client().call('POST', `/markets/${positiveId(id)}/resolve`, { outcome })));

  const wallet = program.command('wallet').description('market wallets');
  wallet
    .command('deposit <wallet> <amount>')
    .description('credit a wallet with USDC (at most 6 decimals)')
    .option('--note <text>')
    .action(async (address: string, amount: string, o: { note?: string }) =>
      print(await client().call('POST', `/wallets/${encodeURIComponent(address)}/deposit`, defined({ amount, note: o.note }))),
    );
  wallet
    .command('api-key <wallet>')
    .description('issue a market API key and secret to a wallet (the secret is printed only now)')
    .action(async (address: string) => print(await client().call('POST', `/wallets/${encodeURIComponent(address)}/api-keys`)));

  const withdrawal = program.command('withdrawal').description('market withdrawals: the operator completes or rejects pending ones');
  withdrawal
    .command('list')
    .description('withdrawals, newest first')
    .option('--status <status>', 'pending, sending, completed, rejected or failed')
    .option('--wallet <wallet>')
    .option('--limit <n>', 'at most this many (1-500, default 100)', positiveId)
    .option('--before <id>', 'only withdrawals older than this id', positiveId)
    .action(async (o: { status?: string; wallet?: string; limit?: number; before?: number }) => {
      const q = new URLSearchParams(defined({ status: o.status, wallet: o.wallet, limit: o.limit, before: o.before }) as Record<string, string>);
      const qs = q.toString();
      print(await client().call('GET', `/withdrawals${qs ? `?${qs}` : ''}`));
    });
  withdrawal
    .command('show <id>')
    .description('one withdrawal')
    .action(async (id: string) => print(await client().call('GET', `/withdrawals/${positiveId(id)}`)));
  withdrawal
    .command('complete <id>')
    .description('record that a withdrawal was paid: ledger withdraw with the tx hash, balance debited')
    .requiredOption('--tx-hash <hash>', 'the transfer that paid it')
    .option('--chain <label>', "ledger chain label (default: the withdrawal's chain, else CHAIN_NAME, else evm)")
    .option('--note <text>', 'shown to the user')
    .option('--force', 'complete a withdrawal whose sender never recorded a transaction')
    .action(async (id: string, o: { txHash: string; chain?: string; note?: string; force?: boolean }) =>
      print(await client().call('POST', `/withdrawals/${positiveId(id)}/complete`, defined({ tx_hash: o.txHash, chain: o.chain, note: o.note, force: o.force }))),
    );
  withdrawal
    .command('reject <id>')
    .description('refuse a withdrawal; its amount is unlocked')
    .option('--note <text>', 'shown to the user')
    .option('--force', 'reject a withdrawal already handed to the chain (make sure it can no longer be mined first)')
    .action(async (id: string, o: { note?: string; force?: boolean }) =>
      print(await client().call('POST', `/withdrawals/${positiveId(id)}/reject`, defined({ note: o.note, force: o.force }))),
    );
  withdrawal
    .command('check <id>')
    .description("follow a sent withdrawal's receipt now (CHAIN=evm)")
    .action(async (id: string) => print(await client().call('POST', `/withdrawals/${positiveId(id)}/check`)));

  program
    .command('audit')
    .description('re-add the market ledger and check the books (exit 1 when they do not balance)')
    .action(async () => {
      const report = (await client().call('GET', '/audit')) as { balanced?: boolean };
      print(report);
      if (report?.balanced !== true) throw new Error('the books do not balance');
    });
}
