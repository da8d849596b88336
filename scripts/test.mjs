#!/usr/bin/env node
// Runs every *.test.ts under src/ and test/ with node's test runner (Node 20 has no --test globs).
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

function collect(dir, out) {
  let entries;
  try { entries = readdirSync(dir); } catch { return out; }
  for (const name of entries) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) collect(p, out);
    else if (name.endsWith('.test.ts')) out.push(p);
  }
  return out;
}

const filters = process.argv.slice(2);
let files = [...collect('src', []), ...collect('test', [])].sort();
if (filters.length) files = files.filter((f) => filters.some((x) => f.includes(x)));
if (files.length === 0) { console.error('no test files matched'); process.exit(1); }
const concurrency = process.env.TEST_CONCURRENCY ?? '2';

// Every file gets 300 s, except these, run after the others with their own limit.
const LONGER = new Map([
  // Clones the repository, runs `npm install` (some 40 000 files) and the first build before its
  // first request, and deletes it all after: minutes of disk work when the machine is shared.
  [join('test', 'fresh-clone.test.ts'), 900_000],
  // Starts, kills and restarts services under load and audits the books each time: about three
  // minutes alone, and it ran past 300 s beside other suites on a loaded machine.
  [join('test', 'market-crash.test.ts'), 900_000],
]);

function runFiles(list, timeoutMs) {
  if (list.length === 0) return 0;
  const r = spawnSync(process.execPath, ['--import', 'tsx', '--test', `--test-concurrency=${concurrency}`, `--test-timeout=${timeoutMs}`, ...list], { stdio: 'inherit' });
  return r.status ?? 1;
}

let status = runFiles(files.filter((f) => !LONGER.has(f)), 300_000);
for (const [file, timeoutMs] of LONGER) {
  if (!files.includes(file)) continue;
  const s = runFiles([file], timeoutMs);
  status ||= s;
}
process.exit(status);
