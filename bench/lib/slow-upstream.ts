import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * An OpenAI-compatible streaming upstream that keeps its streams open: the role chunk and one
 * content chunk at once, then a content chunk every `intervalMs`, until release() ends every open
 * stream with its finish chunk, a usage chunk and [DONE]. For holding many streams open through a
 * gateway while its memory is measured.
 */
export async function startSlowUpstream(intervalMs = 1000): Promise<{ url: string; server: Server; open(): number; release(): number; close(): Promise<void> }> {
  const chunk = (delta: object, finish: string | null) =>
    `data: ${JSON.stringify({ id: 'chatcmpl-slow', object: 'chat.completion.chunk', created: 1700000000, model: 'upstream-model', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
  const streams = new Map<ServerResponse, { timer: NodeJS.Timeout; sent: number }>();

  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      res.write(chunk({ role: 'assistant', content: '' }, null) + chunk({ content: 'tok0 ' }, null));
      const state = {
        sent: 1,
        timer: setInterval(() => {
          res.write(chunk({ content: `tok${state.sent} ` }, null));
          state.sent++;
        }, intervalMs),
      };
      streams.set(res, state);
      res.on('close', () => {
        clearInterval(state.timer);
        streams.delete(res);
      });
    });
  });
  server.keepAliveTimeout = 30_000;
  server.maxConnections = 10_000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    server,
    open: () => streams.size,
    release() {
      const n = streams.size;
      for (const [res, state] of streams) {
        clearInterval(state.timer);
        res.end(
          chunk({}, 'stop') +
            `data: ${JSON.stringify({ id: 'chatcmpl-slow', object: 'chat.completion.chunk', created: 1700000000, model: 'upstream-model', choices: [], usage: { prompt_tokens: 12, completion_tokens: state.sent, total_tokens: 12 + state.sent } })}\n\n` +
            'data: [DONE]\n\n',
        );
      }
      streams.clear();
      return n;
    },
    close: () => new Promise((r) => {
      server.closeAllConnections();
      server.close(() => r());
    }),
  };
}
