import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import type { DatabaseHandle } from '../src/storage/database.ts';
import { createNotificationListener, LISTEN_APPLICATION_NAME } from '../src/storage/notification-listener.ts';
import { closedPort } from './helpers/closed-port.ts';
import { freshDatabase, openSameDatabase } from './helpers/database.ts';
import { waitFor } from './helpers/wait.ts';

const onServer = Boolean(process.env.DATABASE_URL);
const skip = onServer ? false : 'needs DATABASE_URL (PGlite has no connections to share)';

type Got = [channel: string, payload: string][];

/** A subscriber that records what reaches it and how often it was told to catch up. */
function recorder() {
  const got: Got = [];
  const r = { got, reconnects: 0, onNotify: (c: string, p: string) => void got.push([c, p]), onReconnect: () => void (r.reconnects += 1) };
  return r;
}

async function notifyAll(h: DatabaseHandle, list: Got): Promise<void> {
  // One transaction: delivered at commit, in the order sent.
  await h.db.transaction().execute(async (trx) => {
    for (const [c, p] of list) await sql`select pg_notify(${c}, ${p})`.execute(trx);
  });
}

interface Backend {
  pid: number;
  query: string;
  application_name: string;
}

/** The listening connections on the test database, as the server sees them. */
async function listeners(h: DatabaseHandle): Promise<Backend[]> {
  const r = await sql<Backend>`
    select pid, query, application_name from pg_stat_activity
    where datname = current_database() and application_name = ${LISTEN_APPLICATION_NAME} order by pid`.execute(h.db);
  return r.rows;
}

describe('the notification listener on PGlite and PostgreSQL', () => {
  let h: DatabaseHandle;
  before(async () => {
    h = await freshDatabase();
  });
  after(() => h?.close());

  it('hands each subscriber only its channels, in commit order, until it stops', async () => {
    const a = recorder();
    const b = recorder();
    const ab = recorder();
    const stopA = await h.listen(['t2_a'], a.onNotify, a.onReconnect);
    const stopB = await h.listen(['t2_b'], b.onNotify, b.onReconnect);
    const stopAB = await h.listen(['t2_a', 't2_b'], ab.onNotify, ab.onReconnect);
    try {
      const sent: Got = [];
      for (let i = 0; i < 20; i++) sent.push([i % 3 === 0 ? 't2_b' : 't2_a', String(i)]);
      await notifyAll(h, sent.slice(0, 10));
      await notifyAll(h, sent.slice(10));
      await notifyAll(h, [['t2_other', 'x']]);
      await waitFor(() => ab.got.length === sent.length, { message: () => `both channels: ${JSON.stringify(ab.got)}` });
      await waitFor(() => a.got.length + b.got.length === sent.length, { message: 'a and b' });
      assert.deepEqual(ab.got, sent);
      assert.deepEqual(a.got, sent.filter(([c]) => c === 't2_a'));
      assert.deepEqual(b.got, sent.filter(([c]) => c === 't2_b'));

      await stopA();
      await stopA(); // twice is harmless
      await notifyAll(h, [['t2_a', 'after'], ['t2_b', 'after']]);
      await waitFor(() => ab.got.length === sent.length + 2 && b.got.length === sent.filter(([c]) => c === 't2_b').length + 1, {
        message: 'after a stopped',
      });
      assert.deepEqual(a.got.at(-1), ['t2_a', '19'], 'nothing reaches a stopped subscriber');
      assert.equal(a.reconnects + b.reconnects + ab.reconnects, 0);
    } finally {
      await stopB();
      await stopAB();
    }
  });

  it('reports a subscriber that throws to onListenerError, and still serves the subscribers after it', async () => {
    const reported: [string, unknown][] = [];
    const own = await freshDatabase({ onListenerError: (what, e) => void reported.push([what, e]) });
    const next = recorder();
    try {
      await own.listen(['t8'], () => {
        throw new Error('subscriber bug');
      });
      await own.listen(['t8'], next.onNotify);
      await notifyAll(own, [['t8', '1'], ['t8', '2']]);
      await waitFor(() => next.got.length === 2, { message: () => `after the thrower: ${JSON.stringify(next.got)}` });
      assert.deepEqual(next.got, [['t8', '1'], ['t8', '2']]);
      assert.deepEqual(reported.map(([what, e]) => [what, String(e)]), [
        ['a subscriber to t8 failed on a notification', 'Error: subscriber bug'],
        ['a subscriber to t8 failed on a notification', 'Error: subscriber bug'],
      ]);
    } finally {
      await own.close();
    }
  });
});

