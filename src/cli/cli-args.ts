import { parseArgs } from 'node:util';

type Options = Record<string, { type: 'string' | 'boolean' }>;

/**
 * The options of a one-purpose npm script (`seed:demo`, `migrate`, `audit`), read strictly: these
 * scripts change or read a database, so `--help` prints the usage and exits 0 and a mistyped
 * option exits 2 naming it, both before anything is opened (an ignored `--help` used to seed).
 */
export function scriptArgs<O extends Options>(usage: string, options: O, argv = process.argv.slice(2)): { [K in keyof O]?: O[K]['type'] extends 'boolean' ? boolean : string } {
  let values: Record<string, string | boolean | undefined>;
  try {
    values = parseArgs({ args: argv, options: { ...options, help: { type: 'boolean', short: 'h' } }, strict: true, allowPositionals: false }).values as Record<string, string | boolean | undefined>;
  } catch (e) {
    console.error(`${(e as Error).message.split('. ')[0]}.\n\n${usage}`);
    process.exit(2);
  }
  if (values.help === true) {
    console.log(usage);
    process.exit(0);
  }
  return values as { [K in keyof O]?: O[K]['type'] extends 'boolean' ? boolean : string };
}
