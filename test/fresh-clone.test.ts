import Anthropic from '@anthropic-ai/sdk';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import OpenAI from 'openai';
import { startNpm, type NpmStart } from './helpers/service-process.ts';

/** Runs a command to its end; rejects with its output when it fails. */
function run(command: string, args: string[], cwd: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.once('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`${command} ${args.join(' ')} exited ${code}:\n${out}`))));
  });
}

/**
 * The README's first steps on a fresh clone of the committed HEAD: `npm install && npm start`
 * with no upstream configured, then a key from the admin API and a first call, answered by the
 * demo provider. Installing, the first build and the clean-up take minutes on a busy machine:
 * scripts/test.mjs gives this file a longer limit than the others (a bound, it measures nothing).
 */
describe('a fresh clone', { skip: process.env.DATABASE_URL ? 'a fresh clone starts on the embedded database: run once, in the PGlite pass' : false }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-fresh-clone-'));
  const clone = join(dir, 'svc');
  let service: NpmStart | undefined;
  after(async () => {
    if (service?.npm.exitCode === null) {
      service.npm.kill('SIGTERM');
      await service.exited;
    }
    await rm(dir, { recursive: true, force: true });
  });

  it('installs, starts with `npm start`, and answers chat (plain and streamed) and messages as a marked demo', async () => {
    const root = (await run('git', ['rev-parse', '--show-toplevel'], process.cwd())).trim();
    await run('git', ['clone', '--quiet', root, clone], dir);
    await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund'], clone);
    service = await startNpm({ cwd: clone, dataDir: join(dir, 'data') });
    assert.ok(service.up, `npm start answered /healthz:\n${service.output()}`);
    assert.match(service.output(), /built-in demo provider/);

    // The admin token, as the first start prints it; then an account, credits and a key.
    const token = /Admin token \(saved to .*, shown only now\):\n\s+(\S+)/.exec(service.output())?.[1];
    assert.ok(token, `the first start printed the admin token:\n${service.output()}`);
    const admin = async (path: string, body: unknown): Promise<Record<string, unknown>> => {
      const res = await fetch(`${service!.url}/admin${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      assert.ok(res.ok, `POST /admin${path}: ${res.status} ${await res.clone().text()}`);
      return (await res.json()) as Record<string, unknown>;
    };
    const account = await admin('/accounts', { email: 'newcomer@example.com', email_verified: true });
    await admin(`/accounts/${account.id}/credits`, { credits: 10 });
    const key = (await admin(`/accounts/${account.id}/keys`, { name: 'first' })).key as string;

    const openai = new OpenAI({ apiKey: key, baseURL: `${service.url}/v1`, maxRetries: 0 });
    const ask = { model: 'svc-fast', messages: [{ role: 'user' as const, content: 'Say hi' }] };
    const plain = await openai.chat.completions.create(ask).withResponse();
    assert.equal(plain.response.status, 200);
    assert.equal(plain.response.headers.get('x-svc-demo'), 'true');
    assert.match(plain.data.choices[0]!.message.content!, /^\[demo\] .*You said: "Say hi"/);

    const streamed = await openai.chat.completions.create({ ...ask, stream: true }).withResponse();
    assert.equal(streamed.response.status, 200);
    assert.equal(streamed.response.headers.get('x-svc-demo'), 'true');
    let text = '';
    for await (const chunk of streamed.data) text += chunk.choices[0]?.delta?.content ?? '';
    assert.equal(text, plain.data.choices[0]!.message.content);

    // The Anthropic SDK appends /v1/messages to its base URL.
    const anthropic = new Anthropic({ apiKey: key, baseURL: service.url, maxRetries: 0 });
    const message = await anthropic.messages.create({ model: 'svc-pro', max_tokens: 256, messages: [{ role: 'user', content: 'Say hi' }] }).withResponse();
    assert.equal(message.response.status, 200);
    assert.equal(message.response.headers.get('x-svc-demo'), 'true');
    const block = message.data.content[0];
    assert.ok(block?.type === 'text' && /^\[demo\] /.test(block.text), JSON.stringify(message.data.content));
  });
});