describe('one listening connection per instance on PostgreSQL', { skip }, () => {
  let h: DatabaseHandle & { url: string | null };
  before(async () => {
    h = await freshDatabase();
  });
  after(() => h?.close());

  it('serves three subscribers on different channels through one backend named svc-listen, even when the URL names the others', async () => {
    const u = new URL(h.url!);
    u.searchParams.set('application_name', 'svc-pool');
    const other = await openSameDatabase(u.toString());
    const stops: (() => Promise<void>)[] = [];
    try {
      for (const c of ['t1_a', 't1_b', 't1_c']) stops.push(await other.listen([c], () => {}, () => {}));
      const found = await listeners(h);
      assert.equal(found.length, 1, JSON.stringify(found));
      // The pool's connections keep the URL's name.
      const r = await sql<{ application_name: string }>`select application_name from pg_stat_activity where pid = pg_backend_pid()`.execute(other.db);
      assert.equal(r.rows[0]!.application_name, 'svc-pool');
    } finally {
      for (const stop of stops) await stop();
      await other.close();
    }
  });

  it('after its backend is terminated: connects again, LISTENs every channel, calls every onReconnect, and delivers later notifications', async () => {
    const subs = [recorder(), recorder(), recorder()];
    const channels = ['t3_a', 't3_b', 't3_c'];
    const stops = await Promise.all(subs.map((s, i) => h.listen([channels[i]!], s.onNotify, s.onReconnect)));
    try {
      const [first] = await listeners(h);
      assert.ok(first);
      const r = await sql<{ ok: boolean }>`select pg_terminate_backend(${first.pid}) as ok`.execute(h.db);
      assert.equal(r.rows[0]!.ok, true);
      await waitFor(() => subs.every((s) => s.reconnects === 1), { message: () => `reconnects: ${subs.map((s) => s.reconnects)}` });
      const now = await listeners(h);
      assert.equal(now.length, 1, JSON.stringify(now));
      assert.notEqual(now[0]!.pid, first.pid);
      await notifyAll(h, [['t3_c', '1'], ['t3_a', '2'], ['t3_b', '3'], ['t3_a', '4']]);
      await waitFor(() => subs.reduce((n, s) => n + s.got.length, 0) === 4, { message: 'after reconnecting' });
      assert.deepEqual(subs.map((s) => s.got), [[['t3_a', '2'], ['t3_a', '4']], [['t3_b', '3']], [['t3_c', '1']]]);
      assert.deepEqual(subs.map((s) => s.reconnects), [1, 1, 1]);
    } finally {
      for (const stop of stops) await stop();
    }
  });

  it('UNLISTENs a channel when its last subscriber stops, and ends the connection after the last subscriber', async () => {
    const one = recorder();
    const two = recorder();
    const keep = recorder();
    const stopOne = await h.listen(['t4_shared'], one.onNotify);
    const stopTwo = await h.listen(['t4_shared'], two.onNotify);
    const stopKeep = await h.listen(['t4_keep'], keep.onNotify);
    const last = async () => (await listeners(h))[0]?.query ?? '';
    assert.equal(await last(), 'listen "t4_keep"', 'a channel is LISTENed once, when its first subscriber comes');
    await stopOne();
    assert.equal(await last(), 'listen "t4_keep"', 'another subscriber still listens to t4_shared');
    await notifyAll(h, [['t4_shared', 'x']]);
    await waitFor(() => two.got.length === 1, { message: 'the other subscriber still gets t4_shared' });
    await stopTwo();
    assert.equal(await last(), 'unlisten "t4_shared"');
    await notifyAll(h, [['t4_shared', 'y'], ['t4_keep', 'z']]);
    await waitFor(() => keep.got.length === 1, { message: 't4_keep still arrives' });
    assert.deepEqual([one.got, two.got], [[], [['t4_shared', 'x']]]);
    await stopKeep();
    await waitFor(async () => (await listeners(h)).length === 0, { message: 'the last stop ends the connection' });
  });

  it('ends its connection when the database handle closes, and stays closed', async () => {
    const other = await openSameDatabase(h.url!);
    const got = recorder();
    await other.listen(['t5_a'], got.onNotify, got.onReconnect);
    await other.listen(['t5_b'], got.onNotify, got.onReconnect);
    assert.equal((await listeners(h)).length, 1);
    await other.close();
    await waitFor(async () => (await listeners(h)).length === 0, { message: 'no listening backend after close' });
    await assert.rejects(other.listen(['t5_a'], () => {}), /closed/);
  });

  it('takes a subscriber that comes while it waits to reconnect: LISTENed with the others, told to catch up', async () => {
    const listener = createNotificationListener({ connectionString: h.url!, retryMinMs: 1000 });
    const early = recorder();
    const late = recorder();
    try {
      await listener.listen(['t6_early'], early.onNotify, early.onReconnect);
      const [backend] = await listeners(h);
      await sql`select pg_terminate_backend(${backend!.pid})`.execute(h.db);
      await waitFor(async () => (await listeners(h)).length === 0, { message: 'terminated' });
      await listener.listen(['t6_late'], late.onNotify, late.onReconnect);
      await waitFor(() => early.reconnects === 1 && late.reconnects === 1, { message: () => `reconnects: ${early.reconnects}, ${late.reconnects}` });
      await notifyAll(h, [['t6_late', '1'], ['t6_early', '2']]);
      await waitFor(() => early.got.length === 1 && late.got.length === 1, { message: 'both channels after reconnecting' });
      assert.deepEqual([early.got, late.got], [[['t6_early', '2']], [['t6_late', '1']]]);
      assert.equal((await listeners(h)).length, 1);
    } finally {
      await listener.close();
    }
  });

  it('takes a subscriber whose LISTEN meets the connection being terminated: it waits for the reconnect instead of failing', async () => {
    const listener = createNotificationListener({ connectionString: h.url!, retryMinMs: 50 });
    const early = recorder();
    const late = recorder();
    try {
      await listener.listen(['t8_early'], early.onNotify, early.onReconnect);
      const [backend] = await listeners(h);
      // No wait: the late LISTEN goes out on a connection the server is ending, before the client has seen the end.
      await sql`select pg_terminate_backend(${backend!.pid})`.execute(h.db);
      await listener.listen(['t8_late'], late.onNotify, late.onReconnect);
      await waitFor(() => early.reconnects === 1, { message: () => `reconnects: ${early.reconnects}` });
      await notifyAll(h, [['t8_late', '1'], ['t8_early', '2']]);
      await waitFor(() => early.got.length === 1 && late.got.length === 1, { message: 'both channels after reconnecting' });
      assert.deepEqual([early.got, late.got], [[['t8_early', '2']], [['t8_late', '1']]]);
    } finally {
      await listener.close();
    }
  });

  it('reports the loss of its connection once, and a subscriber that fails to catch up, to onError', async () => {
    const reported: [string, unknown][] = [];
    const listener = createNotificationListener({ connectionString: h.url!, retryMinMs: 50, onError: (what, e) => void reported.push([what, e]) });
    const caught = recorder();
    try {
      await listener.listen(['t7_a'], () => {}, () => {
        throw new Error('catch-up failed');
      });
      await listener.listen(['t7_b'], caught.onNotify, caught.onReconnect);
      const [backend] = await listeners(h);
      await sql`select pg_terminate_backend(${backend!.pid})`.execute(h.db);
      await waitFor(() => caught.reconnects === 1, { message: 'the second subscriber told to catch up' });
      const whats = reported.map(([what]) => what);
      assert.deepEqual(whats, ['the listening connection was lost; connecting again', 'a subscriber failed to catch up after the listening connection came back']);
      assert.match(String(reported[1]![1]), /catch-up failed/);
    } finally {
      await listener.close();
    }
  });

  it('closed while waiting to reconnect: its retry is cancelled, no connection comes back', async () => {
    const listener = createNotificationListener({ connectionString: h.url!, retryMinMs: 1000 });
    const got = recorder();
    await listener.listen(['t5_c'], got.onNotify, got.onReconnect);
    const [backend] = await listeners(h);
    await sql`select pg_terminate_backend(${backend!.pid})`.execute(h.db);
    await waitFor(async () => (await listeners(h)).length === 0, { message: 'terminated' });
    await listener.close();
    await new Promise((r) => setTimeout(r, 1300));
    assert.equal((await listeners(h)).length, 0);
    assert.equal(got.reconnects, 0);
  });
});

describe('the notification listener without a server', () => {
  it('refuses the first subscriber when the server cannot be reached, and closes without errors', async () => {
    const port = await closedPort();
    const listener = createNotificationListener({ connectionString: `postgres://postgres@127.0.0.1:${port}/none`, connectTimeoutMs: 2000 });
    await assert.rejects(listener.listen(['x'], () => {}));
    await assert.rejects(listener.listen(['y'], () => {}));
    await listener.close();
  });
});
