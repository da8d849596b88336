/**
 * `npm run bench [-- name ...]`: runs each benchmark in its own process, one after another (they
 * would skew each other if run together). Names: market-reads, market-trades, gateway, stream-memory, settle-batch, settlement, lane-classifier, routing, answer-write.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const ALL = ['market-reads', 'market-trades', 'gateway', 'stream-memory', 'settle-batch', 'settlement', 'lane-classifier', 'routing', 'answer-write'];
const names = process.argv.slice(2).length ? process.argv.slice(2) : ALL;
let failed = 0;
for (const name of names) {
  const file = `bench/${name}.ts`;
  if (!existsSync(file)) {
    console.error(`no benchmark ${file}`);
    failed++;
    continue;
  }
  console.log(`\n=== ${name}`);
  const r = spawnSync(process.execPath, ['--import', 'tsx', file], { stdio: 'inherit' });
  if (r.status !== 0) failed++;
}
process.exit(failed ? 1 : 0);
