import type { FastifyInstance } from 'fastify';

/**
 * Once the app is closing, no connection is kept alive: answers finished from then on carry
 * `Connection: close`, and a connection that falls idle after its answer (a stream whose headers
 * left before the close began) is closed. Otherwise a kept-alive client holds the server's close
 * for the keep-alive timeout (72 s), past the 30 s the process gives a shutdown, and what is
 * written behind answers (charges, usage records) would not be flushed before it exits.
 */
export function closeConnectionsOnShutdown(app: FastifyInstance): void {
  let closing = false;
  app.addHook('preClose', (done) => {
    closing = true;
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
