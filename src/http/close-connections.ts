import type { FastifyInstance } from 'fastify';
import type { Socket } from 'node:net';

/**
 * Once the app is closing, no connection is kept alive: answers finished from then on carry
 * `Connection: close`, and a connection that falls idle after its answer (a stream whose headers
 * left before the close began) is closed. Otherwise a kept-alive client holds the server's close
 * for the keep-alive timeout (72 s), past the time the process gives a shutdown, and what is
 * written behind answers (charges, usage records) would not be flushed before it exits.
 *
 * Two kinds of connection Node's closeIdleConnections() leaves open are closed here too:
 * - A connection that has not sent a byte yet. Node counts it as active (its request timeout
 *   runs from the connection), yet there is nothing to finish, and the server's close stops
 *   the check that would time it out. Clients open such connections ahead of requests: Node's
 *   fetch does right after it abandons a stream (it reconnects for the request it just
 *   aborted, then drops the request), browsers pre-connect. It would hold the close until the
 *   client leaves.
 * - Any connection still open `graceMs` after the close began: a stream in flight ends as if its
 *   client had left (the upstream request is closed, what was produced is billed with 499), and
 *   billing's close waits for those charges, so they are written before the process exits.
 */
export function closeConnectionsOnShutdown(app: FastifyInstance, graceMs: number): void {
  let closing = false;
  let grace: NodeJS.Timeout | null = null;
  // Per connection, not per request: a set entry and a shared listener, no closure.
  const sockets = new Set<Socket>();
  function forget(this: Socket): void {
    sockets.delete(this);
  }
  app.server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', forget);
  });
  app.addHook('preClose', (done) => {
    closing = true;
    for (const socket of sockets) if (socket.bytesRead === 0) socket.destroy();
    grace = setTimeout(() => app.server.closeAllConnections(), graceMs);
    grace.unref();
    done();
  });
  app.addHook('onClose', (_instance, done) => {
    if (grace) clearTimeout(grace);
    done();
  });
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (closing && !reply.raw.headersSent) void reply.header('connection', 'close');
    done(null, payload);
  });
  app.addHook('onResponse', (_request, _reply, done) => {
    // After Node has detached the finished response from its socket, which makes it idle.
    if (closing) setImmediate(() => app.server.closeIdleConnections());
    done();
  });
}
