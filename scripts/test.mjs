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
const r = spawnSync(process.execPath, ['--import', 'tsx', '--test', `--test-concurrency=${concurrency}`, '--test-timeout=300000', ...files], { stdio: 'inherit' });
process.exit(r.status ?? 1);
