import pg from 'pg';

/**
 * Calls `onNotify` for every notification on the channels, in commit order; resolves to stop().
 * On PostgreSQL the instance's one listening connection (NotificationListener below) comes back
 * after a loss and then calls `onReconnect` (notifications sent meanwhile are lost, so the caller
 * catches up); on PGlite the notifications of every query are delivered in-process.
 */
export type Listen = (
  channels: readonly string[],
  onNotify: (channel: string, payload: string) => void,
  onReconnect?: () => void,
) => Promise<() => Promise<void>>;

/** The application_name of the listening connection, as pg_stat_activity shows it. */
export const LISTEN_APPLICATION_NAME = 'svc-listen';

export interface NotificationListener {
  readonly listen: Listen;
  /** Ends the connection and every subscription; later listen() calls are refused. */
  close(): Promise<void>;
}

export interface NotificationListenerOptions {
  readonly connectionString: string;
  /** First wait before connecting again after a loss; doubles per failed attempt. */
  readonly retryMinMs?: number;
  /** The longest wait between two attempts. */
  readonly retryMaxMs?: number;
  readonly connectTimeoutMs?: number;
  /**
   * Told of what would otherwise go unseen: a subscriber that threw (the others are served all
   * the same), a lost connection, a reconnection that failed. The storage layer has no logger.
   */
  readonly onError?: ListenerErrorReporter;
}

/** `what` says in words what failed; `error` is what was thrown, or the connection's error. */
export type ListenerErrorReporter = (what: string, error: unknown) => void;

/** Calls a subscriber's callback; its failure is its own, reported and not passed on. */
export function callSubscriber(report: ListenerErrorReporter | undefined, what: string, f: () => void): void {
  try {
    f();
  } catch (e) {
    report?.(what, e);
  }
}

interface Subscriber {
  readonly channels: ReadonlySet<string>;
  readonly onNotify: (channel: string, payload: string) => void;
  readonly onReconnect: (() => void) | undefined;
  /** Set once its channels are listened to (or the connection is down and will LISTEN them). */
  live: boolean;
}

/**
 * One PostgreSQL connection that LISTENs for every subscriber of a database handle. A channel is
 * LISTENed when its first subscriber comes and UNLISTENed when its last one leaves; the
 * connection is opened for the first subscriber and ended after the last. After a loss it
 * connects again (waits of `retryMinMs` doubling up to `retryMaxMs`), LISTENs every channel
 * again and calls each subscriber's onReconnect. Notifications are handed out as the connection
 * receives them: in commit order, across channels too.
 */
