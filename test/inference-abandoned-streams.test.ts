import assert from 'node:assert/strict';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { FakeChatScenario } from './fakes/fake-scenario.ts';
import type { FakeServer } from './fakes/fake-server.ts';
import { startGateway, waitForUsage, type Gateway } from './helpers/gateway.ts';
import { createTestAccount, creditBooks } from './helpers/inference.ts';
import { freshDatabase } from './helpers/database.ts';
import { waitFor } from './helpers/wait.ts';

/** The three streamed endpoints, each on a model whose upstream stalls after a few events. */
const STREAMS = [
  { endpoint: 'chat completions', path: '/v1/chat/completions', body: { model: 'svc-fast', stream: true, messages: [{ role: 'user', content: 'Tell me' }] }, fake: (g: Gateway) => g.openai },
  { endpoint: 'responses', path: '/v1/responses', body: { model: 'svc-vision', stream: true, input: 'Tell me' }, fake: (g: Gateway) => g.anthropic },
  { endpoint: 'messages', path: '/v1/messages', body: { model: 'svc-vision', stream: true, max_tokens: 500, messages: [{ role: 'user', content: 'Tell me' }] }, fake: (g: Gateway) => g.anthropic },
] as const;

const STALLING: FakeChatScenario = { text: 'An answer that stops halfway through.', usage: { input: 500, cached: 0, output: 99 }, stallAfter: 6 };

/** The gateway's open client connections (its listening server's count). */
function connections(g: Gateway): Promise<number> {
  return new Promise((resolve, reject) => g.t.app.server.getConnections((err, n) => (err ? reject(err) : resolve(n))));
}

/**
 * POSTs a streamed request on a connection of its own (no agent keeps it) and resolves with the
 * response once its first bytes of body arrived; `text()` is what was read so far.
 */
async function startStream(g: Gateway, key: string, path: string, body: unknown): Promise<{ res: IncomingMessage; text: () => string; ended: Promise<void>; leave: () => void }> {
  const req = httpRequest(`${g.t.url}${path}`, { method: 'POST', agent: false, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' } });
  req.end(JSON.stringify(body));
  const res = await new Promise<IncomingMessage>((resolve, reject) => {
    req.once('response', resolve);
    req.once('error', reject);
  });
  assert.equal(res.statusCode, 200);
  let text = '';
  res.setEncoding('utf8');
  const first = new Promise<void>((resolve) => res.once('data', () => resolve()));
  res.on('data', (d: string) => void (text += d));
  // The response's end as the client sees it: the body's end or the connection's close.
  const ended = new Promise<void>((resolve) => {
    res.once('end', () => resolve());
    res.once('close', () => resolve());
    res.once('error', () => resolve());
  });
  req.on('error', () => {});
  await first;
  return { res, text: () => text, ended, leave: () => void req.destroy() };
}

/** Starts the app's close and tells whether it finished. */
function closing(g: Gateway): { done: () => boolean; promise: Promise<void> } {
  let done = false;
  const promise = g.close().then(() => void (done = true));
  return { done: () => done, promise };
}

describe('a client that leaves a stream', () => {
  let g: Gateway;
  before(async () => {
    g = await startGateway();
  });
  after(() => g.close());

  for (const s of STREAMS) {
    it(`${s.endpoint}: the gateway closes the upstream request and the connection, and bills what was produced`, async () => {
      const acct = await createTestAccount(g.t, { credits: 1000 });
      const fake: FakeServer & { chat: { enqueue(s: FakeChatScenario): void } } = s.fake(g);
      fake.chat.enqueue(STALLING);
      const stream = await startStream(g, acct.key, s.path, s.body);
      assert.ok(stream.text().length > 0);
      stream.leave();
      assert.equal(await fake.requests.at(-1)!.closed, 'aborted', 'the upstream request is closed');
      let open = -1;
      await waitFor(async () => (open = await connections(g)) === 0, { message: () => `the gateway still holds ${open} client connection(s)` });
      const [row] = await waitForUsage(g.t, acct.id, 1);
      assert.equal(row!.status, 499);
      assert.ok(row!.output_tokens > 0, 'billed for what the upstream produced');
      await waitFor(async () => (await creditBooks(g.t, acct.id)).reserved === 0n, { message: `the credit lease of account ${acct.id} did not go back` });
    });
  }
});

describe('shutdown with connections that have no request in flight', () => {
  it('a connection that never sent a request does not hold the close', async () => {
    const g = await startGateway();
    const port = Number(new URL(g.t.url).port);
    const socket = connect(port, '127.0.0.1');
    socket.on('error', () => {});
    const socketClosed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    await waitFor(async () => (await connections(g)) === 1, { message: 'the gateway did not see the connection' });
    const c = closing(g);
    try {
      await waitFor(c.done, { message: "app.close() still waits for a connection that never sent a request (it would until the client's keep-alive or the 600 s connection timeout ends it)" });
      await socketClosed;
    } finally {
      socket.destroy();
      await c.promise;
    }
  });

  // What test/inference-responses.test.ts ran into: Node's fetch (undici), when a stream is
  // abandoned, destroys its connection and at once opens another for the request it just
  // aborted, then drops the request and leaves that connection open, unused, for the keep-alive
  // the server last announced (72 s, less 2 s).
  it('after a fetch client abandons a stream, the close finishes', async () => {
    const g = await startGateway();
    const c = { done: () => false, promise: Promise.resolve() };
    try {
      const acct = await createTestAccount(g.t, { credits: 1000 });
      g.anthropic.chat.enqueue(STALLING);
      const ac = new AbortController();
      const res = await fetch(`${g.t.url}/v1/responses`, {
        method: 'POST',
        headers: { authorization: `Bearer ${acct.key}`, 'content-type': 'application/json' },
        body: JSON.stringify(STREAMS[1].body),
        signal: ac.signal,
      });
      const reader = res.body!.getReader();
      assert.ok((await reader.read()).value!.length > 0);
      await reader.cancel();
      assert.equal(await g.anthropic.requests.at(-1)!.closed, 'aborted');
      await waitForUsage(g.t, acct.id, 1);
      Object.assign(c, closing(g));
      await waitFor(c.done, { message: 'app.close() still waits after a fetch client abandoned a stream' });
    } finally {
      await c.promise;
    }
  });
});

describe('shutdown with a stream in flight', () => {
  it('a stream still running after the grace period is ended, billed for what it produced, and the close finishes', async () => {
    const database = await freshDatabase();
    try {
      const g = await startGateway({ database, env: { SHUTDOWN_GRACE_MS: '300' } });
      const acct = await createTestAccount(g.t, { credits: 1000 });
      g.anthropic.chat.enqueue(STALLING);
      // The client keeps reading: only the gateway can end this exchange.
      const stream = await startStream(g, acct.key, '/v1/messages', STREAMS[2].body);
      const upstream = g.anthropic.requests.at(-1)!;
      const c = closing(g);
      try {
        await waitFor(c.done, { message: 'app.close() still waits for a stream in flight past the shutdown grace period' });
      } finally {
        stream.leave();
        await c.promise;
      }
      await stream.ended;
      assert.equal(await upstream.closed, 'aborted', 'the upstream request is closed');
      const usage = await database.db.selectFrom('usage_records').select(['status', 'output_tokens']).where('account_id', '=', acct.id).execute();
      assert.equal(usage.length, 1, 'the stream is billed before the service stops');
      assert.equal(usage[0]!.status, 499);
      assert.ok(usage[0]!.output_tokens > 0, 'billed for what the upstream produced');
    } finally {
      await database.close();
    }
  });
});