export function createNotificationListener(opts: NotificationListenerOptions): NotificationListener {
  const retryMinMs = opts.retryMinMs ?? 100;
  const retryMaxMs = opts.retryMaxMs ?? 1000;
  const connectionString = withoutApplicationName(opts.connectionString);
  const subscribers = new Set<Subscriber>();
  let client: pg.Client | null = null;
  /** Channels LISTENed on `client`. */
  const listened = new Set<string>();
  let retry: NodeJS.Timeout | null = null;
  let failures = 0;
  /** A connection was lost while someone listened: the next one tells the subscribers. */
  let lost = false;
  let closed = false;
  // Connecting, LISTEN and UNLISTEN run one at a time, in the order asked.
  let queue: Promise<void> = Promise.resolve();
  const serially = (op: () => Promise<void>): Promise<void> => {
    const run = queue.then(op);
    queue = run.catch(() => {});
    return run;
  };

  const onLost = (c: pg.Client, error: unknown) => {
    if (client !== c) return;
    client = null;
    listened.clear();
    c.end().catch(() => {});
    if (closed || subscribers.size === 0) return;
    opts.onError?.('the listening connection was lost; connecting again', error);
    lost = true;
    scheduleRetry();
  };
  const scheduleRetry = () => {
    if (retry || closed) return;
    const wait = Math.min(retryMaxMs, retryMinMs * 2 ** Math.min(failures, 16));
    failures += 1;
    retry = setTimeout(() => {
      retry = null;
      // A LISTEN refused on a new connection: try again rather than stay deaf.
      void serially(sync).catch((e: unknown) => {
        if (failures === 1) opts.onError?.('listening again after a reconnection failed; still trying', e);
        if (lost && subscribers.size > 0) scheduleRetry();
      });
    }, wait);
  };
  const connect = async (): Promise<pg.Client> => {
    const c = new pg.Client({
      connectionString,
      application_name: LISTEN_APPLICATION_NAME,
      connectionTimeoutMillis: opts.connectTimeoutMs ?? 10_000,
      // The connection only reads: without keepalive probes a silently cut network would
      // leave it waiting for notifications that never come.
      keepAlive: true,
      keepAliveInitialDelayMillis: 30_000,
    });
    c.on('notification', (n) => {
      if (client !== c) return;
      for (const s of subscribers) {
        if (!s.live || !s.channels.has(n.channel)) continue;
        callSubscriber(opts.onError, `a subscriber to ${n.channel} failed on a notification`, () => s.onNotify(n.channel, n.payload ?? ''));
      }
    });
    // Both, and before connecting: a server going away must never be an unhandled 'error'.
    c.on('error', (e) => onLost(c, e));
    c.on('end', () => onLost(c, new Error('the server ended the connection')));
    try {
      await c.connect();
    } catch (e) {
      c.end().catch(() => {});
      throw e;
    }
    return c;
  };

  /** Brings the connection in line with the subscribers: open, LISTEN, UNLISTEN, or end it. */
  const sync = async (): Promise<void> => {
    if (closed) return;
    const wanted = new Set<string>();
    for (const s of subscribers) for (const ch of s.channels) wanted.add(ch);
    if (wanted.size === 0) {
      if (retry) clearTimeout(retry);
      retry = null;
      lost = false;
      failures = 0;
      await endClient();
      return;
    }
    if (!client) {
      if (retry) return; // the retry LISTENs everything
      try {
        client = await connect();
      } catch (e) {
        // A first connection reports its failure to the subscriber asking for it; after a loss
        // the subscribers already listen, so the connection keeps being tried.
        if (!lost) throw e;
        // Once per outage: the retries go on every retryMaxMs while the server stays away.
        if (failures === 1) opts.onError?.('connecting the listening connection again failed; still trying', e);
        scheduleRetry();
        return;
      }
      if (closed) return endClient();
    }
    const c = client;
    try {
      for (const ch of wanted) {
        if (listened.has(ch)) continue;
        await c.query(`listen ${pg.escapeIdentifier(ch)}`);
        listened.add(ch);
      }
      for (const ch of [...listened]) {
        if (wanted.has(ch)) continue;
        await c.query(`unlisten ${pg.escapeIdentifier(ch)}`);
        listened.delete(ch);
      }
    } catch (e) {
      if (client !== c) return; // lost meanwhile: the retry LISTENs everything
      // The server ended the connection and the client has not said so yet (the statement's error
      // comes before the connection's): the same loss, so the retry LISTENs everything.
      if (connectionGone(e)) {
        onLost(c, e);
        return;
      }
      throw e;
    }
    failures = 0;
    if (lost) {
      lost = false;
      for (const s of subscribers) {
        if (!s.live || !s.onReconnect) continue;
        callSubscriber(opts.onError, 'a subscriber failed to catch up after the listening connection came back', s.onReconnect);
      }
    }
  };
  const endClient = async () => {
    const c = client;
    client = null;
    listened.clear();
    await c?.end().catch(() => {});
  };

  const listen: Listen = async (channels, onNotify, onReconnect) => {
    if (closed) throw new Error('the notification listener is closed');
    const sub: Subscriber = { channels: new Set(channels), onNotify, onReconnect, live: false };
    subscribers.add(sub);
    try {
      await serially(async () => {
        await sync();
        sub.live = subscribers.has(sub);
      });
    } catch (e) {
      subscribers.delete(sub);
      await serially(sync).catch(() => {});
      throw e;
    }
    let stopped = false;
    return async () => {
      if (stopped) return;
      stopped = true;
      sub.live = false;
      subscribers.delete(sub);
      await serially(sync).catch(() => {});
    };
  };

  return {
    listen,
    async close() {
      closed = true;
      if (retry) clearTimeout(retry);
      retry = null;
      for (const s of subscribers) s.live = false;
      subscribers.clear();
      await queue;
      await endClient();
    },
  };
}

/**
 * Whether a statement failed because its connection is gone: an error of class 57 (operator
 * intervention: the server terminating or shutting down) or a connection error without a code.
 */
function connectionGone(e: unknown): boolean {
  const code = (e as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code.startsWith('57') : e instanceof Error;
}

/** The listening connection is named LISTEN_APPLICATION_NAME even when the URL names the others. */
function withoutApplicationName(connectionString: string): string {
  try {
    const u = new URL(connectionString);
    if (!u.searchParams.has('application_name')) return connectionString;
    u.searchParams.delete('application_name');
    return u.toString();
  } catch {
    return connectionString;
  }
}
